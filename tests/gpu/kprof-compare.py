#!/usr/bin/env python3
"""Compare a libkprof JSON report against a libkprof-cupti.so summary.

usage: kprof-compare.py [--pct 5] [--us 5] [--ignore REGEX]... [--no-copies]
                        KPROF.json CUPTI.txt

Per kernel (matched by mangled name, falling back to the display name) it
prints the call counts and the average duration on both sides.  A row passes
when the counts are equal and the average differs by at most --us
microseconds OR at most --pct percent of the CUPTI average.  Copies are
compared per direction: count and bytes must be equal, the time is shown for
information only.

Exit status: 0 all rows pass, 1 some row fails (missing kernel or direction,
count/bytes mismatch, time outside tolerance, incomplete CUPTI summary),
2 usage or input error.  Standard library only.
"""

import argparse
import json
import re
import sys

DIRECTIONS = ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP")


def die(msg):
    print("kprof-compare: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_cupti(path):
    """Parse the tab-separated summary written by libkprof-cupti.so."""
    kernels, copies, memset, header = {}, {}, None, {}
    complete = False
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    with f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                if line.startswith("# kprof-cupti summary"):
                    for tok in line.split()[3:]:
                        if "=" in tok:
                            k, v = tok.split("=", 1)
                            header[k] = v
                elif line.strip() == "# end":
                    complete = True
                continue
            f_ = line.split("\t")
            try:
                if f_[0] == "kernel" and len(f_) >= 6:
                    name = "\t".join(f_[5:])
                    cnt, tot, mn, mx = (int(x) for x in f_[1:5])
                    k = kernels.setdefault(name, {"count": 0, "total_ns": 0,
                                                  "min_ns": None, "max_ns": 0})
                    k["count"] += cnt
                    k["total_ns"] += tot
                    k["min_ns"] = mn if k["min_ns"] is None else min(k["min_ns"], mn)
                    k["max_ns"] = max(k["max_ns"], mx)
                elif f_[0] == "kfirst" and len(f_) >= 3:
                    name = "\t".join(f_[2:])
                    kernels.setdefault(name, {"count": 0, "total_ns": 0, "min_ns": None,
                                              "max_ns": 0})["first_ns"] = int(f_[1])
                elif f_[0] == "memcpy" and len(f_) == 5:
                    c = copies.setdefault(f_[1], {"count": 0, "bytes": 0, "total_ns": 0})
                    c["count"] += int(f_[2])
                    c["bytes"] += int(f_[3])
                    c["total_ns"] += int(f_[4])
                elif f_[0] == "memset" and len(f_) == 4:
                    memset = {"count": int(f_[1]), "bytes": int(f_[2]),
                              "total_ns": int(f_[3])}
                else:
                    die("%s:%d: unrecognised line: %r" % (path, lineno, line))
            except ValueError:
                die("%s:%d: bad number in line: %r" % (path, lineno, line))
    return kernels, copies, memset, header, complete


def num(d, key, default=0):
    v = d.get(key, default)
    return v if isinstance(v, (int, float)) and v is not None else default


def parse_kprof(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        die("cannot read %s: %s" % (path, e))
    if not isinstance(doc, dict):
        die("%s: not a JSON object" % path)
    sv = doc.get("schema_version")
    if sv != 1:
        print("kprof-compare: warning: %s has schema_version %r, expected 1" % (path, sv),
              file=sys.stderr)
    kernels = []
    for k in doc.get("kernels") or []:
        calls = int(num(k, "calls"))
        timed = int(num(k, "timed", calls))
        total = num(k, "total_ns")
        kernels.append({
            "name": k.get("name") or "",
            "mangled": k.get("mangled") or "",
            "calls": calls,
            "timed": timed,
            "total_ns": total,
            "avg_ns": num(k, "avg_ns", (total / timed) if timed else 0),
            "first_ns": k.get("first_ns"),
            "graph_calls": int(num(k, "graph_calls")),
        })
    copies = {}
    for c in doc.get("copies") or []:
        d = c.get("direction") or "?"
        e = copies.setdefault(d, {"count": 0, "bytes": 0, "timed": 0, "total_ns": 0})
        e["count"] += int(num(c, "count"))
        e["bytes"] += int(num(c, "bytes"))
        e["timed"] += int(num(c, "timed", num(c, "count")))
        e["total_ns"] += num(c, "total_ns")
    return kernels, copies


def match_kernels(kp, cu):
    """Return rows (display, kprof-entry-or-None, cupti-name-or-None)."""
    merged = {}          # cupti key -> merged libkprof entry
    unmatched = []       # libkprof entries with no CUPTI counterpart
    for k in kp:
        key = None
        if k["mangled"] and k["mangled"] in cu:
            key = k["mangled"]
        elif k["name"] and k["name"] in cu:
            key = k["name"]
        if key is None:
            unmatched.append(k)
            continue
        m = merged.get(key)
        if m is None:
            merged[key] = dict(k)
        else:            # same kernel reported twice (e.g. per module): add up
            m["calls"] += k["calls"]
            m["timed"] += k["timed"]
            m["graph_calls"] = m.get("graph_calls", 0) + k.get("graph_calls", 0)
            m["total_ns"] += k["total_ns"]
    rows = []
    for key in cu:
        m = merged.get(key)
        rows.append((m["name"] if m and m["name"] else key, m, key))
    for k in unmatched:
        rows.append((k["name"] or k["mangled"], k, None))
    return rows


def fmt_us(ns):
    return "-" if ns is None else "%.3f" % (ns / 1000.0)


def main():
    ap = argparse.ArgumentParser(
        description="Compare a libkprof JSON report with a libkprof-cupti.so summary.")
    ap.add_argument("kprof_json", help="libkprof JSON report (schema_version 1)")
    ap.add_argument("cupti_summary", help="summary written by libkprof-cupti.so (CUPTI_TRACE_OUT)")
    ap.add_argument("--pct", type=float, default=5.0,
                    help="relative tolerance on the average duration, percent (default 5)")
    ap.add_argument("--us", type=float, default=5.0,
                    help="absolute tolerance on the average duration, microseconds (default 5)")
    ap.add_argument("--ignore", action="append", default=[], metavar="REGEX",
                    help="skip kernels whose mangled or display name matches REGEX (repeatable)")
    ap.add_argument("--no-copies", action="store_true", help="do not compare copies")
    ap.add_argument("--width", type=int, default=60, help="name column width (default 60)")
    a = ap.parse_args()

    try:
        ignores = [re.compile(r) for r in a.ignore]
    except re.error as e:
        die("bad --ignore regex: %s" % e)

    cu_k, cu_c, cu_ms, header, complete = parse_cupti(a.cupti_summary)
    kp_k, kp_c = parse_kprof(a.kprof_json)

    failures = 0
    if not complete:
        print("FAIL: %s has no '# end' line: the CUPTI summary is truncated" % a.cupti_summary)
        failures += 1
    if header.get("dropped", "0") != "0":
        print("FAIL: CUPTI dropped %s activity records: the ground truth is incomplete"
              % header["dropped"])
        failures += 1
    if header.get("final_flush") not in (None, "ok"):
        print("WARN: CUPTI's final flush failed (final_flush=%s)" % header["final_flush"])
    if header.get("untimed_kernels", "0") != "0":
        print("WARN: %s CUPTI kernel records had no timestamps: CUPTI averages are low"
              % header["untimed_kernels"])

    def ignored(*names):
        return any(r.search(n) for r in ignores for n in names if n)

    rows = match_kernels(kp_k, cu_k)
    w = max(8, a.width)
    print("%-4s %10s %10s %12s %12s %10s %8s  %s" % (
        "", "calls_kp", "calls_cu", "avg_us_kp", "avg_us_cu", "diff_us", "diff%", "kernel"))
    nrows = nskip = 0
    for disp, kp, cukey in sorted(rows, key=lambda r: -(cu_k[r[2]]["total_ns"] if r[2] else 0)):
        if ignored(disp, cukey, kp["mangled"] if kp else None):
            nskip += 1
            continue
        nrows += 1
        cu = cu_k.get(cukey) if cukey else None
        kp_avg = None
        # A kernel that ran inside graphs has its time in the graphs table (CUPTI's mean mixes both).
        in_graphs = kp is not None and kp.get("graph_calls", 0) > 0
        if kp is not None and kp["calls"] > 0 and kp["timed"] > 0 and not in_graphs:
            # libkprof reports the first launch apart (lazy module loading makes it slow); compare
            # the other launches on both sides when there are any.
            if kp.get("first_ns") is not None and kp["timed"] > 1:
                kp_avg = kp["avg_ns"]
            else:
                kp_avg = kp["total_ns"] / kp["timed"] if kp["timed"] > 0 else kp["avg_ns"]
        cu_avg = None
        if cu and cu["count"] > 0:
            if cu.get("first_ns") is not None and cu["count"] > 1 and kp is not None and kp["timed"] > 1:
                cu_avg = (cu["total_ns"] - cu["first_ns"]) / (cu["count"] - 1)
            else:
                cu_avg = cu["total_ns"] / cu["count"]
        why = []
        if kp is None:
            why.append("missing in libkprof")
        if cu is None:
            why.append("missing in CUPTI")
        if kp is not None and cu is not None and kp["calls"] != cu["count"]:
            why.append("calls differ")
        diff = pct = None
        if kp_avg is not None and cu_avg is not None:
            diff = kp_avg - cu_avg
            pct = 100.0 * diff / cu_avg if cu_avg > 0 else (0.0 if diff == 0 else float("inf"))
            if not (abs(diff) / 1000.0 <= a.us or abs(pct) <= a.pct):
                why.append("time")
        elif kp is not None and cu is not None and kp["calls"] > 0 and kp["timed"] == 0 and not in_graphs:
            why.append("untimed in libkprof")
        status = "FAIL" if why else "PASS"
        failures += bool(why)
        name = disp if len(disp) <= w else disp[:w - 3] + "..."
        print("%-4s %10s %10s %12s %12s %10s %8s  %s%s" % (
            status,
            kp["calls"] if kp else "-",
            cu["count"] if cu else "-",
            fmt_us(kp_avg), fmt_us(cu_avg),
            "-" if diff is None else "%+.3f" % (diff / 1000.0),
            "-" if pct is None else "%+.1f" % pct,
            name,
            "  [" + ", ".join(why) + "]" if why else ""))
    if nrows == 0:
        print("FAIL: no kernels to compare")
        failures += 1

    if not a.no_copies:
        print()
        print("%-4s %-5s %10s %10s %14s %14s %12s %12s %8s" % (
            "", "dir", "count_kp", "count_cu", "bytes_kp", "bytes_cu",
            "total_us_kp", "total_us_cu", "diff%"))
        dirs = [d for d in DIRECTIONS if d in kp_c or d in cu_c]
        dirs += sorted(d for d in set(kp_c) | set(cu_c) if d not in DIRECTIONS)
        for d in dirs:
            kc, cc = kp_c.get(d), cu_c.get(d)
            why = []
            if kc is None or kc["count"] == 0:
                why.append("missing in libkprof")
            if cc is None or cc["count"] == 0:
                why.append("missing in CUPTI")
            if kc and cc:
                if kc["count"] != cc["count"]:
                    why.append("count differs")
                if kc["bytes"] != cc["bytes"]:
                    why.append("bytes differ")
            if (kc is None or kc["count"] == 0) and (cc is None or cc["count"] == 0):
                continue
            pct = None
            if kc and cc and cc["total_ns"] > 0:
                pct = 100.0 * (kc["total_ns"] - cc["total_ns"]) / cc["total_ns"]
            status = "FAIL" if why else "PASS"
            failures += bool(why)
            print("%-4s %-5s %10s %10s %14s %14s %12s %12s %8s%s" % (
                status, d,
                kc["count"] if kc else "-", cc["count"] if cc else "-",
                kc["bytes"] if kc else "-", cc["bytes"] if cc else "-",
                fmt_us(kc["total_ns"]) if kc else "-", fmt_us(cc["total_ns"]) if cc else "-",
                "-" if pct is None else "%+.1f" % pct,
                "  [" + ", ".join(why) + "]" if why else ""))
        if cu_ms:
            print("info memset (CUPTI only): count %d, bytes %d, total %s us"
                  % (cu_ms["count"], cu_ms["bytes"], fmt_us(cu_ms["total_ns"])))

    print()
    print("%s: %d kernel row(s)%s, %d failure(s); tolerance %.3g us or %.3g %%" % (
        "FAIL" if failures else "PASS", nrows,
        " (%d ignored)" % nskip if nskip else "", failures, a.us, a.pct))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
