#!/bin/sh
# KPROF_HOLD=N (the default, 8): a launch not drawn on an idle stream recorded a start event of its own
# (about 1.7 us of the launching thread's time on an H200) and asked after its launch whether that start had
# completed (1.5 to 1.7 us): in an eager decode loop most launches find their stream idle, and both are
# spent on launches whose readings the learned offset brings to the drawn ones' mean anyway
# (docs/performance.md, twentieth session).  Once its kernel's references' mean is known closely, such a
# launch now starts at its stream's last stop (the stream found idle at the last launches, or its last
# pair read, its stop kept for it), asking nothing: its pair holds the host's time since that stop too,
# which its offset takes off (KPROF_OFFSET_BLIND).  Here idle_k (3 us) runs 400 times, each waited for,
# 50 us apart, on the fake GPU's virtual host clock: the total must stay exact, as with every launch held
# (KPROF_HOLD=1), and many launches must start at the last stop.  The test fails if they record starts of
# their own (one_event about 0) or the total moves.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "idle_k=3000"
for h in 8 1; do
    (export KPROF_HOLD=$h KPROF_FORMAT=json KPROF_OUTPUT="$WORK/h$h.json" && run_clocked "$PROGS/preds" paced) \
        >/dev/null 2>"$WORK/err" || fail "preds paced failed with KPROF_HOLD=$h: $(cat "$WORK/err")"
done
expect_eq "$(jq -c '[.kernels[0] | .calls, .total_ns, .min_ns, .max_ns]' "$WORK/h1.json")" '[400,1200000,3000,3000]' \
    "KPROF_HOLD=1: every launch held, each reads 3 us"
expect_eq "$(jq -c '[.kernels[0] | .calls, .total_ns, .min_ns, .max_ns]' "$WORK/h8.json")" '[400,1200000,3000,3000]' \
    "KPROF_HOLD=8: the same total"
shared=$(jqr '.events.one_event' "$WORK/h8.json") held=$(jqr '.events.held' "$WORK/h8.json")
# (287 to 329 of 400 here, even beside two busy loops; 128 once in a -O0 build of a fresh-clone CI run;
# 0 before the change.)
[ "$shared" -ge 40 ] || fail "KPROF_HOLD=8: $shared of 400 launches started at the last stop, expected many (held $held)"
pass "KPROF_HOLD=8: $shared of 400 launches started at their stream's last stop, $held held"
expect_eq "$(jqr '.events.one_event' "$WORK/h1.json")" 0 "KPROF_HOLD=1: none"
# Each such launch reads as its kernel's references' mean, ending at its stop: read as its pair less the
# running offset, a helper set to break it found trace rows of 0 and 97 us where the kernel ran 3 us (host
# times of 10 and 200 us between launches in turn), one of 19.9 ms after a 20 ms pause, and the queue
# time's p95 11.5 us against 8.5.  preds jitter: naps of 200 and 10 us in turn, one of 20 ms; the trace's
# rows must be those of KPROF_HOLD=1, and the queue times close.
for h in 8 1; do
    (export KPROF_HOLD=$h KPROF_TRACE="$WORK/jt$h.json" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/j$h.json" &&
        run_clocked "$PROGS/preds" jitter) >/dev/null 2>"$WORK/err" || fail "preds jitter failed: $(cat "$WORK/err")"
done
[ "$(jqr '.events.one_event' "$WORK/j8.json")" -ge 40 ] || fail "jitter: many launches should start at the last stop"
for h in 8 1; do
    expect_eq "$(jq -c '[.traceEvents[] | select((.name // "") | test("idle_k")) | .dur] | unique' "$WORK/jt$h.json")" '[3]' \
        "jitter, KPROF_HOLD=$h: every trace row of idle_k 3 us"
done
expect_eq "$(kernel_field "$WORK/j8.json" idle_k total_ns)" 1200000 "jitter: the total exact"
# (Held, a launch's queue time holds its hold: 7.7 us with every launch held, 8.5 with 1 in 8, as before.)
q8=$(kernel_field "$WORK/j8.json" idle_k queue_ns_p95) q1=$(kernel_field "$WORK/j1.json" idle_k queue_ns_p95)
[ "$q8" -le $((q1 + 1000)) ] || fail "jitter: the queue time's p95 $q8 ns, expected within 1 us of $q1 (every launch held)"
pass "jitter: the queue time's p95 $q8 ns ($q1 with every launch held)"
# The text report says so.
(export KPROF_OUTPUT="$WORK/h8.txt" && run_clocked "$PROGS/preds" paced) >/dev/null 2>&1
expect_grep '^Launches timed with one event \(at their stream.s last stop\) [0-9]+,' "$WORK/h8.txt" "the text report's events line"
pass "launches not drawn on an idle stream start at its last stop"
