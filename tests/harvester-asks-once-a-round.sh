#!/bin/sh
# The harvester asks whether a queue's pairs have completed once for all of them (one stream runs in
# order: the newest of up to 64 completed, so have the ones before it), and pairs queued while a pass read
# the ones before them wait for the next pass.  Before, each of those was asked on its own: on the fake
# GPU's 1-stream loop of 20,000 timed launches the threads other than main (kbench's launching thread,
# libkprof's harvester and calibration) made 10,237 to 12,806 cuEventQuery calls, against 2,950 after, of
# which the launching thread's own are about 2,600 and the harvester's 349 (one a pass).  A cuEventQuery
# costs 1.1 to 2.2 us on an H100 and slows a thread launching meanwhile (docs/probes/driver-contention.cu,
# docs/performance.md).  The truth file (FAKEGPU_TRUTH_QUERIES=1) counts the queries of the thread named
# kprof-harvester; every event answers its first query as a real one does (FAKEGPU_EVENT_PENDING_QUERIES=0:
# the tests' default has each answer "not ready" once, which a real driver does not).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
n=20000
FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_TRUTH="$WORK/truth" FAKEGPU_TRUTH_QUERIES=1 \
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/kbench" launch --n $n --streams 1 \
    >/dev/null 2>"$WORK/err" || fail "kbench failed: $(cat "$WORK/err")"
calls=$(jq '[.kernels[] | select(.name | test("empty")) | .calls] | add' "$WORK/r.json")
[ "$calls" -ge $n ] || fail "$calls launches of the empty kernel counted, expected $n or more"
queries=$(awk '$1 == "queries" && $2 == "harvester_after_first_kernel" {print $3}' "$WORK/truth")
[ -n "$queries" ] || fail "no query count in the fake's truth file"
[ "$queries" -le $((n / 3)) ] ||
    fail "the harvester made $queries event queries for $n pairs, expected $((n / 3)) at most"
pass "the harvester made $queries event queries for $n pairs"
