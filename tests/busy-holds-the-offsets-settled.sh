#!/bin/sh
# A device's Busy (the union of its kernels' intervals) is never more than its kernel time, and on one
# stream it is that time: under KPROF_HOLD=N the launches read with a learned offset lie on the timeline as
# read, and the offsets settled later moved the kernel times only, so a new-user helper read Busy 10.5 us
# for 10 us of kernels on one stream (Overlap 0.95x) and 8 us beside 10 (1.25x, kernels/multi_gpu on the
# fake stack).  Here 1 us kernels in twos, one event each, 3 us launch calls (Busy read 395.9 us for 400).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_HOST_NS=3000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_clocked "$PROGS/preds" twos >/dev/null 2>"$WORK/err" || fail "preds twos failed: $(cat "$WORK/err")"
[ "$(jqr '.events.unheld_drawn' "$WORK/r.json")" -gt 100 ] || fail "most launches should be read with an offset"
# Busy equal to the kernel time is the point; the kernel time itself within 1% of 400 us (a ThreadSanitizer
# build under a loaded fresh-clone CI run once read 398 us, Busy with it, after 400 in every run before).
expect_eq "$(jq -c '.devices[0] | [.kernels, .busy_ns == .kernel_ns, (.kernel_ns - 400000 | fabs <= 4000)]' "$WORK/r.json")" \
    '[400,true,true]' "one stream: Busy is its kernel time (400 us)"
if [ -x "$KERNELS/multi_gpu" ]; then
    FAKEGPU_DEVICES=2 FAKEGPU_LAUNCH_HOST_NS=3000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/m.json" \
        run_clocked "$KERNELS/multi_gpu" >/dev/null 2>&1 || fail "multi_gpu failed"
    expect_eq "$(jq -c '[.devices[] | .kernel_ns == .busy_ns] | unique' "$WORK/m.json")" '[true]' \
        "multi_gpu, a stream a device: Busy is each device's kernel time"
fi
