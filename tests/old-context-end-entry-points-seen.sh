#!/bin/sh
# A context ended through the driver's first-version entry points (cuDevicePrimaryCtxReset,
# cuDevicePrimaryCtxRelease, cuCtxDestroy: what a program built against old headers, or asking
# cuGetProcAddress for an old version, calls) is seen as through the _v2 ones: its pending pairs are read
# first, and a context made afterwards at the same address (FAKEGPU_REUSE_CTX_HANDLE=1) gets a pool, events
# and holds of its own.  Without that, libkprof went on using the dead context's events (its pairs lost)
# and its hold words, pinned memory freed with the context (a write after free: on a real GPU the
# memory is unmapped and the write crashes the app).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for mode in reset_v1 release_v1 destroy_v1; do
    FAKEGPU_REUSE_CTX_HANDLE=1 FAKEGPU_TRUTH="$WORK/truth.$mode" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$mode.json" \
        run_kprof "$PROGS/holds" "$mode" >"$WORK/out" 2>&1 || fail "holds $mode failed: $(cat "$WORK/out")"
    truth_matches "$WORK/$mode.json" "$WORK/truth.$mode"
    expect_eq "$(kernel_field "$WORK/$mode.json" ctx_k timed)" 6 "$mode: every launch of both contexts timed"
    expect_eq "$(kernel_field "$WORK/$mode.json" ctx_k total_ns)" 6000 "$mode: with its time"
    expect_eq "$(jqr '.events.failed' "$WORK/$mode.json")" 0 "$mode: no pair lost with the context"
    expect_eq "$(jq -c '[.events.held, .events.held_kernel]' "$WORK/$mode.json")" '[4,2]' \
        "$mode: the second context's launches held too"
done
