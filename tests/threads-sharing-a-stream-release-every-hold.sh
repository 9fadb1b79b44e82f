#!/bin/sh
# Holds under launches racing on one stream (no bug found; not tested elsewhere: the other thread tests give
# each thread a stream of its own): 8 threads launch on one non-blocking stream at once, then 2 threads
# on the legacy stream and 2 on a blocking one, each synchronizing as it goes; every hold is released (the
# fake aborts a synchronize that waits for one for ever), every launch counted and timed, also with a pool
# of 2 events, with one-event timing off, with sampling, and on a fake whose events complete at once.
# A launch into a destroyed stream fails as without libkprof (no hold can be placed there).  Exact times
# are not checked: a pair on a shared stream holds what other threads queued between its events.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for env in KPROF_HOLD=1 KPROF_MAX_EVENTS=2 KPROF_ONE_EVENT=0 KPROF_SAMPLE=3 FAKEGPU_EVENT_PENDING_QUERIES=0; do
    rm -f "$WORK/truth"
    (export "$env"; FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
        run_kprof "$PROGS/holds" shared) >"$WORK/out" 2>&1 || fail "$env: holds shared failed: $(cat "$WORK/out")"
    truth_matches "$WORK/r.json" "$WORK/truth"
    expect_eq "$(jqr '.events.failed' "$WORK/r.json")-$(jqr '.events.incomplete' "$WORK/r.json")" 0-0 "$env: no pair lost"
done
expect_eq "$(jq -c '[.kernels[] | .timed] | add' "$WORK/r.json")" 480 "every launch timed"
run_plain "$PROGS/holds" dead_stream >"$WORK/plain" || fail "holds dead_stream failed without libkprof"
rm -f "$WORK/truth"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/d.json" run_kprof "$PROGS/holds" dead_stream \
    >"$WORK/out" 2>&1 || fail "holds dead_stream failed: $(cat "$WORK/out")"
expect_eq "$(grep destroyed "$WORK/out")" "$(grep destroyed "$WORK/plain")" "a launch into a destroyed stream fails as without libkprof"
truth_matches "$WORK/d.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/d.json" shared_k total_ns)" 4000 "shared_k: its 4 launches read exactly"
