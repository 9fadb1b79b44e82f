#!/bin/sh
# Under KPROF_HOLD=N each idle stream's queue keeps its last pair's stop event for the stream's next launch
# (which may start there: tests/idle-launches-not-drawn-start-at-the-last-stop.sh).  Those events count
# against the context's KPROF_MAX_EVENTS, and nothing gave them back while their streams stayed idle: a
# helper set to break it found 8 streams launched in turn with KPROF_MAX_EVENTS=8 leaving 1592 of 1600
# launches untimed (7c4e71e: 32 to 48), all events kept and no reference ever measured, so no launch could
# start at a kept stop either.  A context at its limit now takes the kept stops back before a call goes
# untimed.  Here idle_k runs on 8 streams in turn, 100 rounds, each launch waited for, on the fake GPU's
# virtual host clock: with KPROF_MAX_EVENTS=8 at most half the launches may go untimed (the harvester may
# still hold pairs: none alone, 217 in a ThreadSanitizer build on a machine busy with other builds, where
# the bound of one in 8 failed; 1592 of 1600 before the fix), and the timed ones read exactly.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "idle_k=3000"
(export KPROF_MAX_EVENTS=8 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/rr.json" && run_clocked "$PROGS/preds" roundrobin) \
    >/dev/null 2>"$WORK/err" || fail "preds roundrobin failed: $(cat "$WORK/err")"
untimed=$(jqr '.events.untimed_no_event' "$WORK/rr.json")
[ "$untimed" -le 400 ] || fail "KPROF_MAX_EVENTS=8: $untimed of 800 launches untimed for lack of events, expected 400 at most"
pass "KPROF_MAX_EVENTS=8, 8 idle streams: $untimed of 800 launches untimed for lack of events"
calls=$(kernel_field "$WORK/rr.json" idle_k calls) total=$(kernel_field "$WORK/rr.json" idle_k total_ns)
expect_eq "$(jq -c '.kernels[0] | [.calls, .min_ns, .max_ns]' "$WORK/rr.json")" '[800,3000,3000]' "every launch counted, Min and Max 3 us"
[ "$total" -eq 2400000 ] || fail "idle_k's total $total ns, expected 2400000 (800 launches of 3 us)"
pass "kept stops never cost a timed call its events"
