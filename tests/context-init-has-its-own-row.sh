#!/bin/sh
# The call that creates the CUDA context (here the first cudaMalloc) has its host time reported on a
# `context init` row, not in cudaMalloc's statistics.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_CTX_INIT_MS=60
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/context_init"
expect_eq "$(jqr '.context_init | length' "$WORK/r.json")" 1 "one context created"
expect_eq "$(jqr '.context_init[0].api' "$WORK/r.json")" cudaMalloc "created by cudaMalloc"
expect_eq "$(jqr '.context_init[0].device' "$WORK/r.json")" 0 "on device 0"
ns=$(jqr '.context_init[0].host_ns' "$WORK/r.json")
[ "$ns" -ge 60000000 ] || fail "context init took $ns ns, expected at least the fake's 60 ms"
pass "context init row holds the creation time ($ns ns)"
malloc_max=$(jqr '[.api[] | select(.name == "cudaMalloc")][0].max_ns' "$WORK/r.json")
[ "$malloc_max" -lt 60000000 ] || fail "cudaMalloc's own max is $malloc_max ns: context creation leaked into it"
pass "cudaMalloc statistics exclude context creation (max $malloc_max ns)"
expect_eq "$(jqr '[.api[] | select(.name == "cudaMalloc")][0].calls' "$WORK/r.json")" 2 "both cudaMalloc calls counted"
expect_eq "$(jqr '.allocations[0].count' "$WORK/r.json")" 2 "both allocations counted"
run_kprof "$KERNELS/context_init" 2>"$WORK/text" >/dev/null
expect_grep '^ +0 +[0-9.]+ +[0-9]+\.[0-9]{3}  cudaMalloc \(cuDevicePrimaryCtxRetain\)$' "$WORK/text" "text context init row"
