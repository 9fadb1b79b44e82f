#!/bin/sh
# A program built with --default-stream per-thread calls the _ptsz/_ptds entry points: counted and timed
# on the per-thread default stream.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
nm -D "$KERNELS/vector_add-ptds" | grep -q '__cudaLaunchKernel_ptsz' || fail "the ptds build does not call __cudaLaunchKernel_ptsz"
export FAKEGPU_KERNEL_NS="vector_add=9000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/vector_add-ptds" --no-verify --n 1024
expect_eq "$(kernel_field "$WORK/r.json" vector_add calls)" 1 "launch counted"
expect_eq "$(kernel_field "$WORK/r.json" vector_add total_ns)" 9000 "launch timed"
expect_eq "$(copy_field "$WORK/r.json" HtoD count)" 2 "cudaMemcpy_ptds copies counted"
expect_eq "$(copy_field "$WORK/r.json" HtoD total_ns)" 8192 "cudaMemcpy_ptds copies timed"
expect_eq "$(jqr '[.api[] | select(.name == "__cudaLaunchKernel_ptsz")][0].calls' "$WORK/r.json")" 1 "API row"
