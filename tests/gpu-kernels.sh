#!/bin/sh
# On a machine with a GPU: the kernels/ samples under libkprof on the real driver.  Every kernel counted
# with exact calls, reduce_blocks' average no more than 1 us above the program's own cudaEvent measurement
# and no more than 8 us below it (the program's own pairs, on an idle stream, hold the launch latency and
# the event hand-off, about 6 us on an H200, which libkprof takes off), and a context-init row between
# 50 ms and 2 s.  Skips without a GPU.  (tests/gpu/run-gpu-tests.sh adds
# the comparison against a CUPTI trace.)  JSON is read with python3, which GPU machines have.
. "${top_srcdir:-..}/tests/lib.sh"
[ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ] || skip "no GPU"
need_kernels
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" LD_PRELOAD="$KPROF_LIB" "$KERNELS/reduce" --iters 20 >"$WORK/out"
cat "$WORK/out"
python3 - "$WORK/r.json" "$WORK/out" <<'PY' || fail "see above"
import json, re, sys
r = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
k = {x["mangled"]: x for x in r["kernels"]}
blocks = [x for x in r["kernels"] if x["name"].startswith("reduce_blocks(")][0]
final = [x for x in r["kernels"] if x["name"].startswith("reduce_final(")][0]
ok = True
def check(cond, what):
    global ok
    print(("ok: " if cond else "FAIL: ") + what)
    ok = ok and cond
check(blocks["calls"] == 21 and blocks["timed"] == 21, "reduce_blocks calls %d timed %d (want 21)" % (blocks["calls"], blocks["timed"]))
check(final["calls"] == 21, "reduce_final calls %d (want 21)" % final["calls"])
own = float(re.search(r"reduce_blocks: 20 launches, average ([0-9.]+) us", out).group(1))
# The program times its 20 launches after a warm-up; libkprof's avg_ns leaves out the first launch
# (the warm-up), so both averages cover the same 20 launches.
avg = blocks["avg_ns"] / 1000.0
d = avg - own
check(-8.0 <= d <= 1.0, "reduce_blocks average %.3f us vs the program's own %.3f us (diff %+.3f us)" % (avg, own, d))
ctx = r["context_init"][0]["host_ns"] if r["context_init"] else 0
check(50e6 <= ctx <= 2e9, "context init %.1f ms (want 50 ms..2 s)" % (ctx / 1e6))
sys.exit(0 if ok else 1)
PY
