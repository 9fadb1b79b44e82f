#!/bin/sh
# The legacy default stream and the blocking streams of a context wait for each other's work (CUDA Runtime
# API, "Stream synchronization behavior").  A pair's start, its kernel and its stop are three calls: when
# another thread queued work on a stream that synchronises with this one between them, the kernel (or the
# stop) waited for that work, and the pair read it as its own (on an H200: a 40 us kernel read 187 us on
# the legacy stream, a 70 us one 135 us on a blocking stream, programs/first_launch).  Once both kinds of
# stream have been timed in a context, libkprof queues a timed launch's hold, start, kernel and stop on
# those streams in one go, so another thread's launch on a
# synchronising stream comes before or after the whole pair.  The fake's slow launches
# (FAKEGPU_LAUNCH_SLEEP_US) let the other thread's launch come while the first is in the driver.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_SLEEP_US="slow=100000" FAKEGPU_KERNEL_NS="bslow_k=1000,leg_k=2000,lslow_k=4000,blk_k=8000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/preds" mixed >"$WORK/out" 2>&1 || fail "preds mixed failed: $(cat "$WORK/out")"
truth_matches "$WORK/r.json" "$WORK/truth"
for k in bslow_k:1000 leg_k:2000 lslow_k:4000 blk_k:8000; do
    expect_eq "$(kernel_field "$WORK/r.json" "${k%:*}" max_ns)" "${k#*:}" \
        "${k%:*}: no launch reads another stream's kernel that waited for it or that it waited for"
done
