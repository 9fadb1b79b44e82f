#!/bin/sh
# On a stream whose work completes as fast as it is queued, the harvester tells which pairs completed by
# cuEventElapsedTime, which answers "not ready" while either event is pending at about a twentieth of a
# cuEventQuery's cost on an H100 (55 to 120 ns against 1.1 to 2.2 us), and a query slows a thread launching
# meanwhile (docs/probes/driver-contention.cu): it asks a query only when the cheap question finds no pair of
# a queue completed.  Before, it asked a query each harvest pass here (349 for 20,000 pairs), and 0.17 a
# pair on an H100 (33,412 for 200,000), where the newest pair of a pass is mostly still pending.
# The fake's truth file (FAKEGPU_TRUTH_QUERIES=1) counts the queries of the thread named kprof-harvester;
# every event completes at once (FAKEGPU_EVENT_PENDING_QUERIES=0).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
n=20000
FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_TRUTH="$WORK/truth" FAKEGPU_TRUTH_QUERIES=1 \
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/kbench" launch --n $n --streams 1 \
    >/dev/null 2>"$WORK/err" || fail "kbench failed: $(cat "$WORK/err")"
calls=$(jq '[.kernels[] | select(.name | test("empty")) | .calls] | add' "$WORK/r.json")
[ "$calls" -ge $n ] || fail "$calls launches of the empty kernel counted, expected $n or more"
timed=$(jq '[.kernels[] | select(.name | test("empty")) | .timed] | add' "$WORK/r.json")
[ "$timed" = "$calls" ] || fail "$timed of $calls launches timed, expected every one"
queries=$(awk '$1 == "queries" && $2 == "harvester_after_first_kernel" {print $3}' "$WORK/truth")
[ -n "$queries" ] || fail "no count of the harvester's queries in the fake's truth file"
[ "$queries" -le $((n / 1000)) ] ||
    fail "the harvester made $queries event queries for $n pairs that completed at once, expected $((n / 1000)) at most"
pass "the harvester made $queries event queries for $n pairs that completed at once"
