#!/bin/sh
# The legacy default stream and the blocking streams of a context wait for each other's work (CUDA Runtime
# API, "Stream synchronization behavior").  A pair's start, its kernel and its stop are three calls: when
# another thread queued work on a stream that synchronises with this one between them, the kernel (or the
# stop) waited for that work, and the pair read it as its own (on an H200: a 40 us kernel read 187 us on
# the legacy stream, a 70 us one 135 us on a blocking stream, programs/first_launch).  Once both kinds of
# stream have been timed in a context, libkprof queues a timed launch's hold, start, kernel and stop on
# those streams in one go, so another thread's launch on a
# synchronising stream comes before or after the whole pair.  The fake's slow launches
# (FAKEGPU_LAUNCH_SLEEP_US) let the other thread's launch come while the first is in the driver; the last
# slow launch is queued behind a long kernel on a busy stream, and starts at that kernel's stop.  The
# blocking stream gets the handle of a non-blocking stream destroyed before it (FAKEGPU_REUSE_STREAM_HANDLE;
# seen on the fake in a first_launch-like program: libkprof took the new stream for the old one's kind).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_SLEEP_US="slow=100000" FAKEGPU_EVENT_PENDING_QUERIES=1000 FAKEGPU_REUSE_STREAM_HANDLE=1 \
    FAKEGPU_KERNEL_NS="nb_k=1000,bslow_k=1000,leg_k=2000,lslow_k=4000,blk_k=8000,blong_k=1000000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/preds" mixed >"$WORK/out" 2>&1 || fail "preds mixed failed: $(cat "$WORK/out")"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_grep "stream handle reused" "$WORK/out" "the blocking stream has the destroyed non-blocking one's handle"
expect_eq "$(jqr '.events.one_event' "$WORK/r.json")" 1 "bslow_k behind blong_k started at its stop (one event)"
for k in nb_k:1000 bslow_k:1000 leg_k:2000 lslow_k:4000 blk_k:8000 blong_k:1000000; do
    expect_eq "$(kernel_field "$WORK/r.json" "${k%:*}" max_ns)" "${k#*:}" \
        "${k%:*}: no launch reads another stream's kernel that waited for it or that it waited for"
done
