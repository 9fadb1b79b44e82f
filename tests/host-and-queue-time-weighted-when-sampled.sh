#!/bin/sh
# KPROF_SAMPLE=auto times a kernel's first 100 launches, then fewer and fewer: its launch and queue time
# percentiles must weigh each timed launch by 1/p (as its total does), else they describe the start of the
# run.  Here the queue grows all run long: 5000 launches of 10 us each called every 2 us behind a 100 us
# fill, launch i (from 0) queued 100 us + 8 us x i, so the median over all launches is 20.092 ms and the
# p95 38.092 ms; unweighted, the timed launches' median read 2.97 ms.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export KPROF_CALIBRATE=0 FAKEGPU_CLOCK_OFFSET_NS=123456789 FAKEGPU_LAUNCH_HOST_NS=2000 \
    FAKEGPU_KERNEL_NS="fill=100000,split_busy=10000" FAKEGPU_EVENT_PENDING_QUERIES=1
for seed in 5 6; do
    run_clocked KPROF_SAMPLE=auto KPROF_SEED=$seed KPROF_SAMPLE_BUDGET=1000000000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/a.json" \
        "$PROGS/queue_split" busy 5000 || fail "queue_split busy 5000 failed"
    timed=$(kernel_field "$WORK/a.json" split_busy timed)
    expect_eq "$(jq -n "$timed < 1000")" true "seed $seed: $timed of 5000 launches timed"
    med=$(kernel_field "$WORK/a.json" split_busy queue_ns_med); p95=$(kernel_field "$WORK/a.json" split_busy queue_ns_p95)
    expect_eq "$(jq -n "($med - 20092000 | fabs) < 0.15 * 20092000")" true "seed $seed: queue median $med ns within 15% of 20.092 ms"
    expect_eq "$(jq -n "($p95 - 38092000 | fabs) < 0.05 * 38092000")" true "seed $seed: queue p95 $p95 ns within 5% of 38.092 ms"
    expect_eq "$(kernel_field "$WORK/a.json" split_busy launch_host_ns_med)" 2000 "seed $seed: launch call host time, median"
done
