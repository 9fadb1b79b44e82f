#!/bin/sh
# The context init row names the call the program made as well as the driver function that created the
# context: PyTorch's first CUDA call is often cudaStreamIsCapturing, inside which cudart creates the
# context with cuDevicePrimaryCtxRetain; the row once named only the latter.  The query's own statistics
# leave the creation out.  A static-cudart program, whose runtime calls libkprof cannot see, has the
# driver function alone.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_CTX_INIT_MS=60
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/rt_calls" first-query >/dev/null
expect_eq "$(jqr '.context_init | length' "$WORK/r.json")" 1 "one context created"
expect_eq "$(jqr '.context_init[0] | "\(.api) \(.driver_api)"' "$WORK/r.json")" \
    "cudaStreamIsCapturing cuDevicePrimaryCtxRetain" "created by the program's cudaStreamIsCapturing, through cuDevicePrimaryCtxRetain"
ns=$(jqr '.context_init[0].host_ns' "$WORK/r.json")
[ "$ns" -ge 60000000 ] || fail "context init took $ns ns, expected at least the fake's 60 ms"
pass "the row holds the creation time ($ns ns)"
expect_eq "$(jqr '[.api[] | select(.name == "cudaStreamIsCapturing")][0].calls' "$WORK/r.json")" 2 "both queries counted"
max=$(jqr '[.api[] | select(.name == "cudaStreamIsCapturing")][0].max_ns' "$WORK/r.json")
[ "$max" -lt 60000000 ] || fail "cudaStreamIsCapturing's max is $max ns: context creation leaked into it"
pass "the query's statistics leave the creation out (max $max ns)"
run_kprof "$PROGS/rt_calls" first-query 2>"$WORK/text" >/dev/null
expect_grep '^ +0 +[0-9.]+ +[0-9.]+  cudaStreamIsCapturing \(cuDevicePrimaryCtxRetain\)$' "$WORK/text" "text row: the call, then the driver function"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$PROGS/rt_calls" first-query >/dev/null
expect_eq "$(sed -n 1p "$WORK/c.context_init.csv")" "device,api,host_ns,driver_api,start_ns" "CSV header"
expect_grep '^0,cudaStreamIsCapturing,[0-9]+,cuDevicePrimaryCtxRetain,[0-9]+$' "$WORK/c.context_init.csv" "CSV row"

KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s.json" run_kprof "$PROGS/rt_calls_static" first-query >/dev/null
expect_eq "$(jqr '.context_init[0] | "\(.api) \(.driver_api)"' "$WORK/s.json")" \
    "cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain" "static runtime: the driver function alone"
run_kprof "$PROGS/rt_calls_static" first-query 2>"$WORK/stext" >/dev/null
expect_grep '^ +0 +[0-9.]+ +[0-9.]+  cuDevicePrimaryCtxRetain$' "$WORK/stext" "static runtime: text row names it once"
