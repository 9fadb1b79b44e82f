#!/bin/sh
# A thread held up between its launch's return and libkprof's record of the stop event (descheduled, or
# waiting on a driver lock) leaves a pair that holds host time after the kernel: the stop is stamped on an
# idle stream.  Found on the H200: pipeline_8threads (8 threads, each HtoD -> kernel -> DtoH) read single
# launches of its 20 us kernel at 560 to 1031 us.  Such a pair is now read as the mean of its kernel's
# launches after the first read as usual, and counted (events.stop_idle).  On the fake GPU's virtual host
# clock, FAKEGPU_RECORD_LATE_US="idle_k=50/3" makes the first event record after every third launch of
# idle_k take 50 us of host time before its event is queued.  The cases after the first were found by a
# helper set to break the rule's first version (which judged from the launch call's start and read the
# kernel's mean over every launch and shape).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_HOST_NS=3000 FAKEGPU_HANDOFF_NS="kernel=700"
# idle_run KPROF_HOLD JSON VAR=VALUE...: preds idle; prints [events.stop_idle, idle_k's total, min and max]
idle_run() {
    hold=$1 json=$2
    shift 2
    preds_idle "$json" "$@" KPROF_HOLD="$hold"
    jq -c '[.events.stop_idle, (.kernels[] | select(.name == "idle_k") | .total_ns, .min_ns, .max_ns)]' "$WORK/$json"
}
# Unheld: launches 3, 6 and 9 read 50 us more without the rule; with it, 3 us each, like the others.
expect_eq "$(idle_run 0 late.json FAKEGPU_KERNEL_NS=idle_k=3000 FAKEGPU_RECORD_LATE_US=idle_k=50/3)" '[3,33000,3000,3000]' \
    "a late stop record: launches 3, 6 and 9 read as the mean (53 us each without the rule)"
KPROF_HOLD=0 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/trace.json.rep" KPROF_TRACE="$WORK/trace.json" FAKEGPU_KERNEL_NS=idle_k=3000 \
    FAKEGPU_RECORD_LATE_US=idle_k=50/3 run_clocked "$PROGS/preds" idle >/dev/null || fail "preds idle, traced, failed"
expect_eq "$(jq -c '[.traceEvents[] | select(.name == "idle_k" and .args.stop_idle)] | length' "$WORK/trace.json")" 3 \
    "the trace marks those launches"
# Held (every launch with KPROF_HOLD=1): the stop is recorded before the hold lets the GPU go, so a delay
# shorter than the hold's timeout is never in the pair and nothing is read as the mean.
expect_eq "$(idle_run 1 held.json FAKEGPU_KERNEL_NS=idle_k=3000 FAKEGPU_RECORD_LATE_US=idle_k=50/3)" '[0,33000,3000,3000]' \
    "held: none read as the mean, each 3 us"
# A delay longer than the hold's timeout (1 ms): the hold gives up, the kernel runs, and the stop is stamped
# on the idle stream after the delay.  Found by a helper (two threads, one synchronizing while the other
# launched, on the virtual clock: a 1 us kernel read 0.75 to 1.36 ms in 1 run of 4); such a pair was read
# as held, nothing taken off (6.03 ms here), and taught its shape's offset as a reference (7.53 ms with
# KPROF_HOLD=8, the unheld launches read with it).  Now counted overdue and read as the kernel's mean.
expect_eq "$(idle_run 1 overdue_late.json FAKEGPU_KERNEL_NS=idle_k=3000 FAKEGPU_RECORD_LATE_US=idle_k=3000/3)" \
    '[3,33000,3000,3000]' "held, its stop's record 3 ms late: read as the mean, each 3 us (6.03 ms in all before)"
expect_eq "$(jqr '.events.holds_overdue' "$WORK/overdue_late.json")" 3 "those three holds counted overdue"
expect_eq "$(idle_run 8 overdue_drawn.json FAKEGPU_KERNEL_NS=idle_k=3000 FAKEGPU_RECORD_LATE_US=idle_k=3000/3)" \
    '[3,33000,3000,3000]' "KPROF_HOLD=8: no reference from them (7.53 ms in all before)"
# Found by a helper set to break that: every other stop record 3 ms late.  The first late pair, before
# its kernel has a mean to be read as, reads as it was (about 2 ms held, 3 ms unheld); and it went into the
# mean that the later ones read as (4.60 ms in all held, 6.88 ms unheld).  Such pairs stay out of it now.
expect_eq "$(idle_run 1 every_other.json FAKEGPU_KERNEL_NS=idle_k=3000 FAKEGPU_RECORD_LATE_US=idle_k=3000/2)" \
    '[4,2032300,3000,2002300]' "held, every other stop late: only the first late one read long (4.60 ms before)"
expect_eq "$(idle_run 0 every_other_unheld.json FAKEGPU_KERNEL_NS=idle_k=3000 FAKEGPU_RECORD_LATE_US=idle_k=3000/2)" \
    '[4,3030000,3000,3000000]' "unheld, every other stop late: only the first late one read long (6.88 ms before)"
# A long launch call before its kernel is queued leaves no host time after the kernel: the idle-stream
# correction reads it exactly (the first version read these 200 and 800 ns kernels all as 200 ns).
expect_eq "$(idle_run 0 slow.json FAKEGPU_KERNEL_NS=idle_k=200/800 FAKEGPU_LAUNCH_SLEEP_US=idle_k=30)" '[0,5200,200,800]' \
    "a slow launch call, short kernels: each read as it ran"
expect_eq "$(idle_run 1 overdue.json FAKEGPU_KERNEL_NS=idle_k=200/800 FAKEGPU_LAUNCH_SLEEP_US=idle_k=5000)" '[0,5200,200,800]' \
    "overdue holds, short kernels: each read as it ran"
# A stop record of 2 us of host time is not a host held up (the first version counted it twice and read
# the 3.5 us launches as 2 us).  The same readings as without the rule: the fake stamps an event at the end
# of its record call, so a 1 us kernel whose stop is recorded as it ends reads 2 us.
expect_eq "$(idle_run 0 rec.json FAKEGPU_EVENT_RECORD_HOST_NS=2000 FAKEGPU_KERNEL_NS=idle_k=1000/3500 FAKEGPU_LAUNCH_SLEEP_US=idle_k=30)" \
    '[0,29500,2000,3500]' "a slow stop record: read as without the rule"
# The mean leaves out the first launch (a cold 40 us one made the late launches read 21.5, 14.1 and 11.3 us).
expect_eq "$(idle_run 0 first.json FAKEGPU_KERNEL_NS=idle_k=40000/3000/3000/3000/3000/3000/3000/3000/3000/3000/3000 \
    FAKEGPU_RECORD_LATE_US=idle_k=60/3)" '[3,70000,3000,3000]' "a cold first launch: the late launches read the steady 3 us"
# A kernel read in two launch shapes (1 and 50 us) has no single mean: its late launches keep their reading
# (the first version read the 50 us shape's late launches as 1 us).
(export FAKEGPU_KERNEL_NS=shape_k=1000/50000 FAKEGPU_RECORD_LATE_US=shape_k=100/2 KPROF_HOLD=0 KPROF_FORMAT=json \
    KPROF_OUTPUT="$WORK/shapes.json" && run_clocked "$PROGS/preds" shapes) >/dev/null || fail "preds shapes failed"
expect_eq "$(jq -c '[.events.stop_idle, (.kernels[] | select(.name == "shape_k") | .max_ns >= 50000)]' "$WORK/shapes.json")" \
    '[0,true]' "two launch shapes: not read as a mean of both"
pass "stop on an idle stream read as the kernel's mean"
