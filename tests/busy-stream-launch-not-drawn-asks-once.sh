#!/bin/sh
# KPROF_HOLD=N (the default, 8): a launch not drawn on a busy stream starts at the previous call's stop
# without asking whether the work queued ahead of it outlasts the launch (a cuEventQuery of the newest
# pair's start, 0.2 to 0.6 us on an H100): only whether that stop is still pending.  Its gap offset,
# learned from the drawn launches among the same ones, takes off whatever gap they had on average (none
# here).  A drawn launch still asks, and shares the start when the known lengths ahead outlast it.  On
# the fake GPU (FAKEGPU_TRUTH_QUERIES=1: the truth file counts the main thread's queries after the app's
# first kernel): 20 back-to-back 10 ms kernels, each read exactly; one query for a launch not drawn
# (gap_shared), two for a drawn one.  Before, every one of the 19 asked twice (39 queries).  10 ms, not
# 1: where the newest pair's known length is under twice the launch call's host time plus 1 us
# (backlog_needed_ns), a drawn launch asks the pair before it as well, and a ThreadSanitizer build's
# launch call took that long in 1 run of 5 (28 queries).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=1000
FAKEGPU_TRUTH="$WORK/truth" FAKEGPU_TRUTH_QUERIES=1 FAKEGPU_KERNEL_NS=long=10000000 KPROF_SEED=7 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/preds" long >/dev/null 2>"$WORK/err" || fail "preds long failed: $(cat "$WORK/err")"
expect_eq "$(jq -c '[.kernels[] | select(.name == "long") | .calls, .total_ns, .min_ns, .max_ns]' "$WORK/r.json")" \
    '[21,210000000,10000000,10000000]' "each of the 21 launches reads its 10 ms"
shared=$(jqr '.events.one_event' "$WORK/r.json") gap=$(jqr '.events.gap_shared' "$WORK/r.json")
expect_eq "$shared" 19 "the 19 back-to-back launches after the first start at the previous stop"
[ "$gap" -ge 10 ] || fail "only $gap of them were launches not drawn (gap_shared), expected 10 or more"
queries=$(awk '$1 == "queries" && $2 == "main_after_first_kernel" {print $3}' "$WORK/truth")
# (the first launch after the pause asks once or not at all, as its stop was last seen by the harvester)
most=$((1 + gap + 2 * (shared - gap)))
[ -n "$queries" ] && [ "$queries" -le "$most" ] ||
    fail "$queries queries, expected $most at most: one for each of the $gap not drawn, two for each of the $((shared - gap)) drawn"
pass "$queries queries: one for each of the $gap not drawn, two for each of the $((shared - gap)) drawn, and the first launch's"
