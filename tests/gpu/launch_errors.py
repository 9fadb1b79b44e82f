#!/usr/bin/env python3
"""launch_errors.py: each launch of a libkprof trace against CUPTI's record of the same launch in another run
of the same program, to see which launches carry a kernel's error.

    launch_errors.py REPORT.json TRACE.json CUPTI_KERNELS [--by class|read|kernel|shape|kernel-read]
                     [--class AFTER] [--read READ]

REPORT.json is the libkprof JSON report of the traced run (KPROF_FORMAT=json, KPROF_TRACE=TRACE.json: its
kernels give each demangled name's mangled one), CUPTI_KERNELS the per-launch file of a CUPTI run
(tests/gpu/libkprof-cupti.so with CUPTI_TRACE_KERNELS=path: start_ns, end_ns, stream, mangled name).
Both tools in one run will not do: CUPTI's activity tracing lengthens libkprof's pairs (the decode loop's
kernel total read 153 ms under it against 75 ms).  A deterministic program launches the same kernels in
the same order in every run, so a launch is matched by its kernel and its index among that kernel's
launches (in start order); a kernel launched a different number of times in the two runs is matched up to
the shorter count and named on stderr.

Prints, for each group (the trace's `after` class, with " idle_stop" for a stop stamped on an idle stream;
or how the pair was read, the trace's `read`: in full or with a learned offset; or the kernel; or the
kernel and its launch shape; or the kernel and how it was read), the launches, the sum and mean of libkprof's duration
less CUPTI's (us), its median, 10th and 90th percentiles, CUPTI's mean and what libkprof took off each
pair (taken_off_ns), biggest sum first; then the total.  --class keeps the launches of one `after` class, --read those read one way.
A trace's durations are as read at the time: KPROF_HOLD=N's settling of its offsets (kprof_offsets_settle)
moves the report's totals after them, so the total here is the trace's, not the report's.  Exit status 0,
or 2 on unreadable input.  docs/accuracy.md ("Parameter blocks") shows what it found in an eager decode
loop."""
import argparse
import collections
import json
import signal
import statistics
import sys


def load(report, trace, cupti):
    """The matched launches: dicts of cls, kernel, shape, d (libkprof - CUPTI, us), cupti (us), taken (us)."""
    mangled = {k["name"]: k["mangled"] for k in report.get("kernels", []) if "mangled" in k}
    events = sorted((e for e in trace.get("traceEvents", []) if e.get("ph") == "X" and e.get("cat") == "kernel"),
                    key=lambda e: e["ts"])
    records = collections.defaultdict(list)
    for line in cupti:
        if line.startswith("#") or not line.strip():
            continue
        start, end, _stream, name = line.rstrip("\n").split("\t", 3)
        records[name].append((int(start), int(end)))
    for v in records.values():
        v.sort()
    seen, rows, unmatched = collections.Counter(), [], collections.Counter()
    for e in events:
        m = mangled.get(e["name"], e["name"])
        i = seen[m]
        seen[m] += 1
        if i >= len(records.get(m, ())):
            unmatched[m] += 1
            continue
        start, end = records[m][i]
        a = e.get("args", {})
        cupti_us = (end - start) / 1e3
        rows.append({"cls": a.get("after", "?") + (" idle_stop" if a.get("stop_idle") else ""),
                     "kernel": e["name"], "shape": "%s %s" % (a.get("grid"), a.get("block")),
                     "read": a.get("read", "?"),
                     "d": e["dur"] - cupti_us, "cupti": cupti_us, "taken": a.get("taken_off_ns", 0) / 1e3})
    for m, n in unmatched.items():
        print("launch_errors: %d launch(es) of %s beyond CUPTI's %d" % (n, m, len(records.get(m, ()))),
              file=sys.stderr)
    return rows


def table(rows, key):
    groups = collections.defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    out = []
    for name, v in groups.items():
        d = sorted(r["d"] for r in v)
        n = len(d)
        out.append((sum(d), name, n, statistics.mean(d), d[n // 2], d[n // 10], d[n * 9 // 10],
                    statistics.mean(r["cupti"] for r in v), statistics.mean(r["taken"] for r in v)))
    out.sort(key=lambda t: -abs(t[0]))
    return out


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quietly, into head
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("report")
    p.add_argument("trace")
    p.add_argument("cupti")
    p.add_argument("--by", choices=("class", "read", "kernel", "shape", "kernel-read"), default="class")
    p.add_argument("--class", dest="cls", help="only the launches of this `after` class")
    p.add_argument("--read", help="only the launches read this way (the trace's `read`)")
    o = p.parse_args()
    try:
        with open(o.report) as f:
            report = json.load(f)
        with open(o.trace) as f:
            trace = json.load(f)
        with open(o.cupti) as f:
            rows = load(report, trace, f)
    except (OSError, ValueError) as err:
        print("launch_errors: %s" % err, file=sys.stderr)
        return 2
    if o.cls is not None:
        rows = [r for r in rows if r["cls"] == o.cls]
    if o.read is not None:
        rows = [r for r in rows if r["read"] == o.read]
    key = {"class": lambda r: r["cls"], "read": lambda r: r["read"], "kernel": lambda r: r["kernel"],
           "kernel-read": lambda r: r["kernel"] + " [" + r["read"] + "]",
           "shape": lambda r: r["kernel"] + " " + r["shape"]}[o.by]
    print("%7s %10s %8s %8s %8s %8s %8s %8s  %s" % ("launches", "sum_us", "mean", "median", "p10", "p90",
                                                   "cupti", "taken", o.by))
    for s, name, n, mean, med, p10, p90, cupti, taken in table(rows, key):
        print("%7d %10.1f %+8.3f %+8.3f %+8.3f %+8.3f %8.3f %8.3f  %s" % (n, s, mean, med, p10, p90, cupti, taken,
                                                                        name[:100]))
    print("all %d launches: libkprof - CUPTI %+.1f us" % (len(rows), sum(r["d"] for r in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
