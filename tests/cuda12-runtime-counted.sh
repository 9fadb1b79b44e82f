#!/bin/sh
# A CUDA 12 runtime (libcudart.so.12, its own version node) whose host stubs call cudaLaunchKernel, as
# PyTorch's CUDA 12 wheels do.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/cu12app" ] || skip "fake CUDA 12 program not built"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/cu12app" >/dev/null
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" cu12_axpy calls)" 4 "cudaLaunchKernel launches"
expect_eq "$(kernel_field "$WORK/r.json" cu12_axpy name)" "cu12_axpy(float*)" "named from registration"
expect_eq "$(jqr '[.api[] | select(.name == "cudaLaunchKernel")][0].calls' "$WORK/r.json")" 4 "through the runtime wrapper"
expect_eq "$(copy_field "$WORK/r.json" HtoD bytes)" 1000 "copy"
