#!/bin/sh
# On a machine with a GPU: kernels/reduce under Nsight Compute (ncu, one kernel profiled, clocks left alone
# as the device notes ask) with libkprof preloaded into the program: ncu's own report names the kernel and
# its duration metric, and libkprof's report has reduce's kernels, every launch counted.  libkprof takes no
# CUPTI subscriber, so the two should coexist (a CUPTI-based tracer would be refused the subscriber ncu
# holds).  Under ncu 2025.3 the runtime takes its driver from ncu's injection library (its own dlopen),
# so libkprof sees no cuInit: it wrote no report until a successful runtime call counted as proof that the
# driver is initialised (tests/driver-handed-out-by-another-tool.sh; passes on the H200, 2026-12-01).
# Skips (77) without a GPU or without ncu.  Run by tests/gpu/run-gpu-tests.sh; by hand:
# top_builddir=. top_srcdir=. sh tests/gpu/ncu-coexist.sh
. "${top_srcdir:-.}/tests/lib.sh"
[ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ] || skip "no GPU"
need_kernels
need_jq
ncu=$(command -v ncu 2>/dev/null || true)
for d in "${CUDA_HOME:-/usr/local/cuda}" /usr/local/cuda /usr/local/cuda-13.0; do
    [ -n "$ncu" ] || [ ! -x "$d/bin/ncu" ] || ncu=$d/bin/ncu
done
[ -n "$ncu" ] || skip "ncu not found"
[ -f "$KPROF_LIB" ] || fail "$KPROF_LIB not built"
rc=0
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/report.json" timeout -k 10 600 "$ncu" --clock-control none \
    --launch-count 1 --kernel-name regex:reduce_blocks --metrics gpu__time_duration.sum \
    env LD_PRELOAD="$KPROF_LIB" "$KERNELS/reduce" --iters 3 >"$WORK/out" 2>&1 || rc=$?
cat "$WORK/out"
case $(cat "$WORK/out") in
*ERR_NVGPUCTRPERM* | *"not supported"*) skip "ncu cannot read the GPU's counters on this machine" ;;
esac
expect_eq "$rc" 0 "reduce and ncu exit 0"
expect_grep 'reduce_blocks' "$WORK/out" "ncu profiled reduce_blocks"
expect_grep 'gpu__time_duration.sum' "$WORK/out" "and printed its duration metric"
[ -f "$WORK/report.json" ] || fail "libkprof wrote no report under ncu"
expect_eq "$(jq '[.kernels[] | select(.name | test("reduce_blocks")) | .calls] | add' "$WORK/report.json")" 4 \
    "libkprof counted every reduce_blocks launch (3 timed iterations and the warm-up)"
