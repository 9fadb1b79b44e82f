#!/bin/sh
# A reset of the primary context (cuDevicePrimaryCtxReset, or cudaDeviceReset with a context of the
# program's own current) takes the primary context's memory with it, and only that: a context the program
# created (cuCtxCreate) keeps its memory in use, and a free of it counts (a second tester: every context of
# the device was dropped, so the live context's 1 MiB read as neither in use nor freed).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
dev() { jq -c '[.allocations[] | select(.kind == "device") | .count, .bytes, .frees, .freed_bytes, .in_use_bytes]' "$1"; }
for mode in primary devreset; do
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$mode.json" run_kprof "$PROGS/ctx_reset" $mode >/dev/null 2>&1 ||
        fail "ctx_reset $mode failed"
    expect_eq "$(dev "$WORK/$mode.json")" '[2,3145728,1,1048576,0]' "$mode: 2 allocations, the own context's freed, none in use"
done
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/keep.json" run_kprof "$PROGS/ctx_reset" primary keep >/dev/null 2>&1 ||
    fail "ctx_reset primary keep failed"
expect_eq "$(dev "$WORK/keep.json")" '[2,3145728,0,0,1048576]' "the own context's 1 MiB still in use at exit"
