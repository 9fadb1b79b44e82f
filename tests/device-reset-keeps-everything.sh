#!/bin/sh
# cudaDeviceReset without a synchronize: libkprof reads the context's pending pairs before the reset
# destroys them, and the context created afterwards (even at the same address) gets its own events and
# its own context-init row.  The memory allocated in the context goes with it: after the reset it is no
# longer in use, and the peak is what was in use at once (the helper's `kernels/device_reset` read a peak
# of 32 MiB and 16 MiB in use at exit, for 16 MiB allocated, reset, allocated again and freed).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/resetapp" ] || skip "fake reset program not built"
export FAKEGPU_KERNEL_NS="before=7000,after=9000"
for reuse in 0 1; do
    FAKEGPU_REUSE_CTX_HANDLE=$reuse FAKEGPU_EVENT_PENDING_QUERIES=20 FAKEGPU_TRUTH="$WORK/truth$reuse" \
        KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$reuse.json" run_kprof "$FAKE/progs/resetapp" >/dev/null
    truth_matches "$WORK/r$reuse.json" "$WORK/truth$reuse"
    expect_eq "$(kernel_field "$WORK/r$reuse.json" before timed)" 5 "handle reuse $reuse: pairs before the reset read"
    expect_eq "$(kernel_field "$WORK/r$reuse.json" before total_ns)" 35000 "handle reuse $reuse: with their times"
    expect_eq "$(kernel_field "$WORK/r$reuse.json" after timed)" 3 "handle reuse $reuse: new context timed"
    expect_eq "$(jqr '.context_init | length' "$WORK/r$reuse.json")" 2 "handle reuse $reuse: two context-init rows"
    # Each row says when its creation began (a breaker helper read two identical rows after a reset).
    expect_eq "$(jqr '.context_init[0].start_ns < .context_init[1].start_ns' "$WORK/r$reuse.json")" true \
        "handle reuse $reuse: the second context created later"
    expect_eq "$(jqr '.context_init[0].start_ns + .context_init[0].host_ns <= .context_init[1].start_ns' \
        "$WORK/r$reuse.json")" true "handle reuse $reuse: after the first one's creation ended"
    expect_eq "$(jqr '.events.failed' "$WORK/r$reuse.json")" 0 "handle reuse $reuse: no pair failed"
    mem() { jqr ".allocations[] | select(.kind == \"$1\") | .$2" "$WORK/r$reuse.json"; }
    expect_eq "$(mem device count) $(mem device frees)" "2 1" "handle reuse $reuse: device allocations and frees"
    expect_eq "$(mem device peak_bytes) $(mem device in_use_bytes)" "16777216 0" \
        "handle reuse $reuse: device memory's peak and use at exit (the reset freed the first block)"
    expect_eq "$(mem pinned peak_bytes) $(mem pinned in_use_bytes)" "1048576 0" \
        "handle reuse $reuse: pinned memory freed by the reset"
done
