#!/usr/bin/env python3
"""interval_coverage.py: KPROF_SAMPLE=auto's estimated kernel totals against every-launch totals.

usage: interval_coverage.py AUTO_RUNS.tsv EVERY_RUNS.tsv [--details]
       interval_coverage.py --check CHECK_RUNS.tsv [--details]

Both manifests come from tests/gpu/run-accuracy.sh, run over the same programs into one OUTDIR: one with
KPROF_SAMPLE=auto in the environment (LABEL=auto, say), one with every launch timed (the default).  For
each program the libkprof-alone JSON reports are compared kernel by kernel (mangled name; rows of one name
summed): a kernel that auto left partly untimed (timed < calls), and that the every-launch run timed in
full (not in graphs), has an estimated total and a 95% interval (total_ns +- total_ci95_ns), which should
hold the every-launch run's total, and is also set against CUPTI's total from the CUPTI-alone run of the
same manifest.  The runs are different processes, so a total carries that program's run-to-run spread
too; and a launch auto times is timed as an every-launch run times it only when the launch before it was
timed too (else it has no stop to share as its start).

Prints, per program, the kernels with an interval, how many hold the other run's total, and for kernels of
100 or more timed launches the half-width as a share of the total; then the overall lines the issue asks
for: the share of totals inside (target 95%) and of 100+-timed kernels whose interval is within 5% of the
total.  --details: every kernel.  Standard library only.  Exit status 0 (a measurement, not a check).

--check: one manifest of a run with KPROF_AUTO_CHECK=1 in the environment (LABEL=check, say): every
launch timed, and auto's estimate from the launches it would have timed set beside each measured total
in the report's auto_check object; the same lines from that, within one process (no run-to-run spread,
every launch read the every-launch way), for the kernels auto would have left partly untimed.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy_compare import load_manifest as accuracy_manifest, parse_cupti  # noqa: E402


def load_manifest(path):
    """(program -> (libkprof-alone JSON path, CUPTI-alone summary path)) from a run-accuracy.sh manifest."""
    progs, _ = accuracy_manifest(path)
    return {p["name"]: (p["files"]["kprof"], p["files"]["cupti"]) for p in progs}


def read_report(path):
    """The JSON report at path as a dict; {} when unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def summed(rows, fields, ci_key):
    """mangled name -> dict of `fields` (output name -> row key) summed over rows of one name, and ci, the
    half-widths (row key ci_key) added as variances (rows apart, KPROF_GROUP=shape, are independent)."""
    out = {}
    for k in rows:
        s = out.setdefault(k.get("mangled") or k.get("name"), dict({f: 0 for f in fields}, var=0.0))
        for f, key in fields.items():
            s[f] += k.get(key, 0)
        s["var"] += (k.get(ci_key, 0) / 1.96) ** 2
    for s in out.values():
        s["ci"] = 1.96 * s.pop("var") ** 0.5
    return out


def kernels(path):
    """mangled name -> dict(calls, timed, total, ci) from a JSON report's kernels; {} when unreadable."""
    return summed(read_report(path).get("kernels", []),
                  {"calls": "calls", "timed": "timed", "total": "total_ns"}, "total_ci95_ns")


def checked(path):
    """mangled name -> dict(calls, timed, total, est, ci) from a JSON report's auto_check; {} when none."""
    return summed((read_report(path).get("auto_check") or {}).get("kernels", []),
                  {"calls": "calls", "timed": "auto_timed", "total": "total_ns", "est": "auto_total_ns"},
                  "auto_ci95_ns")


def main_check(path, details):
    """--check: auto's estimates against the totals of the same runs."""
    runs = load_manifest(path)
    n = inside = big = big_narrow = 0
    print("%-28s %8s %8s %10s" % ("program", "kernels", "inside", "100+ timed, half-width <= 5%"))
    for prog in sorted(runs):
        pn = pin = pbig = pnarrow = 0
        for key, s in sorted(checked(runs[prog][0]).items()):
            ok = abs(s["est"] - s["total"]) <= s["ci"] + 0.5
            share = s["ci"] / s["est"] if s["est"] else float("inf")
            pn += 1
            pin += ok
            if s["timed"] >= 100:
                pbig += 1
                pnarrow += share <= 0.05
            if details:
                print("  %-50.50s calls %6d auto timed %5d est %11.0f +- %9.0f (%4.1f%%) total %11.0f %s" %
                      (key, s["calls"], s["timed"], s["est"], s["ci"], 100 * share, s["total"],
                       "inside" if ok else "OUTSIDE (%+.2f%%)" % (100 * (s["est"] - s["total"]) / s["total"] if s["total"] else 0)))
        if pn:
            print("%-28s %8d %8d %10s" % (prog, pn, pin, "%d/%d" % (pnarrow, pbig) if pbig else "-"))
        n += pn
        inside += pin
        big += pbig
        big_narrow += pnarrow
    print("kernels auto would estimate: %d; measured total inside auto's interval: %d (%.1f%%, target 95%%)" %
          (n, inside, 100.0 * inside / n if n else 0.0))
    print("kernels with 100+ launches auto would time: %d; interval within 5%% of the estimate: %d (%.1f%%)" %
          (big, big_narrow, 100.0 * big_narrow / big if big else 0.0))
    return 0


def main(argv):
    if "--check" in argv:
        args = [a for a in argv[1:] if not a.startswith("--")]
        if len(args) != 1:
            sys.stderr.write(__doc__)
            return 2
        return main_check(args[0], "--details" in argv)
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    details = "--details" in argv
    auto, every = load_manifest(args[0]), load_manifest(args[1])
    n = inside = cn = cinside = big = big_narrow = 0
    print("%-28s %8s %8s %14s %10s" % ("program", "kernels", "inside", "CUPTI's inside", "100+ timed, half-width <= 5%"))
    for prog in sorted(auto):
        if prog not in every:
            continue
        a, e = kernels(auto[prog][0]), kernels(every[prog][0])
        cupti, _ = parse_cupti(auto[prog][1])
        pn = pin = pcn = pcin = pbig = pnarrow = 0
        for key, s in sorted(a.items()):
            full = key in e and e[key]["timed"] == e[key]["calls"] > 0
            if not full or s["timed"] >= s["calls"] or s["timed"] == 0:
                continue
            ref = e[key]["total"]
            ok = abs(s["total"] - ref) <= s["ci"]
            pn += 1
            pin += ok
            cu = cupti.get(key) if cupti else None
            cok = None
            if cu and cu["count"] == s["calls"]:
                cok = abs(s["total"] - cu["total_ns"]) <= s["ci"]
                pcn += 1
                pcin += cok
            share = s["ci"] / s["total"] if s["total"] else float("inf")
            if s["timed"] >= 100:
                pbig += 1
                pnarrow += share <= 0.05
            if details:
                print("  %-50.50s calls %5d timed %5d est %11.0f +- %9.0f (%4.1f%%) every %11.0f %-17s CUPTI %s" %
                      (key, s["calls"], s["timed"], s["total"], s["ci"], 100 * share, ref,
                       "inside" if ok else "OUTSIDE (%+.1f%%)" % (100 * (s["total"] - ref) / ref if ref else 0),
                       "-" if cok is None else "%11d %s" % (cu["total_ns"], "inside" if cok else "OUTSIDE (%+.1f%%)" %
                                                             (100 * (s["total"] - cu["total_ns"]) / cu["total_ns"]))))
        if pn:
            print("%-28s %8d %8d %14s %10s" % (prog, pn, pin, "%d/%d" % (pcin, pcn), "%d/%d" % (pnarrow, pbig) if pbig else "-"))
        n += pn
        inside += pin
        cn += pcn
        cinside += pcin
        big += pbig
        big_narrow += pnarrow
    print("kernels with an interval: %d; every-launch total inside: %d (%.1f%%, target 95%%); CUPTI's total inside: %d of %d" %
          (n, inside, 100.0 * inside / n if n else 0.0, cinside, cn))
    print("kernels with 100+ timed launches: %d; interval within 5%% of the total: %d (%.1f%%)" %
          (big, big_narrow, 100.0 * big_narrow / big if big else 0.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
