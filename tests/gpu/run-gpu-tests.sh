#!/usr/bin/env bash
# run-gpu-tests.sh OUTDIR: every GPU check of libkprof, on the GPU machine, from a tree built elsewhere
# (src/.libs, kernels/ and tests/gpu/libkprof-cupti.so carried over).  Each workload runs once under
# libkprof (JSON report) and once under the CUPTI activity tracer (ground truth), and kprof-compare.py
# checks that every kernel is present with the same count and a close average; then the GPU tests of
# tests/*.sh; then static-cudart builds against their shared builds.  Logs: OUTDIR/gpu-logs.tar.gz.
# ONLY="reduce torch ..." runs only those comparisons (by name) and nothing else: a quick check.
set -u
# Without a GPU there is nothing to check: say so and exit 77, as the GPU tests of tests/*.sh do.
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "SKIP: no GPU (nvidia-smi lists none): run-gpu-tests.sh runs on the GPU machine"
    exit 77
fi
out=${1:-${OUT:-/tmp/kprof-gpu}}
logs=$out/logs
mkdir -p "$logs"
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/src/.libs/libkprof.so
cupti=$top/tests/gpu/libkprof-cupti.so
K=$top/kernels
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
PCT=${KPROF_GPU_PCT:-2} US=${KPROF_GPU_US:-1}  # the accuracy suite's kernel tolerance: max(1 us, 2%)
failed=0
ONLY=${ONLY:-}
note() { echo; echo "== $*"; }
fail() { echo "FAIL: $*"; failed=1; }

# compare NAME CMD...: libkprof run, CUPTI run, comparison.
compare() {
    local name=$1; shift
    if [ -n "$ONLY" ]; then case " $ONLY " in *" $name "*) ;; *) return 0 ;; esac; fi
    note "$name: $*"
    # (The trace, for a time that disagrees: each launch's situation, "after", and what was taken off it.)
    KPROF_FORMAT=json KPROF_OUTPUT="$logs/$name.json" KPROF_TRACE="$logs/$name.trace.json" LD_PRELOAD="$lib" "$@" \
        >"$logs/$name.out" 2>"$logs/$name.err" ||
        fail "$name exited $? under libkprof"
    tail -n 3 "$logs/$name.out"; cat "$logs/$name.err"
    CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT="$logs/$name.cupti" "$@" >/dev/null 2>"$logs/$name.cupti.err" ||
        fail "$name exited $? under CUPTI"
    python3 "$top/tests/gpu/kprof-compare.py" --pct "$PCT" --us "$US" "$logs/$name.json" "$logs/$name.cupti" ||
        fail "$name: libkprof and CUPTI disagree"
}

nvidia-smi -L
for p in reduce vector_add stream_overlap context_init; do
    compare "$p" "$K/$p"
    compare "$p-static" "$K/$p-static"
done
compare cublas_gemm "$K/cublas_gemm"
compare torch python3 "$top/tests/gpu/torch_workload.py" --steps 20
compare triton python3 "$top/tests/gpu/triton_add.py" --launches 10

if [ -z "$ONLY" ]; then
note "cuGetProcAddress_v2 hands out the addresses dlsym finds (libkprof's driver hooks rely on it)"
if [ -x "$top/tests/gpu/procaddr_identity" ]; then
    "$top/tests/gpu/procaddr_identity" >"$logs/procaddr_identity.txt" 2>&1 || fail "procaddr_identity exited $?"
    grep DIFFERENT "$logs/procaddr_identity.txt"; tail -n 1 "$logs/procaddr_identity.txt"
else
    echo "tests/gpu/procaddr_identity not built (make builds it)"
fi

note "static-cudart builds report the same kernels and counts as their shared builds"
for p in reduce vector_add stream_overlap context_init; do
    python3 - "$logs/$p.json" "$logs/$p-static.json" <<'PY' || fail "$p-static differs from $p"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ka = {k["mangled"]: k["calls"] for k in a["kernels"]}
kb = {k["mangled"]: k["calls"] for k in b["kernels"]}
ca = {c["direction"]: (c["count"], c["bytes"]) for c in a["copies"]}
cb = {c["direction"]: (c["count"], c["bytes"]) for c in b["copies"]}
aa = {x["kind"]: x["count"] for x in a["allocations"] if x["count"]}
ab = {x["kind"]: x["count"] for x in b["allocations"] if x["count"]}
print("%s: kernels %s / %s; copies %s / %s; allocations %s / %s" % (sys.argv[1].split("/")[-1], ka, kb, ca, cb, aa, ab))
sys.exit(0 if (ka == kb and ca == cb and aa == ab) else 1)
PY
done

note "trace of stream_overlap: copies and kernels on different streams overlap in time"
KPROF_TRACE="$logs/stream_overlap.trace.json" KPROF_OUTPUT="$logs/stream_overlap.trace-report.txt" LD_PRELOAD="$lib" \
    "$K/stream_overlap" >/dev/null
python3 - "$logs/stream_overlap.trace.json" <<'PY' || fail "no overlap in the stream_overlap trace"
import json, sys
t = json.load(open(sys.argv[1]))
x = [e for e in t["traceEvents"] if e.get("ph") == "X"]
k = [e for e in x if e["cat"] == "kernel"]
c = [e for e in x if e["cat"] == "memcpy"]
over = lambda a, b: a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]
ck = sum(1 for a in c for b in k if a["tid"] != b["tid"] and over(a, b))
cc = sum(1 for a in c for b in c if a["tid"] < b["tid"] and over(a, b))
names = sorted({e["args"]["name"] for e in t["traceEvents"] if e.get("name") == "thread_name"})
print("trace: %d events (%d kernels, %d copies) on streams %s; copy/kernel overlaps across streams: %d; "
      "copy/copy overlaps: %d; dropped %d" % (len(x), len(k), len(c), names, ck, cc, t["otherData"]["dropped_events"]))
sys.exit(0 if ck > 0 and len(k) == 8 and len(c) == 16 else 1)
PY
sed -n '/== libkprof: devices ==/,/^Busy:/p' "$logs/stream_overlap.trace-report.txt"

fi # ONLY

note "robustness: CUDA graphs, a device reset, 8 threads x 4 streams, fork (counts against CUPTI)"
compare graph_replay "$K/graph_replay" --replays 10
compare device_reset "$K/device_reset"
compare threads_streams "$K/threads_streams"
compare fork_child "$K/fork_child"
compare fork_child_exec "$K/fork_child" exec
compare multi_gpu "$K/multi_gpu" # every visible GPU: a devices row and a context row each
[ ! -f "$logs/graph_replay.json" ] || python3 - "$logs/graph_replay.json" <<'PY' || fail "graph rows"
import json, sys
r = json.load(open(sys.argv[1]))
print("graphs:", [(g["name"], g["calls"], g["timed"], g["avg_ns"]) for g in r["graphs"]],
      "captured:", [(c["name"], c["launches"]) for c in r["captured"]])
sys.exit(0 if r["graphs"] and r["graphs"][0]["calls"] == 10 and len(r["captured"]) == 2 else 1)
PY
[ ! -f "$logs/device_reset.json" ] || python3 - "$logs/device_reset.json" <<'PY' || fail "device reset"
import json, sys
r = json.load(open(sys.argv[1]))
print("device_reset: kernels", [(k["name"], k["calls"], k["timed"]) for k in r["kernels"]], "context init rows",
      len(r["context_init"]), "events", r["events"])
sys.exit(0 if all(k["calls"] == k["timed"] for k in r["kernels"]) and len(r["context_init"]) == 2 else 1)
PY

# ONLY="queue" runs this alone (with the robustness comparisons above).
if [ -z "$ONLY" ] || case " $ONLY " in *" queue "*) true ;; *) false ;; esac; then
    note "host versus device time per kernel: launch call host time and queue time against CUPTI's"
    bash "$top/tests/gpu/queue-time-vs-cupti.sh" "$logs/queue"
    rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] || fail "queue times disagree with CUPTI's (tests/gpu/queue-time-vs-cupti.sh)"
fi

if [ -n "$ONLY" ]; then
    tar czf "$out/gpu-logs.tar.gz" -C "$out" logs && rm -rf "$logs"
    echo; echo "run-gpu-tests (ONLY=$ONLY): $([ $failed = 0 ] && echo PASSED || echo FAILED)"
    exit $failed
fi

note "PyTorch under libkprof and torch.profiler at once"
rc=0
KPROF_FORMAT=json KPROF_OUTPUT="$logs/coexist.json" LD_PRELOAD="$lib" \
    python3 "$top/tests/gpu/torch_profiler_coexist.py" "$logs/coexist.profiler.json" >"$logs/coexist.out" 2>&1 || rc=$?
grep -v Warning "$logs/coexist.out" | tail -n 3
if [ $rc = 77 ]; then
    echo "SKIP: torch.profiler beside libkprof (no PyTorch or no GPU)"
elif [ $rc != 0 ]; then
    fail "the PyTorch workload under torch.profiler and libkprof exited $rc"
else
    # Both tools' outputs: torch.profiler saw GPU kernels, libkprof timed every launch, and each kernel
    # the profiler saw in its window is in libkprof's report with at least as many launches.
    python3 - "$logs/coexist.json" "$logs/coexist.profiler.json" <<'PY' || fail "libkprof with torch.profiler"
import json, sys
r = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
n = sum(k["calls"] for k in r["kernels"])
timed = all(k["calls"] == k["timed"] for k in r["kernels"])
print("libkprof alongside torch.profiler: %d kernel launches in %d kernels, all timed: %s; profiler: %d GPU events"
      % (n, len(r["kernels"]), timed, p["events"]))
calls = {k["name"]: k["calls"] for k in r["kernels"]}
short = {name: (c, calls.get(name)) for name, c in p["kernels"].items() if calls.get(name, 0) < c}
for name, (c, mine) in sorted(short.items()):
    print("  profiler saw %d of %s, libkprof %s" % (c, name[:90], mine))
sys.exit(0 if n > 0 and p["events"] > 0 and timed and not short else 1)
PY
fi

note "text report of reduce (shared build)"
LD_PRELOAD="$lib" "$K/reduce" 2>&1 | tee "$logs/reduce-text.txt" | tail -n 32

note "tests/*.sh GPU tests, and compute-sanitizer finds no failed CUDA call under libkprof"
for t in "$top"/tests/gpu-*.sh "$top"/tests/gpu/compute-sanitizer-clean.sh "$top"/tests/gpu/ncu-coexist.sh; do
    top_builddir=$top top_srcdir=$top sh "$t"
    rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] || fail "$(basename "$t")"
done

tar czf "$out/gpu-logs.tar.gz" -C "$out" logs && rm -rf "$logs"
echo
echo "run-gpu-tests: $([ $failed = 0 ] && echo PASSED || echo FAILED)"
exit $failed
