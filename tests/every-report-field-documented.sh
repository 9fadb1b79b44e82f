#!/bin/sh
# Every field of real reports is in libkprof(7): each JSON key, at any depth, in the man page's entry for
# its section ("top level", "kernels", "calibration"...; graphs may point to kernels' fields), and each CSV
# file's header row, as it is, on that file's entry of "CSV files".  The reports come from programs that
# fill every section on the fake GPU: graphapp (graphs, captured launches, a kernel left out by
# KPROF_EXCLUDE) and nsys_tables (copies, memsets).  report-columns-documented.sh checks columns.def;
# this checks what the writers print, the fields they write by hand included.
. "${top_srcdir:-..}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the reports and the man page"
for f in json csv; do
    KPROF_FORMAT=$f KPROF_OUTPUT="$WORK/g.$f" KPROF_EXCLUDE=direct run_kprof "$FAKE/progs/graphapp" mixed >/dev/null 2>&1 ||
        fail "graphapp mixed failed"
    KPROF_FORMAT=$f KPROF_OUTPUT="$WORK/n.$f" run_kprof "$PROGS/nsys_tables" >/dev/null 2>&1 || fail "nsys_tables failed"
done

python3 - "$top_srcdir/man/libkprof.7" "$WORK" <<'EOF' || fail "fields of the reports missing from libkprof(7)"
import csv, glob, json, os, re, sys
man, work = open(sys.argv[1], encoding="utf-8").read().split("\n"), sys.argv[2]
bad = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)

def section(title):
    """The lines of the man page's .SS section `title` (up to the next .SS or .SH)."""
    out, on = [], False
    for line in man:
        if line.startswith((".SS", ".SH")):
            on = line.startswith('.SS "%s' % title)
            continue
        if on:
            out.append(line)
    return out

def entries(lines):
    """The .TP entries of a section: {tag: text}, the tag with its font request and escapes dropped."""
    out, tag, body = {}, None, []
    for i, line in enumerate(lines):
        if line == ".TP" and i + 1 < len(lines):
            if tag is not None:
                out[tag] = "\n".join(body)
            tag, body = None, []
            continue
        if tag is None and i > 0 and lines[i - 1] == ".TP":
            tag = plain(re.sub(r"^\.[BI]+ ", "", line)).strip()
            continue
        if line.startswith((".PP", ".ad")) and tag is not None:
            out[tag], tag = "\n".join(body), None
        elif tag is not None:
            body.append(line)
    if tag is not None:
        out[tag] = "\n".join(body)
    return out

def plain(text):
    text = re.sub(r"\\[:c&]", "", text).replace("\\ ", " ").replace("\\-", "-")
    return re.sub(r"^\.[A-Z]+ ?", "", text, flags=re.M).replace('"', "")

def words(text):
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", plain(text)))

# JSON: every key, at any depth, in its section's entry.
js = entries(section("JSON report"))
check(bool(js), "libkprof(7) has a JSON report section with entries: %s" % sorted(js))
def keys(value):
    if isinstance(value, dict):
        return set(value) | set().union(*(keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys(v) for v in value)) if value else set()
    return set()
seen = {}
for path in sorted(glob.glob(os.path.join(work, "*.json"))):
    report = json.load(open(path, encoding="utf-8"))
    seen.setdefault("top level", set()).update(report)
    for name, value in report.items():
        seen.setdefault(name, set()).update(keys(value))
for name, ks in sorted(seen.items()):
    if not ks:
        continue
    known = words(js.get(name, ""))
    # graphs "with the fields of kernels", memsets "with the same fields" as copies
    for other, said in (("kernels", "with the fields of"), ("copies", "with the same fields")):
        if said in js.get(name, ""):
            known |= words(js.get(other, ""))
    missing = sorted(ks - known)
    check(name in js and not missing, "JSON %s: %d keys, each in libkprof(7)'s entry%s"
          % (name, len(ks), "; missing: " + " ".join(missing) if missing else ""))
for name in ("captured", "graphs", "copies", "calibration"):
    check(seen.get(name), "JSON %s: rows to read (the programs fill every section)" % name)
check("filtered_kernels" in seen["top level"], "JSON: filtered_kernels")

# CSV: each file's header row, as it is, on the file's entry (graphs: "The same columns as" kernels').
cs = {re.sub(r"^base", "", t.replace(" ", "")): plain(body) for t, body in entries(section("CSV files")).items()}
for path in sorted(glob.glob(os.path.join(work, "*.csv"))):
    table = path.split(".")[-2]
    header = next(csv.reader(open(path, newline="", encoding="utf-8")))
    entry = cs.get(".%s.csv" % table, "")
    if table == "graphs" and "The same columns as" in entry:
        entry = cs.get(".kernels.csv", "")
    text = re.sub(r"\s*\n\s*", "", entry)  # the header may be set on several lines (\c joins them)
    check(",".join(header) in text, "CSV %s: header of %d columns in libkprof(7)'s entry for %s"
          % (os.path.basename(path), len(header), table))
sys.exit(1 if bad else 0)
EOF
pass "every JSON key and CSV column of the reports is in libkprof(7)"
