#!/bin/sh
# The CSV kernels, graphs, copies, memsets and api tables open with the columns of nsys stats' reports
# (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_api_sum), with nsys's meanings: every timed instance
# counted, the first launch included; the median the mean of the two middle ones for an even count.
# Read as a script reads nsys stats CSV (by header, Python's csv module), against durations known on the
# fake GPU: alpha_k's 4 launches take 9000 (the first), 1000, 3000 and 2000 ns, so its Avg (ns) is 3750
# where libkprof's own avg_ns (the first left out) is 2000.
. "${top_srcdir:-..}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the CSV as nsys stats consumers do"
export FAKEGPU_KERNEL_NS="alpha_k=9000/1000/3000/2000,beta_k=6000/2000,gamma_k=500" FAKEGPU_COPY_PS_PER_BYTE=1000
export FAKEGPU_LAUNCH_SLEEP_US="beta_k=20000" # beta_k's two launches take 20 ms of host time each
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/r" run_kprof "$PROGS/nsys_tables" >"$WORK/out" 2>&1 ||
    fail "nsys_tables failed: $(cat "$WORK/out")"

python3 - "$WORK/r" <<'EOF' || fail "the CSV tables do not read as nsys stats ones"
import csv, statistics, sys
base = sys.argv[1]
bad = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)

def table(name, columns):
    with open("%s.%s.csv" % (base, name), newline="") as f:
        header = next(csv.reader(f))
        f.seek(0)
        rows = list(csv.DictReader(f))
    check(header[:9] == columns, "%s.csv opens with nsys's columns: %s" % (name, header[:9]))
    check(len(header) > 9, "%s.csv: libkprof's own columns after them" % name)
    return rows

def close(got, want, rel=0.0):
    return abs(float(got) - want) <= max(0.05, want * rel)

def expect(row, what, durations, rel_median=0.0):
    """A row against the durations it sums up, as nsys would: count, total, mean, median, extremes,
    sample standard deviation."""
    n = len(durations)
    check(int(row[count]) == n, "%s: %s %d" % (what, count, n))
    check(int(row["Total Time (ns)"]) == sum(durations), "%s: Total Time (ns) %d" % (what, sum(durations)))
    check(close(row["Avg (ns)"], statistics.mean(durations)), "%s: Avg (ns) %s" % (what, row["Avg (ns)"]))
    check(close(row["Med (ns)"], statistics.median(durations), rel_median),
          "%s: Med (ns) %s (exact %.1f)" % (what, row["Med (ns)"], statistics.median(durations)))
    check(int(row["Min (ns)"]) == min(durations) and int(row["Max (ns)"]) == max(durations),
          "%s: Min (ns) %s, Max (ns) %s" % (what, row["Min (ns)"], row["Max (ns)"]))
    sd = statistics.stdev(durations) if n > 1 else 0.0
    check(close(row["StdDev (ns)"], sd), "%s: StdDev (ns) %s (exact %.1f)" % (what, row["StdDev (ns)"], sd))

def shares(rows, all_ns, what):
    for r in rows:
        want = 100.0 * int(r["Total Time (ns)"]) / all_ns
        check(close(r["Time (%)"], want), "%s: Time (%%) %s of %s (%.2f)" % (what, r["Time (%)"], r[label], want))

KERN = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"]
MEM = ["Time (%)", "Total Time (ns)", "Count", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Operation"]
API = ["Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"]

# cuda_gpu_kern_sum
count, label = "Instances", "Name"
kernels = {r["Name"]: r for r in table("kernels", KERN)}
table("graphs", KERN)
known = {"alpha_k()": [9000, 1000, 3000, 2000], "beta_k(int, int)": [6000, 2000], "gamma_k()": [500]}
check(sorted(kernels) == sorted(known), "kernels: %s" % sorted(kernels))
for name, durations in known.items():
    if name in kernels:
        expect(kernels[name], name, durations)
shares(kernels.values(), 15000 + 8000 + 500, "kernels")
a = kernels.get("alpha_k()", {})
check(a.get("first_ns") == "9000" and a.get("avg_ns") == "2000" and a.get("Avg (ns)") == "3750.0",
      "alpha_k(): libkprof's first_ns 9000 and avg_ns 2000 (the first left out) beside nsys's Avg (ns) 3750.0")

# cuda_gpu_mem_time_sum: the copies and memsets tables together are its rows (Time (%) of them all); a
# median of 4 copies within the histogram's 0.78125%.
count, label = "Count", "Operation"
copies = {r["Operation"]: r for r in table("copies", MEM)}
memsets = table("memsets", MEM)
check(sorted(copies) == ["[CUDA memcpy Device-to-Host]", "[CUDA memcpy Host-to-Device]"], "copies: %s" % sorted(copies))
if "[CUDA memcpy Host-to-Device]" in copies:
    expect(copies["[CUDA memcpy Host-to-Device]"], "HtoD", [1000, 2000, 3000, 4000], 1 / 128)
if "[CUDA memcpy Device-to-Host]" in copies:
    expect(copies["[CUDA memcpy Device-to-Host]"], "DtoH", [8000])
check(len(memsets) == 1 and memsets[0]["Operation"] == "[CUDA memset]", "memsets: one [CUDA memset] row")
expect(memsets[0], "memset", [1000, 3000])
shares(list(copies.values()) + memsets, 10000 + 8000 + 4000, "copies and memsets")

# cuda_api_sum: host times, not known in advance; __cudaLaunchKernel's 7 calls are 2 of over 20 ms
# (beta_k's) and 5 quick ones: the median (the 4th) is a quick one, the deviation about 0.49 x the
# difference; every row's figures hold together, and a row of two calls has a known median and deviation.
count, label = "Num Calls", "Name"
api = {r["Name"]: r for r in table("api", API)}
shares(api.values(), sum(int(r["Total Time (ns)"]) for r in api.values()), "api")
for name, r in api.items():
    n, total, sd = int(r["Num Calls"]), int(r["Total Time (ns)"]), float(r["StdDev (ns)"])
    lo, med, hi = int(r["Min (ns)"]), float(r["Med (ns)"]), int(r["Max (ns)"])
    check(n > 0 and close(r["Avg (ns)"], total / n) and lo <= med <= hi and n * lo <= total <= n * hi,
          "%s: %d calls, Avg (ns) = Total / Num Calls, Min <= Med <= Max" % (name, n))
    bound = (hi - lo) / 2 * (n / (n - 1)) ** 0.5 + 0.05 if n > 1 else 0.0 # Popoviciu's, and the rounding
    check(sd == 0.0 if n == 1 or lo == hi else 0.0 < sd <= bound,
          "%s: StdDev (ns) %.1f (0 for one call, else above 0 and at most %.1f)" % (name, sd, bound))
    if n == 2: # the two calls are Min and Max, exact: their deviation is known
        check(close(sd, (hi - lo) / 2 ** 0.5), "%s: StdDev (ns) of two calls %.1f, (Max - Min) / sqrt(2)" % (name, sd))
        check(close(med, (lo + hi) / 2), "%s: Med (ns) of two calls %.1f, their mean" % (name, med))
check(any(r["Num Calls"] == "2" for r in api.values()), "api: a row of two calls (the memsets') to check exactly")
launch = api.get("__cudaLaunchKernel", {})
if launch:
    hi, med, sd = int(launch["Max (ns)"]), float(launch["Med (ns)"]), float(launch["StdDev (ns)"])
    check(launch["Num Calls"] == "7" and hi >= 20000000 and med < 20000000 and 0.4 * hi <= sd <= 0.55 * hi,
          "__cudaLaunchKernel: 7 calls, Max (ns) %d a slow one, Med (ns) %.1f a quick one, StdDev (ns) %.1f"
          % (hi, med, sd))
else:
    check(False, "api: a __cudaLaunchKernel row")
sys.exit(1 if bad else 0)
EOF
pass "kernels, graphs, copies, memsets and api CSV tables read as nsys stats ones"
