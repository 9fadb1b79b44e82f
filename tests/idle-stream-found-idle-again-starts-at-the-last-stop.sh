#!/bin/sh
# KPROF_HOLD=N (the default, 8): a stream found idle twice in a row is asked again only every IDLE_SKIP + 1
# launches (8 when this test was written); in between, a launch not drawn whose kernel reads blind starts
# at the stream's last stop with one event (idle-launches-not-drawn-start-at-the-last-stop.sh).  The
# launch asked (a query of the last stop) and, finding it complete, recorded a start of its own: in the
# eager decode loop 12.5% of launches, 1.3 to 1.5 us of the launching thread's time each on an H100, for a
# reading then read blind all the same (its offset taken off: KPROF_OFFSET_BLIND), brought to the drawn
# launches' mean.
# Such a launch now keeps the lent stop as its start (read as its kernel's references' mean:
# KPROF_OFFSET_IDLE), as the launches between do.  idle_k (3 us) runs 400 times, each waited for, 50 us
# apart on the virtual host clock: every launch not drawn must start at the last stop (one_event ==
# unheld_drawn, all but the few that came before their kernel read blind; 308 of 341 before, the other 33
# starts of their own read blind), the total stay exact.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "idle_k=3000"
preds_exact paced h8 '[400,1200000,3000,3000]'
shared=$(jqr '.events.one_event' "$WORK/h8.json") unheld=$(jqr '.events.unheld_drawn' "$WORK/h8.json")
own=$(jqr '.events.queries_unasked_not_drawn' "$WORK/h8.json")
[ "$unheld" -ge 300 ] || fail "$unheld launches not drawn, expected most of 400"
# The asked launches' old signature: a start of their own, read blind (33 before, 0 or 1 now).  The launches
# whose kernel was not yet read blind when they came (its references not yet harvested: a start of their
# own, asked after) vary with the harvester's pace: 341 of 341 started at the last stop alone, 326 of 335
# beside the rest of the suite.
[ "$own" -le 2 ] || fail "$own launches not drawn recorded a start of their own and read blind, expected 2 at most"
[ "$shared" -ge $((unheld - 30)) ] ||
    fail "$shared of $unheld launches not drawn started at their stream's last stop, expected all but 30 at most"
expect_eq "$(jq -c '[.traceEvents[] | select((.name // "") | test("idle_k")) | .dur] | unique' "$WORK/h8.trace.json")" '[3]' \
    "every trace row of idle_k 3 us"
pass "launches not drawn that find their stream idle again start at its last stop ($shared of $unheld, $own with a start of their own read blind)"
