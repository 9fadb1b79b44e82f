#!/bin/sh
# A program linked with a static cudart (here nvcc -cudart none + the fake's libcudart_static.a) has no
# cuda* symbols to interpose: libkprof sees it through dlsym + cuGetProcAddress alone, and reports the
# same kernels, counts, times and copies as for the shared build, all timed before the static runtime's
# own atexit teardown.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
[ -x "$FAKE/static/reduce" ] || skip "static fake programs not built"
nm -D "$FAKE/static/reduce" | grep -q ' U cuda' && fail "the static program imports cuda* symbols"
export FAKEGPU_KERNEL_NS="reduce_blocks=25000,reduce_final=3000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/static.json" \
    run_kprof "$FAKE/static/reduce" --no-verify --iters 5 >/dev/null
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/shared.json" run_kprof "$KERNELS/reduce" --no-verify --iters 5 >/dev/null
truth_matches "$WORK/static.json" "$WORK/truth"
for f in mangled calls timed total_ns first_ns avg_ns; do
    expect_eq "$(jq -c "[.kernels[] | .$f]" "$WORK/static.json")" "$(jq -c "[.kernels[] | .$f]" "$WORK/shared.json")" \
        "kernels' $f as in the shared build"
done
expect_eq "$(jq -c '[.copies[] | [.direction, .count, .bytes, .timed]]' "$WORK/static.json")" \
    "$(jq -c '[.copies[] | [.direction, .count, .bytes, .timed]]' "$WORK/shared.json")" "copies as in the shared build"
expect_eq "$(jqr '.allocations[0].count' "$WORK/static.json")" 3 "cuMemAlloc_v2 calls seen as allocations"
expect_eq "$(jqr '.allocations[0].frees' "$WORK/static.json")" 3 "and their frees"
expect_eq "$(jqr '.context_init[0].api' "$WORK/static.json")" cuDevicePrimaryCtxRetain "context init from the driver hook"
expect_eq "$(jqr '.events.incomplete + .events.failed' "$WORK/static.json")" 0 "every pair read before the static runtime's teardown"
expect_eq "$(jqr '[.api[] | select(.name == "cuLaunchKernel")][0].calls' "$WORK/static.json")" 12 "launches seen as cuLaunchKernel"
