#!/bin/sh
# A stream destroyed with its work still in flight, its handle given to the next stream made, and nothing
# ever waited for (a breaker helper's pattern): the new stream's pairs queue behind the destroyed one's in
# one queue, so the newest pair's completion no longer says the older ones are done.  The harvester then
# asks each pair again; before, it waited for the older pairs without asking, reached the exit drain's
# 5 s limit and left 6 of 15 launches untimed.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_REUSE_STREAM_HANDLE=1 FAKEGPU_KERNEL_NS=kernel_a=1000
for h in 0 8; do
    start=$(date +%s)
    KPROF_HOLD=$h KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$h.json" run_kprof "$PROGS/stream_churn" 300 \
        >"$WORK/out" 2>"$WORK/err" || fail "stream_churn failed: $(cat "$WORK/out" "$WORK/err")"
    took=$(($(date +%s) - start))
    expect_eq "$(jq -c '[.kernels[] | [.calls, .timed, .total_ns]]' "$WORK/r$h.json")" '[[1500,1500,1500000]]' \
        "KPROF_HOLD=$h: every launch counted and timed, each 1 us"
    expect_eq "$(jqr '.events.incomplete' "$WORK/r$h.json")" 0 "KPROF_HOLD=$h: no pair left incomplete at exit"
    expect_no_grep 'had not completed' "$WORK/err" "KPROF_HOLD=$h: no drain timeout"
    [ "$took" -lt 4 ] || fail "KPROF_HOLD=$h: the run took $took s (the exit drain waits 5 s at most)"
    pass "KPROF_HOLD=$h: done in $took s"
done
