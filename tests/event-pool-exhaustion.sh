#!/bin/sh
# When every event of the pool is in flight (KPROF_MAX_EVENTS), calls are counted but left untimed,
# reported as such, and said once on stderr: memory stays bounded and the app never waits.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
FAKEGPU_EVENT_PENDING_QUERIES=100000 KPROF_MAX_EVENTS=8 KPROF_EXIT_TIMEOUT=100 KPROF_FORMAT=json \
    KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/err"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a calls)" 500 "every launch counted"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b calls)" 500 "on both threads"
# (At most 8: a loaded machine may end the run before the pool's last event was needed, 1 in 4 full runs
# of make check -j2 on two CPUs.)
created=$(jqr '.events.created' "$WORK/r.json")
[ "$created" -ge 1 ] && [ "$created" -le 8 ] || fail "$created events created with KPROF_MAX_EVENTS=8"
pass "no more events than KPROF_MAX_EVENTS ($created)"
# 8 events time at most 7 launches on one busy stream (one-event timing) before they come back, which
# they do once a thread's stream is synchronised: a handful of the 1000 launches are timed.
untimed=$(jqr '.events.untimed_no_event' "$WORK/r.json")
[ "$untimed" -ge 980 ] || fail "only $untimed calls untimed for lack of events"
pass "$untimed calls reported untimed for lack of events"
# Said once on stderr (a report whose kernel rows are blank would not say why otherwise).
expect_eq "$(grep -c 'events of a context are in use' "$WORK/err")" 1 "one warning line"
expect_grep '^libkprof: all KPROF_MAX_EVENTS=8 events of a context are in use: calls go untimed' "$WORK/err" \
    "naming the variable and its value"
# The text report says on the row that its Total comes from the launches timed (a new user's helper,
# KPROF_MAX_EVENTS=4: a row of 21 calls, 1 timed, read as measured).
FAKEGPU_EVENT_PENDING_QUERIES=100000 KPROF_MAX_EVENTS=8 KPROF_EXIT_TIMEOUT=100 \
    run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/text"
expect_grep '  \[Total from [1-9][0-9]* of 500 launches timed: see events\]$' "$WORK/text" "the text row says so"
