#!/usr/bin/env python3
"""accuracy_compare.py: libkprof's kernel times against CUPTI's, over the programs of the GPU accuracy suite.

usage: accuracy_compare.py [--manifest RUNS.tsv]... [--run NAME PATTERN KPROF.json CUPTI.txt JOINT.json
                           JOINT.cupti]... [--label L] [--json OUT.json] [--details OUT.txt]

Each program comes with four files: the libkprof JSON report of a run under libkprof alone, the
libkprof-cupti.so summary of a run under CUPTI alone (these two give the times), and the libkprof report
and CUPTI summary of one run with both attached (that one gives the counts).  run-accuracy.sh writes a
manifest (tab-separated: name, pattern, the three exit statuses, the four files relative to the manifest,
the seconds of each run); --run gives one program on the command line (exit statuses taken as 0).

Checks, per program:
  program  |libkprof kernel-time sum - CUPTI kernel-time sum| <= max(5% of CUPTI's sum, 1 us x launches)
           libkprof's sum: each kernel's total_ns (its directly launched part when it also ran in graphs),
           plus every graphs[] row's total_ns (a graph's time stands for the kernels it ran)
  kernel   for kernels fully timed by libkprof (calls == timed > 0, not run in graphs):
           |total_ns / calls - CUPTI total / count| <= max(1 us, 2% of CUPTI's mean)
  paced    a kernel whose CUPTI mean differs between the CUPTI-alone and the joint run by more than the
           kernel tolerance and by more than a quarter runs as long as the host takes (XLA's
           DelayKernel): it is left out of both sums and of the kernel check, named in the program's
           notes and counted on the last line; a program with nothing else left fails
  counts   joint run: every kernel's calls == CUPTI's count (kernels whose count libkprof reports as
           unknown, e.g. in conditional graph bodies, are excepted and listed)
A program that exited non-zero in any run, or whose report or summary is missing or incomplete, fails.
Pass: >= 95% of programs and >= 90% of fully timed kernels within, all counts equal.
Exit status: 0 pass, 1 fail, 2 usage error.  Standard library only.
"""

import argparse
import json
import math
import os
import sys

OPTS = None  # the parsed command line (tolerances)


# ---- input ----

def parse_cupti(path):
    """libkprof-cupti.so summary -> (kernels {name: {count, total_ns, first_ns}}, problems [str])."""
    kernels, header, complete = {}, {}, False
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return None, ["no CUPTI summary (%s)" % e.strerror]
    for line in lines:
        if line.startswith("# kprof-cupti summary"):
            header = dict(t.split("=", 1) for t in line.split()[3:] if "=" in t)
        elif line.strip() == "# end":
            complete = True
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        try:
            if f[0] == "kernel" and len(f) >= 6:
                k = kernels.setdefault("\t".join(f[5:]), {"count": 0, "total_ns": 0, "first_ns": None})
                k["count"] += int(f[1])
                k["total_ns"] += int(f[2])
            elif f[0] == "kfirst" and len(f) >= 3:
                kernels.setdefault("\t".join(f[2:]), {"count": 0, "total_ns": 0, "first_ns": None})[
                    "first_ns"] = int(f[1])
        except ValueError:
            return None, ["bad line in the CUPTI summary: %r" % line[:80]]
    problems = []
    if not complete:
        problems.append("CUPTI summary truncated (no '# end')")
    if header.get("dropped", "0") != "0":
        problems.append("CUPTI dropped %s records" % header["dropped"])
    return (kernels if not problems else None), problems


def intval(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def parse_kprof(path):
    """libkprof JSON report -> ({kernels: [...], graphs: [...]}, problems)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        return None, ["no libkprof report (%s)" % e.strerror]
    except ValueError as e:
        return None, ["libkprof report is not JSON (%s)" % e]
    if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list):
        return None, ["libkprof report has no kernels list"]
    kernels = []
    for k in doc["kernels"]:
        calls = intval(k.get("calls"))
        kernels.append({
            "name": k.get("name") or "", "mangled": k.get("mangled") or "",
            "calls": calls,  # None: libkprof does not know (e.g. a conditional graph body)
            "timed": intval(k.get("timed")) or 0,
            "total_ns": intval(k.get("total_ns")) or 0,
            "measured_ns": intval(k.get("measured_ns")),
            "graph_calls": intval(k.get("graph_calls")),
            "in_graphs": k.get("in_graphs") is True,
            "unknown": calls is None or k.get("count_unknown") is True or k.get("in_conditional_bodies") is True,
            "first_ns": intval(k.get("first_ns")),
        })
    graphs = [{"name": g.get("name") or "", "calls": intval(g.get("calls")) or 0,
               "timed": intval(g.get("timed")) or 0, "total_ns": intval(g.get("total_ns")) or 0}
              for g in doc.get("graphs") or [] if isinstance(g, dict)]
    return {"kernels": kernels, "graphs": graphs}, []


def merge_by_key(kernels, cupti):
    """libkprof rows keyed like CUPTI's (mangled name, else display name); rows of one key added up."""
    out = {}
    for k in kernels:
        key = next((n for n in (k["mangled"], k["name"]) if n and cupti is not None and n in cupti),
                   k["mangled"] or k["name"])
        m = out.get(key)
        if m is None:
            out[key] = dict(k)
            continue
        for f in ("timed", "total_ns"):
            m[f] += k[f]
        for f in ("calls", "measured_ns", "graph_calls"):
            m[f] = None if m[f] is None or k[f] is None else m[f] + k[f]
        m["in_graphs"] |= k["in_graphs"]
        m["unknown"] |= k["unknown"]
    return out


# ---- checks ----

def ran_in_graphs(k):
    return bool(k["graph_calls"]) or k["in_graphs"]


def direct_ns(k, any_graphs):
    """The part of a kernel's time not already in a graph row."""
    measured = k["measured_ns"] if k["measured_ns"] is not None else k["total_ns"]
    if k["graph_calls"] is not None and k["calls"] is not None:
        direct = k["calls"] - k["graph_calls"]
        return measured * direct / k["timed"] if k["timed"] and direct > 0 else 0
    if k["unknown"] or k["in_graphs"] or (any_graphs and k["calls"] is not None and k["timed"] < k["calls"]):
        return measured  # untimed launches are taken to be graph launches: only the timed ones count
    return k["total_ns"]  # libkprof's estimate, extrapolated over calls it could not time


PACED_RATIO_LOW, PACED_RATIO_HIGH = 0.8, 1.25


def paced_kernels(cu, jcu, kpk):
    """Kernels paced by the host: {key: (CUPTI mean alone, CUPTI mean in the joint run)} for each kernel
    whose CUPTI mean moved between CUPTI's run alone and the joint run by more than the kernel tolerance
    and by more than a quarter (a kernel whose length merely wanders from run to run stays judged).
    Such a kernel runs as long as the host takes (XLA's DelayKernel spins on a word the host writes), so
    no other run's CUPTI figure is the length of libkprof's run of it.  Not a kernel also run in graphs
    (its time is in a graph row, which cannot be split)."""
    paced = {}
    for key, c in (cu or {}).items():
        j = (jcu or {}).get(key)
        if not c["count"] or not j or not j["count"] or (key in kpk and ran_in_graphs(kpk[key])):
            continue
        alone, joint = c["total_ns"] / c["count"], j["total_ns"] / j["count"]
        if (abs(alone - joint) > max(OPTS.kernel_us * 1000.0, OPTS.kernel_pct / 100.0 * alone)
                and not PACED_RATIO_LOW <= joint / alone <= PACED_RATIO_HIGH):
            paced[key] = (alone, joint)
    return paced


def pctile(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[max(0, math.ceil(p / 100.0 * len(xs)) - 1)]


def check_program(p):
    """Fills p (a manifest row) with the program, kernel and count results."""
    notes = p["notes"]
    for what in ("kprof", "cupti", "joint"):
        if p["rc"][what] != 0:
            notes.append("%s under %s" % ("exited %s" % p["rc"][what] if isinstance(p["rc"][what], int)
                                          else p["rc"][what], {"kprof": "libkprof", "cupti": "CUPTI",
                                                               "joint": "both"}[what]))
    cu, probs = parse_cupti(p["files"]["cupti"])
    notes += probs
    kp, probs = parse_kprof(p["files"]["kprof"])
    notes += probs
    jcu, probs = parse_cupti(p["files"]["joint_cupti"])
    notes += ["joint run: " + x for x in probs]
    jkp, probs = parse_kprof(p["files"]["joint_kprof"])
    notes += ["joint run: " + x for x in probs]

    # program: kernel-time sums, without the kernels paced by the host
    p.update(kprof_sum_ns=None, cupti_sum_ns=None, launches=None, err_ns=None, tol_ns=None, kernels=[],
             counts=[], graphs=kp["graphs"] if kp else [])
    kpk = merge_by_key(kp["kernels"], cu) if kp else {}
    paced = paced_kernels(cu, jcu, kpk)
    if cu is not None:
        p["cupti_sum_ns"] = sum(k["total_ns"] for key, k in cu.items() if key not in paced)
        p["launches"] = sum(k["count"] for key, k in cu.items() if key not in paced)
        p["tol_ns"] = max(OPTS.prog_pct / 100.0 * p["cupti_sum_ns"],
                          OPTS.prog_us_per_launch * 1000.0 * p["launches"])
    if kp is not None:
        any_graphs = bool(kp["graphs"])
        p["kprof_sum_ns"] = (sum(direct_ns(k, any_graphs) for key, k in kpk.items() if key not in paced)
                             + sum(g["total_ns"] for g in kp["graphs"]))
    for key, (alone, joint) in sorted(paced.items()):
        notes.append("paced by the host, left out: %s (CUPTI %.1f us alone, %.1f us with libkprof)"
                     % (short((kpk[key]["name"] if key in kpk else "") or key, 40), alone / 1e3, joint / 1e3))
    if cu is not None and kp is not None:
        p["err_ns"] = p["kprof_sum_ns"] - p["cupti_sum_ns"]
    p["sum_ok"] = p["err_ns"] is not None and abs(p["err_ns"]) <= p["tol_ns"]
    p["paced"] = len(paced)
    if paced and not p["launches"]:
        p["sum_ok"] = False
        notes.append("nothing left to judge")

    # kernels: the mean of each fully timed kernel; the same in the joint run for information (one run:
    # no run-to-run difference, but CUPTI's own overhead)
    jk = merge_by_key(jkp["kernels"], jcu) if jkp is not None and jcu is not None else {}
    for key, k in sorted(kpk.items(), key=lambda kv: -kv[1]["total_ns"]):
        c = cu.get(key) if cu else None
        row = {"key": key, "name": k["name"] or key, "calls": k["calls"], "timed": k["timed"],
               "unknown": k["unknown"], "graph_calls": k["graph_calls"], "cupti_count": c["count"] if c else None,
               "fully_timed": bool(k["calls"]) and k["timed"] == k["calls"] and not ran_in_graphs(k)
               and not k["unknown"],
               "kprof_mean_ns": k["total_ns"] / k["calls"] if k["calls"] else None,
               "cupti_mean_ns": c["total_ns"] / c["count"] if c and c["count"] else None,
               "kprof_first_ns": k["first_ns"], "cupti_first_ns": c["first_ns"] if c else None,
               "err_ns": None, "tol_ns": None, "ok": None, "joint_err_ns": None, "paced": key in paced}
        if row["paced"]:
            row["fully_timed"] = False
        j, jc = jk.get(key), (jcu or {}).get(key)
        if j and jc and jc["count"] and j["calls"] and j["timed"] == j["calls"] and not ran_in_graphs(j):
            row["joint_err_ns"] = j["total_ns"] / j["calls"] - jc["total_ns"] / jc["count"]
        if row["fully_timed"]:
            if row["cupti_mean_ns"] is None:
                row["ok"] = False
                row["why"] = "not in the CUPTI run" if cu is not None else "no CUPTI summary"
            else:
                row["err_ns"] = row["kprof_mean_ns"] - row["cupti_mean_ns"]
                row["tol_ns"] = max(OPTS.kernel_us * 1000.0, OPTS.kernel_pct / 100.0 * row["cupti_mean_ns"])
                row["ok"] = abs(row["err_ns"]) <= row["tol_ns"]
        p["kernels"].append(row)
    if cu is not None and kp is not None:
        drift = sum(1 for r in p["kernels"] if r["calls"] is not None and r["cupti_count"] is not None
                    and not r["unknown"] and r["calls"] != r["cupti_count"])
        drift += sum(1 for key in cu if key not in kpk)
        if drift:
            notes.append("%d kernel(s) launched differently in the libkprof and CUPTI runs" % drift)

    # counts: the joint run
    if jkp is None or jcu is None:
        p["counts"].append({"key": "(joint run)", "name": "(joint run: no usable report or summary)",
                            "kprof": None, "cupti": None, "equal": False, "unknown": False})
    else:
        for key in sorted(set(jk) | set(jcu)):
            k, c = jk.get(key), jcu.get(key)
            unknown = bool(k and k["unknown"])
            row = {"key": key, "name": (k["name"] if k and k["name"] else key),
                   "kprof": k["calls"] if k else 0, "cupti": c["count"] if c else 0, "unknown": unknown}
            row["equal"] = None if unknown else row["kprof"] == row["cupti"]
            p["counts"].append(row)
    if any(p["rc"][w] != 0 for w in p["rc"]) or (kp is None) or (cu is None):
        p["sum_ok"] = False
    if any(p["rc"][w] != 0 for w in p["rc"]):  # "no app disturbed": a failing run fails the counts too
        p["counts"].append({"key": "(exit status)", "name": "(a run exited non-zero)", "kprof": None,
                            "cupti": None, "equal": False, "unknown": False})
    return p


# ---- output ----

def us(ns, fmt="%.3f"):
    return "-" if ns is None else fmt % (ns / 1000.0)


def num3(v):
    return "-" if v is None else "%.3f" % v


def dash(v):
    return "-" if v is None else v


def short(s, w):
    return s if len(s) <= w else s[:w - 3] + "..."


def summarize(progs):
    """Per pattern and overall: programs, kernels and counts within, kernel error median and p90."""
    groups = {}
    for p in progs:
        for g in (p["pattern"], "all"):
            s = groups.setdefault(g, {"programs": 0, "programs_ok": 0, "kernels": 0, "kernels_ok": 0,
                                      "counts": 0, "counts_equal": 0, "counts_unknown": 0, "paced": 0,
                                      "errs": [], "jerrs": []})
            s["programs"] += 1
            s["programs_ok"] += bool(p["sum_ok"])
            s["paced"] += p.get("paced", 0)
            ks = [k for k in p["kernels"] if k["fully_timed"]]
            s["kernels"] += len(ks)
            s["kernels_ok"] += sum(1 for k in ks if k["ok"])
            s["errs"] += [abs(k["err_ns"]) / 1000.0 for k in ks if k["err_ns"] is not None]
            s["jerrs"] += [abs(k["joint_err_ns"]) / 1000.0 for k in ks if k["joint_err_ns"] is not None]
            s["counts"] += sum(1 for c in p["counts"] if not c["unknown"])
            s["counts_equal"] += sum(1 for c in p["counts"] if c["equal"])
            s["counts_unknown"] += sum(1 for c in p["counts"] if c["unknown"])
    for s in groups.values():
        errs, jerrs = s.pop("errs"), s.pop("jerrs")
        s["median_err_us"], s["p90_err_us"] = pctile(errs, 50), pctile(errs, 90)
        s["joint_median_err_us"] = pctile(jerrs, 50)
    return groups


def first_rows(rows):
    """The first --max-lines rows of each program, --max-total in all."""
    shown, out = {}, []
    for p, r in rows:
        shown[p["name"]] = shown.get(p["name"], 0) + 1
        if shown[p["name"]] <= OPTS.max_lines and len(out) < OPTS.max_total:
            out.append((p, r))
    return out


def report(progs, label, out, details):
    w = out.write
    w("== accuracy%s: libkprof vs CUPTI, %d programs; program tolerance max(%g%%, %g us x launches), "
      "kernel tolerance max(%g us, %g%%)\n" % (" [%s]" % label if label else "", len(progs), OPTS.prog_pct,
                                               OPTS.prog_us_per_launch, OPTS.kernel_us, OPTS.kernel_pct))
    w("%-28s %-11s %8s %12s %12s %10s %7s %9s %-4s %7s %7s  %s\n" % (
        "program", "pattern", "launches", "kprof_us", "cupti_us", "err_us", "err%", "tol_us", "sum", "kernels",
        "counts", "notes"))
    for p in progs:
        ks = [k for k in p["kernels"] if k["fully_timed"]]
        cs = [c for c in p["counts"] if not c["unknown"]]
        pct = (100.0 * p["err_ns"] / p["cupti_sum_ns"] if p["err_ns"] is not None and p["cupti_sum_ns"]
               else None)
        unk = sum(1 for c in p["counts"] if c["unknown"])
        notes = p["notes"] + (["%d count(s) unknown" % unk] if unk else [])
        w("%-28s %-11s %8s %12s %12s %10s %7s %9s %-4s %7s %7s  %s\n" % (
            short(p["name"], 28), short(p["pattern"], 11), "-" if p["launches"] is None else p["launches"],
            us(p["kprof_sum_ns"], "%.1f"), us(p["cupti_sum_ns"], "%.1f"), us(p["err_ns"], "%+.1f"),
            "-" if pct is None else "%+.2f" % pct, us(p["tol_ns"], "%.1f"), "ok" if p["sum_ok"] else "FAIL",
            "%d/%d" % (sum(1 for k in ks if k["ok"]), len(ks)),
            "%d/%d" % (sum(1 for c in cs if c["equal"]), len(cs)), "; ".join(notes)))

    bad_k = [(p, k) for p in progs for k in p["kernels"] if k["fully_timed"] and not k["ok"]]
    bad_c = [(p, c) for p in progs for c in p["counts"] if c["equal"] is False]
    if bad_k:
        w("kernels outside the tolerance: %d (mean us; the first %d per program, %d in all, here)\n"
          % (len(bad_k), OPTS.max_lines, OPTS.max_total))
        for p, k in first_rows(bad_k):
            w("  %-22s calls %6s kprof %10s cupti %10s err %9s tol %7s  %s%s\n" % (
                short(p["name"], 22), k["calls"], us(k["kprof_mean_ns"]), us(k["cupti_mean_ns"]),
                us(k["err_ns"], "%+.3f"), us(k["tol_ns"]), short(k["name"], 50),
                "  [%s]" % k["why"] if k.get("why") else ""))
    if bad_c:
        w("counts that differ in the joint run: %d (the first %d per program, %d in all, here)\n"
          % (len(bad_c), OPTS.max_lines, OPTS.max_total))
        for p, c in first_rows(bad_c):
            w("  %-22s kprof %8s cupti %8s  %s\n" % (short(p["name"], 22), dash(c["kprof"]), dash(c["cupti"]),
                                                     short(c["name"], 70)))

    groups = summarize(progs)
    w("%-14s %10s %10s %10s %12s %12s %12s\n" % ("pattern", "programs", "kernels", "counts", "med_err_us",
                                                "p90_err_us", "joint_med_us"))
    for g in sorted(groups, key=lambda g: (g == "all", g)):
        s = groups[g]
        w("%-14s %10s %10s %10s %12s %12s %12s\n" % (
            g, "%d/%d" % (s["programs_ok"], s["programs"]), "%d/%d" % (s["kernels_ok"], s["kernels"]),
            "%d/%d" % (s["counts_equal"], s["counts"]), num3(s["median_err_us"]), num3(s["p90_err_us"]),
            num3(s["joint_median_err_us"])))
    a = groups.get("all") or {"programs": 0, "programs_ok": 0, "kernels": 0, "kernels_ok": 0, "counts": 0,
                              "counts_equal": 0}
    ok = (a["programs"] > 0 and a["programs_ok"] >= OPTS.need_programs / 100.0 * a["programs"]
          and a["kernels_ok"] >= OPTS.need_kernels / 100.0 * a["kernels"] and a["counts_equal"] == a["counts"])
    w("accuracy: programs %d/%d within, kernels %d/%d within, counts %d/%d equal%s: %s\n" % (
        a["programs_ok"], a["programs"], a["kernels_ok"], a["kernels"], a["counts_equal"], a["counts"],
        ", %d kernel(s) paced by the host left out" % a["paced"] if a.get("paced") else "",
        "PASS" if ok else "FAIL"))

    if details:
        d = details.write
        for p in progs:
            d("\n== %s [%s]: exit status libkprof %s, CUPTI %s, joint %s; seconds %s\n" % (
                p["name"], p["pattern"], p["rc"]["kprof"], p["rc"]["cupti"], p["rc"]["joint"],
                " ".join(p.get("seconds") or []) or "-"))
            d("files: %s\n" % " ".join(p["files"][f] for f in ("kprof", "cupti", "joint_kprof", "joint_cupti")))
            d("sum: kprof %s us, cupti %s us, err %s us, tol %s us, launches %s: %s%s\n" % (
                us(p["kprof_sum_ns"]), us(p["cupti_sum_ns"]), us(p["err_ns"], "%+.3f"), us(p["tol_ns"]),
                p["launches"], "ok" if p["sum_ok"] else "FAIL",
                "; " + "; ".join(p["notes"]) if p["notes"] else ""))
            d("%-4s %8s %8s %8s %8s %12s %12s %10s %8s %10s %12s %12s  %s\n" % (
                "", "calls", "timed", "graph", "cupti", "kprof_us", "cupti_us", "err_us", "tol_us", "joint_err",
                "kp_first", "cu_first", "kernel (libkprof run; mean = total / calls)"))
            for k in p["kernels"]:
                d("%-4s %8s %8s %8s %8s %12s %12s %10s %8s %10s %12s %12s  %s\n" % (
                    "pace" if k["paced"] else "-" if k["ok"] is None else "ok" if k["ok"] else "FAIL",
                    dash(k["calls"]), k["timed"],
                    dash(k["graph_calls"]), dash(k["cupti_count"]), us(k["kprof_mean_ns"]),
                    us(k["cupti_mean_ns"]), us(k["err_ns"], "%+.3f"), us(k["tol_ns"]),
                    us(k["joint_err_ns"], "%+.3f"), us(k["kprof_first_ns"]), us(k["cupti_first_ns"]), k["name"]))
            for g in p["graphs"]:
                d("graph %s: calls %d timed %d total %s us\n" % (g["name"], g["calls"], g["timed"], us(g["total_ns"])))
            d("counts (joint run):\n")
            for c in p["counts"]:
                d("  %-7s %8s %8s  %s\n" % ("unknown" if c["unknown"] else "equal" if c["equal"] else "DIFFER",
                                           dash(c["kprof"]), dash(c["cupti"]), c["name"]))
    return ok, groups, a


# ---- main ----

def load_manifest(path):
    base = os.path.dirname(os.path.abspath(path))
    progs, label = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# label="):
                label = line.split("=", 1)[1].strip()
            if not line.strip() or line.startswith("#"):
                continue
            t = line.split("\t")
            if len(t) < 9:
                raise ValueError("%s: expected 9 or more tab-separated columns: %r" % (path, line))

            def rc(v):
                try:
                    return int(v)
                except ValueError:
                    return v  # e.g. "missing"
            progs.append(new_prog(t[0], t[1], [os.path.join(base, x) for x in t[5:9]],
                                  {"kprof": rc(t[2]), "cupti": rc(t[3]), "joint": rc(t[4])}, t[9:12]))
    return progs, label


def new_prog(name, pattern, files, rc, seconds=None):
    return {"name": name, "pattern": pattern, "rc": rc, "seconds": seconds or [], "notes": [],
            "files": dict(zip(("kprof", "cupti", "joint_kprof", "joint_cupti"), files))}


def main():
    global OPTS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("--manifest", action="append", default=[], help="runs manifest written by run-accuracy.sh")
    ap.add_argument("--run", nargs=6, action="append", default=[],
                    metavar=("NAME", "PATTERN", "KPROF_JSON", "CUPTI", "JOINT_JSON", "JOINT_CUPTI"))
    ap.add_argument("--label", help="name of the libkprof build, shown in the output")
    ap.add_argument("--json", help="write the machine-readable summary here")
    ap.add_argument("--details", help="write every kernel's and count's row here")
    ap.add_argument("--max-lines", type=int, default=2, help="failing rows shown per program (default 2)")
    ap.add_argument("--max-total", type=int, default=12, help="failing rows shown in all (default 12)")
    ap.add_argument("--prog-pct", type=float, default=5.0)
    ap.add_argument("--prog-us-per-launch", type=float, default=1.0)
    ap.add_argument("--kernel-us", type=float, default=1.0)
    ap.add_argument("--kernel-pct", type=float, default=2.0)
    ap.add_argument("--need-programs", type=float, default=95.0, help="percent of programs within (95)")
    ap.add_argument("--need-kernels", type=float, default=90.0, help="percent of kernels within (90)")
    OPTS = ap.parse_args()
    progs, label = [], OPTS.label
    try:
        for m in OPTS.manifest:
            ps, lab = load_manifest(m)
            progs += ps
            label = label or lab
    except (OSError, ValueError) as e:
        print("accuracy_compare: %s" % e, file=sys.stderr)
        return 2
    progs += [new_prog(r[0], r[1], r[2:6], {"kprof": 0, "cupti": 0, "joint": 0}) for r in OPTS.run]
    if not progs:
        ap.print_usage(sys.stderr)
        print("accuracy_compare: no programs (--manifest or --run)", file=sys.stderr)
        return 2
    for p in progs:
        check_program(p)
    details = open(OPTS.details, "w", encoding="utf-8") if OPTS.details else None
    ok, groups, total = report(progs, label, sys.stdout, details)
    if details:
        details.close()
    if OPTS.json:
        with open(OPTS.json, "w", encoding="utf-8") as f:
            json.dump({"label": label, "pass": ok,
                       "tolerances": {k: getattr(OPTS, k) for k in ("prog_pct", "prog_us_per_launch", "kernel_us",
                                                                   "kernel_pct", "need_programs", "need_kernels")},
                       "totals": total, "patterns": groups, "programs": progs}, f, indent=1)
            f.write("\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
