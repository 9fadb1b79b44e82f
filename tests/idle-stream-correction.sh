#!/bin/sh
# The idle-stream correction: when a call's start event has already completed by the time the call
# returns, the stream was idle and the pair also holds the host's launch latency, which libkprof takes
# off.  The fake GPU has no launch latency, so with events that complete at once the correction can only
# make the reported time shorter than the exact one, by the host time between the start event and the
# launch's return (well under 1 ms); with events still pending (a busy stream) times stay exact.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_KERNEL_NS="reduce_blocks=5000000"
FAKEGPU_EVENT_PENDING_QUERIES=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/busy.json" run_kprof "$KERNELS/reduce" --no-verify --iters 3 >/dev/null
expect_eq "$(kernel_field "$WORK/busy.json" reduce_blocks avg_ns)" 5000000 "busy stream: exact"
# (KPROF_CALIBRATE=0: the calibration's idle case, which corrects this correction, means nothing on a GPU
# whose clock does not run with the host's.)
KPROF_CALIBRATE=0 FAKEGPU_EVENT_PENDING_QUERIES=0 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/idle.json" \
    run_kprof "$KERNELS/reduce" --no-verify --iters 3 >/dev/null
avg=$(kernel_field "$WORK/idle.json" reduce_blocks avg_ns)
[ "$avg" -lt 5000000 ] && [ "$avg" -gt 4000000 ] || fail "idle stream: average $avg ns, expected a little under 5000000"
pass "idle stream: launch latency taken off ($avg ns)"
