#!/bin/sh
# A library that carries its own CUDA runtime (as cuBLAS, cuDNN and NCCL do) launches through the driver:
# libkprof counts those launches through its driver hooks and the program's own launches through the
# runtime hooks, each once.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/mathapp" ] || skip "fake math library not built"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/mathapp" >/dev/null
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" fakemath_gemm calls)" 5 "library kernel"
expect_eq "$(kernel_field "$WORK/r.json" fakemath_gemm timed)" 5 "library kernel timed"
expect_eq "$(kernel_field "$WORK/r.json" fakemath_gemm name)" "fakemath_gemm(float const*, float const*, float*, int)" "named by the driver, demangled"
expect_eq "$(kernel_field "$WORK/r.json" app_add calls)" 3 "program kernel"
expect_eq "$(copy_field "$WORK/r.json" HtoD bytes)" 4096 "the library's copy"
