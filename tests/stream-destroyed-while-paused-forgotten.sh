#!/bin/sh
# A stream destroyed while profiling is stopped (cudaProfilerStop) is forgotten all the same: a blocking
# stream created then may get its handle (FAKEGPU_REUSE_STREAM_HANDLE), and was taken for the destroyed
# non-blocking stream, so its launches were not ordered with the legacy stream's once profiling ran again
# (found on the fake: bd_k, 30 us, read 40 us, with lg_k queued on the legacy stream while bd_k's launch was
# in the driver).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_SLEEP_US="bd=100000" FAKEGPU_EVENT_PENDING_QUERIES=1000 FAKEGPU_REUSE_STREAM_HANDLE=1 \
    FAKEGPU_KERNEL_NS="lg_k=10000,bk_k=20000,bd_k=30000,ne_k=40000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/order_stress" paused >"$WORK/out" 2>&1 || fail "order_stress paused failed: $(cat "$WORK/out")"
expect_grep "stream handle reused" "$WORK/out" "the blocking stream has the destroyed non-blocking one's handle"
for k in lg_k:10000 bk_k:20000 bd_k:30000 ne_k:40000; do
    expect_eq "$(kernel_field "$WORK/r.json" "${k%:*}" max_ns)" "${k#*:}" "${k%:*}: read its own length only"
done
