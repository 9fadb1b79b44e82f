#!/usr/bin/env python3
"""compare_selftest.py: no-GPU test of tests/gpu/accuracy_compare.py on made-up libkprof reports and CUPTI
summaries (written to a temporary folder): sums, per-kernel means, graphs, unknown counts, failed runs,
truncated summaries, the manifest and --run inputs, the JSON summary and the exit status."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "accuracy_compare.py")
failures = 0


def kernel(mangled, calls, timed, total, **extra):
    k = {"name": mangled + "()", "mangled": mangled, "calls": calls, "timed": timed,
         "total_ns": total if timed >= (calls or 0) or not timed else round(total * calls / timed),
         "measured_ns": total, "first_ns": total // max(timed, 1), "avg_ns": total // max(timed, 1),
         "future_field": [1, 2]}
    k.update(extra)
    return k


def report(kernels, graphs=()):
    return {"schema_version": 1, "tool": "libkprof", "kernels": kernels, "captured": [], "copies": [],
            "graphs": [{"name": "graph %d (%d kernel nodes)" % (i, n), "mangled": "", "calls": c, "timed": c,
                        "total_ns": t} for i, (n, c, t) in enumerate(graphs)]}


def cupti(kernels, end=True, dropped=0):
    s = "# kprof-cupti summary v1 pid=1 dropped=%d untimed_kernels=0 final_flush=ok\n" % dropped
    s += "".join("kernel\t%d\t%d\t0\t0\t%s\nkfirst\t%d\t%s\n" % (c, t, n, t // max(c, 1), n)
                 for n, c, t in kernels)
    return s + ("# end\n" if end else "")


def write(d, name, obj):
    with open(os.path.join(d, name), "w") as f:
        f.write(json.dumps(obj) if isinstance(obj, dict) else obj)
    return name


def run(args, cwd):
    r = subprocess.run([sys.executable, COMPARE] + args, cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(what, cond, out=""):
    global failures
    print("%s: %s" % ("PASS" if cond else "FAIL", what))
    if not cond:
        failures += 1
        print(out)


def main():
    d = tempfile.mkdtemp(prefix="acc-selftest-")
    rows = []

    def prog(name, pattern, kp, cu, jkp=None, jcu=None, rc=(0, 0, 0)):
        files = [write(d, name + ".json", kp), write(d, name + ".cupti", cu),
                 write(d, name + ".joint.json", jkp if jkp is not None else kp),
                 write(d, name + ".joint.cupti", jcu if jcu is not None else cu)]
        rows.append("\t".join([name, pattern] + [str(x) for x in rc] + files + ["1.0", "1.1", "1.2"]))

    # 1. good: two kernels within 1 us / 2 %
    prog("good", "basic", report([kernel("_Z1av", 10, 10, 100500), kernel("_Z1bv", 4, 4, 4_000_000)]),
         cupti([("_Z1av", 10, 100000), ("_Z1bv", 4, 4_040_000)]))
    # 2. a kernel 3 us off (mean), and the joint run's count differs
    prog("slow", "basic", report([kernel("_Z1cv", 100, 100, 500000), kernel("_Z1dv", 2, 2, 2000)]),
         cupti([("_Z1cv", 100, 200000), ("_Z1dv", 2, 2000)]),
         jkp=report([kernel("_Z1cv", 99, 99, 500000), kernel("_Z1dv", 2, 2, 2000)]))
    # 3. graph: _Z1ev 20 direct + 30 in graph replays (libkprof: calls 50, timed 20, total extrapolated);
    #    the graph row stands for its kernels; no graph_calls field (older libkprof)
    prog("graph", "graphs", report([kernel("_Z1ev", 50, 20, 200000), kernel("_Z1fv", 10, 0, 0)],
                                   graphs=[(4, 10, 560000)]),
         cupti([("_Z1ev", 50, 500000), ("_Z1fv", 10, 250000)]))
    # 4. conditional body: count unknown (calls null) and one with count_unknown; graph_calls present
    prog("cond", "graphs", report([kernel("_Z1gv", None, 0, 0), kernel("_Z1hv", 8, 0, 0, count_unknown=True),
                                   kernel("_Z1iv", 18, 10, 100000, graph_calls=8)], graphs=[(3, 8, 330000)]),
         cupti([("_Z1gv", 15, 150000), ("_Z1hv", 4, 80000), ("_Z1iv", 18, 180000)]))
    # 5. failed under libkprof, joint report missing
    prog("crash", "basic", report([kernel("_Z1jv", 1, 1, 5000)]), cupti([("_Z1jv", 1, 5000)]), rc=(139, 0, 139))
    os.remove(os.path.join(d, "crash.joint.json"))
    # 6. truncated CUPTI summary (no '# end')
    prog("trunc", "basic", report([kernel("_Z1kv", 3, 3, 30000)]), cupti([("_Z1kv", 3, 30000)], end=False))
    # 7. a kernel CUPTI saw but libkprof did not, in the joint run (count 0 vs 5); extern "C" name
    prog("missing", "basic", report([kernel("plain_c", 5, 5, 50000)]), cupti([("plain_c", 5, 50000)]),
         jkp=report([]))
    # 8. a kernel paced by the host (CUPTI: 30 us alone, 55 us in the joint run; libkprof alone 120 us):
    #    left out of both sums and of the kernel check; without that rule the sum would be 900 us over
    prog("paced", "python", report([kernel("_Z5delayv", 10, 10, 1_200_000), kernel("_Z4redzv", 10, 10, 250_500)]),
         cupti([("_Z5delayv", 10, 300_000), ("_Z4redzv", 10, 250_000)]),
         jcu=cupti([("_Z5delayv", 10, 550_000), ("_Z4redzv", 10, 250_100)]))
    # 9. a kernel whose CUPTI mean wanders by 3% between the runs (100 and 103 us) is no paced kernel:
    #    libkprof's 200 us still fails it (a breaker helper: any shift beyond the kernel tolerance hid it)
    prog("wander", "basic", report([kernel("_Z3bigv", 10, 10, 2_000_000)]), cupti([("_Z3bigv", 10, 1_000_000)]),
         jcu=cupti([("_Z3bigv", 10, 1_030_000)]))
    # 10. a program whose only kernel is paced has nothing left to judge: it fails
    prog("onlypaced", "basic", report([kernel("_Z5delayv", 10, 10, 1_200_000)]), cupti([("_Z5delayv", 10, 300_000)]),
         jcu=cupti([("_Z5delayv", 10, 550_000)]))
    with open(os.path.join(d, "runs.tsv"), "w") as f:
        f.write("# label=synthetic\n# comment line\n" + "\n".join(rows) + "\n")

    rc, out = run(["--manifest", "runs.tsv", "--json", "s.json", "--details", "d.txt"], d)
    s = json.load(open(os.path.join(d, "s.json")))
    p = {x["name"]: x for x in s["programs"]}
    expect("manifest: exit status 1 (failures)", rc == 1, out)
    expect("final line", "accuracy: programs" in out.splitlines()[-1] and out.rstrip().endswith("FAIL"), out)
    expect("label from the manifest", s["label"] == "synthetic" and "[synthetic]" in out, out)
    expect("good: sum and kernels ok", p["good"]["sum_ok"] and all(k["ok"] for k in p["good"]["kernels"]), out)
    expect("good: counts equal", all(c["equal"] for c in p["good"]["counts"]), out)
    ks = {k["key"]: k for k in p["slow"]["kernels"]}
    expect("slow: 3 us kernel fails, 1 us kernel ok", ks["_Z1cv"]["ok"] is False and ks["_Z1dv"]["ok"], out)
    expect("slow: sum 300 us off of 202 us fails", not p["slow"]["sum_ok"], out)
    expect("slow: same-run error from the joint run (5050.5 - 2000 ns)",
           abs(ks["_Z1cv"]["joint_err_ns"] - 3050.505) < 0.01, ks["_Z1cv"])
    expect("slow: joint count 99 vs 100 differs",
           [c["key"] for c in p["slow"]["counts"] if c["equal"] is False] == ["_Z1cv"], out)
    g = p["graph"]
    expect("graph: sum = measured direct part + graph rows (200 + 560 us)", g["kprof_sum_ns"] == 760000, g)
    expect("graph: sum within 1 us x 60 launches of 750 us", g["sum_ok"], out)
    expect("graph: kernels not fully timed", not any(k["fully_timed"] for k in g["kernels"]), g)
    expect("graph: counts equal", all(c["equal"] for c in g["counts"]), g)
    c = p["cond"]
    expect("cond: unknown counts excepted", sorted(x["key"] for x in c["counts"] if x["unknown"]) == ["_Z1gv", "_Z1hv"]
           and all(x["equal"] for x in c["counts"] if not x["unknown"]), c["counts"])
    expect("cond: graph_calls gives the direct part (10 of 10 timed) + graph", c["kprof_sum_ns"] == 430000, c)
    expect("crash: program fails, counts fail", not p["crash"]["sum_ok"]
           and any(x["equal"] is False for x in p["crash"]["counts"]), p["crash"])
    expect("crash: notes", "exited 139 under libkprof" in out and "joint run: no libkprof report" in out, out)
    expect("trunc: truncated summary fails the program", not p["trunc"]["sum_ok"] and "truncated" in out, out)
    expect("missing: count 0 vs 5 differs", [(x["kprof"], x["cupti"]) for x in p["missing"]["counts"]] == [(0, 5)], out)
    ks = {k["key"]: k for k in p["paced"]["kernels"]}
    expect("paced: the host-paced kernel is left out of the sums (250.5 against 250 us), which pass",
           p["paced"]["sum_ok"] and (p["paced"]["kprof_sum_ns"], p["paced"]["cupti_sum_ns"]) == (250500, 250000),
           p["paced"])
    expect("paced: it is no fully timed kernel, the other is checked",
           ks["_Z5delayv"]["paced"] and not ks["_Z5delayv"]["fully_timed"] and ks["_Z4redzv"]["ok"], ks)
    expect("paced: named in the notes with both CUPTI means",
           "paced by the host, left out: _Z5delayv() (CUPTI 30.0 us alone, 55.0 us with libkprof)" in out, out)
    expect("wander: not paced, the 2x reading fails the kernel and the sum",
           not p["wander"]["sum_ok"] and not p["wander"]["paced"]
           and p["wander"]["kernels"][0]["ok"] is False, p["wander"])
    expect("onlypaced: nothing left to judge fails the program",
           not p["onlypaced"]["sum_ok"] and "nothing left to judge" in out, p["onlypaced"])
    expect("the last line counts the paced kernels", "2 kernel(s) paced by the host left out: FAIL" in out, out)
    t = s["totals"]
    expect("totals", (t["programs_ok"], t["programs"], t["kernels_ok"], t["kernels"]) == (5, 10, 6, 9), t)
    expect("pattern rows", set(s["patterns"]) == {"basic", "graphs", "python", "all"}, s["patterns"])
    expect("details file lists every kernel", all(n in open(os.path.join(d, "d.txt")).read()
                                                  for n in ("_Z1av()", "_Z1iv()", "graph 0 (4 kernel nodes)")), "")

    rc, out = run(["--run", "good", "basic", "good.json", "good.cupti", "good.joint.json", "good.joint.cupti",
                   "--run", "graph", "graphs", "graph.json", "graph.cupti", "graph.joint.json", "graph.joint.cupti"], d)
    expect("--run tuples: all within: exit 0, PASS", rc == 0 and out.rstrip().endswith("PASS"), out)
    expect("--run tuples: final line",
           "accuracy: programs 2/2 within, kernels 2/2 within, counts 4/4 equal: PASS" in out, out)
    rc, out = run(["--run", "slow", "basic", "slow.json", "slow.cupti", "good.json", "good.cupti",
                   "--kernel-us", "5", "--prog-pct", "200"], d)
    expect("looser tolerances pass", rc == 0, out)
    rc, out = run([], d)
    expect("no input: exit 2", rc == 2, out)
    rc, out = run(["--manifest", "nope.tsv"], d)
    expect("missing manifest: exit 2", rc == 2, out)
    if not failures:
        shutil.rmtree(d)
    print("compare_selftest: %s" % ("FAILED (fixtures in %s)" % d if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
