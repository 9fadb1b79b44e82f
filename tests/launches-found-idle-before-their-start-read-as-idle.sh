#!/bin/sh
# A launch on an idle stream is read as one (its launch latency taken off: the host's time from its start
# event to the launch's return, and the calibrated idle hand-off) only when libkprof knows the stream was
# idle.  It asked after the launch whether its start had completed; but the host sees an event complete
# only some time after its record (calibrate.h, seen_ns: 3.2 us on the H100, whose launch takes 3.8), so a
# shorter launch found its start pending and was read as behind a kernel on a busy stream, its pair keeping
# the latency.  The calibration asked the same way, left out every idle launch and measured no idle
# hand-off at all.  Now a launch that found its stream's last stop complete before recording its start
# (no start recorded on any stream since) is idle without asking (events: queries_unasked_stream_idle);
# on a stream found idle twice in a row, whose next 7 launches ask nothing, those drawn (the references
# the others' offsets are learned from) while another stream has work in flight, which may keep them from
# being held, ask about the last stop before their start instead of about their start after the launch;
# and the calibration's idle launches are idle by construction.  On the fake GPU: 8 streams of a 2 us one-block kernel launched 1.5 us apart, each idle at
# each launch and never held (the others are busy), events seen 2 us after their record, a 2.5 us launch
# latency (FAKEGPU_DRAINED_IDLE: charged on a stream that ran dry): small_k read +1.54 us a launch, the
# 1 ms long_k +1.5 us and fill_k +0.13 us, the calibration's idle hand-off null.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_DRAINED_IDLE=1 FAKEGPU_SM_SHARING=1 FAKEGPU_KERNEL_NS="small_k=2000,fill_k=20000,long_k=1000000" \
    FAKEGPU_EVENT_SEEN_NS=2000 FAKEGPU_QUERY_HOST_NS=100 FAKEGPU_LAUNCH_HOST_NS=1500 FAKEGPU_LAUNCH_LATENCY_NS=2500 \
    FAKEGPU_HANDOFF_NS=kernel=2500 FAKEGPU_EVENT_PENDING_QUERIES=0
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/f.json" run_clocked "$PROGS/preds" filling >"$WORK/out" 2>&1 ||
    fail "preds filling failed: $(cat "$WORK/out")"
idle=$(jq '.calibration[0].handoff_ns.idle | if . == null then "null" else round end' "$WORK/f.json")
expect_eq "$idle" 2500 "the calibration's idle hand-off (the fake's launch latency)"
# small_k's 460 launches: each stream's first (7 of them, nothing known before it) keeps 4 us, 61 ns a
# launch on average; the rest exact or nearly (86 ns a launch in all; 1535 before).
avg=$(jq '.kernels[] | select(.name == "small_k") | .total_ns / .calls - 2000 | round' "$WORK/f.json")
[ "$avg" -ge -20 ] && [ "$avg" -le 100 ] || fail "small_k read $avg ns a launch over its 2 us, expected at most 100"
pass "small_k: $avg ns a launch over its 2 us (+1535 before)"
expect_totals "$WORK/f.json" 1 "8 streams idle at each launch" fill_k:3200000 long_k:1000000
known=$(jqr '.events.queries_unasked_stream_idle' "$WORK/f.json")
[ "$known" -ge 100 ] || fail "$known launches read as idle unasked, expected 100 or more (about 170)"
pass "$known launches found their stream idle before their start"
# Launches longer than seen_ns: read exact before and after.
FAKEGPU_LAUNCH_HOST_NS=4000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/g.json" run_clocked "$PROGS/preds" filling \
    >"$WORK/out" 2>&1 || fail "preds filling failed: $(cat "$WORK/out")"
avg=$(jq '.kernels[] | select(.name == "small_k") | .total_ns / .calls - 2000 | round' "$WORK/g.json")
[ "$avg" -ge -20 ] && [ "$avg" -le 20 ] || fail "4 us launches: small_k $avg ns a launch over its 2 us, expected 0"
pass "4 us launches: small_k $avg ns a launch over its 2 us"
