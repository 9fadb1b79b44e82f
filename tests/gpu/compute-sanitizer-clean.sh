#!/bin/sh
# On a machine with a GPU: kernels/reduce and kernels/stream_overlap (copies beside kernels on several
# streams), clean programs, under compute-sanitizer (memcheck, which also reports CUDA API calls that fail)
# with libkprof preloaded: `ERROR SUMMARY: 0 errors`.  libkprof's own driver calls must never fail on the
# app's valid input (it once asked cuPointerGetAttribute about pageable host memory: 2 errors), nor answer
# "not ready" but from a query (cuEventElapsedTime on a pending event: "Program hit CUDA_ERROR_NOT_READY",
# docs/probes/elapsed-probe.patch).  Skips (77) without a GPU or without compute-sanitizer.  Run by
# tests/gpu/run-gpu-tests.sh; by hand: top_builddir=. top_srcdir=. sh tests/gpu/compute-sanitizer-clean.sh
. "${top_srcdir:-.}/tests/lib.sh"
[ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ] || skip "no GPU"
need_kernels
cs=$(command -v compute-sanitizer 2>/dev/null || true)
for d in "${CUDA_HOME:-/usr/local/cuda}" /usr/local/cuda /usr/local/cuda-13.0; do
    [ -n "$cs" ] || [ ! -x "$d/bin/compute-sanitizer" ] || cs=$d/bin/compute-sanitizer
done
[ -n "$cs" ] || skip "compute-sanitizer not found"
[ -f "$KPROF_LIB" ] || fail "$KPROF_LIB not built"
# libkprof is preloaded into the program only (through env), not into compute-sanitizer itself.
rc=0
KPROF_OUTPUT="$WORK/report.txt" timeout -k 10 600 "$cs" --tool memcheck --target-processes all \
    env LD_PRELOAD="$KPROF_LIB" "$KERNELS/reduce" --iters 5 >"$WORK/out" 2>&1 || rc=$?
cat "$WORK/out"
expect_grep 'ERROR SUMMARY: 0 errors' "$WORK/out" "compute-sanitizer: no error in reduce under libkprof"
expect_eq "$rc" 0 "reduce and compute-sanitizer exit 0"
expect_grep '== libkprof: kernels ==' "$WORK/report.txt" "and libkprof wrote its report"
expect_grep 'reduce_blocks' "$WORK/report.txt" "with reduce's kernels"
rc=0
KPROF_OUTPUT="$WORK/overlap.txt" timeout -k 10 600 "$cs" --tool memcheck --target-processes all \
    env LD_PRELOAD="$KPROF_LIB" "$KERNELS/stream_overlap" >"$WORK/out2" 2>&1 || rc=$?
cat "$WORK/out2"
expect_grep 'ERROR SUMMARY: 0 errors' "$WORK/out2" \
    "compute-sanitizer: no error in stream_overlap under libkprof"
expect_eq "$rc" 0 "stream_overlap and compute-sanitizer exit 0"
expect_grep 'scale_chunk' "$WORK/overlap.txt" "and libkprof reported stream_overlap's kernel"
