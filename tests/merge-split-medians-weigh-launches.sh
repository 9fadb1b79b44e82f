#!/bin/sh
# kprof-merge: a process's launch and queue time medians stand for all its launches, however few it timed
# (KPROF_SAMPLE=auto or N), so the merged median weighs them by launches, as the kernel median of medians
# does, not by timed launches.  Process A: 5000 launches of queue_split busy under auto (about 470 timed,
# queue median about 20 ms); B: 500 launches, all timed (median 2.1 ms).  Over the 5500 launches the
# median is A's; weighted by timed launches it read B's.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
MERGE=$top_builddir/tools/kprof-merge
[ -x "$MERGE" ] || skip "kprof-merge not built"
export KPROF_CALIBRATE=0 FAKEGPU_CLOCK_OFFSET_NS=123456789 FAKEGPU_LAUNCH_HOST_NS=2000 \
    FAKEGPU_KERNEL_NS="fill=100000,split_busy=10000" FAKEGPU_EVENT_PENDING_QUERIES=1
clocked() { # clocked NAME N [VAR=VALUE...]: queue_split busy N, its JSON report in $WORK/NAME.json
    name=$1 n=$2; shift 2
    run_clocked "$@" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$name.json" "$PROGS/queue_split" busy "$n" || fail "queue_split busy $n failed"
}
clocked a 5000 KPROF_SAMPLE=auto KPROF_SEED=5 KPROF_SAMPLE_BUDGET=1000000000
clocked b 500
med_a=$(kernel_field "$WORK/a.json" split_busy queue_ns_med)
expect_eq "$(jq -n "$(kernel_field "$WORK/a.json" split_busy timed) < $(kernel_field "$WORK/b.json" split_busy timed)")" true \
    "A timed fewer launches than B"
"$MERGE" -f json -o "$WORK/m.json" "$WORK/a.json" "$WORK/b.json" 2>/dev/null
expect_eq "$(kernel_field "$WORK/m.json" split_busy queue_ns_med)" "$med_a" "merged queue median: A's, which stands for 5000 of 5500 launches"
expect_eq "$(kernel_field "$WORK/m.json" split_busy launch_host_ns_med)" 2000 "merged launch call host time median"
