#!/bin/sh
# The idle-stream correction takes off the host time from the start event's record to the launch call's
# return, and not the time libkprof's own cuEventQuery (is the start complete: was the stream idle?) takes
# after it.  On the H200 that query waits for a driver lock that other threads' launches hold:
# pipeline_8threads' launches that found their stream idle read 3.5 to 8.4 us short of CUPTI's 20.7 us a
# launch when the query's time was taken off too, 2.2 to 3.7 us short without it.  On the fake GPU's
# virtual host clock, FAKEGPU_QUERY_HOST_NS makes each query on the main thread take that much host time.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_HOST_NS=3000 FAKEGPU_KERNEL_NS=idle_k=3000 KPROF_HOLD=0
# run CALIBRATE JSON [VAR=VALUE...]: preds idle unheld; prints idle_k's [total, min, max]
run() {
    cal=$1 json=$2
    shift 2
    preds_idle "$json" "$@" KPROF_CALIBRATE="$cal"
    jq -c '[.kernels[] | select(.name == "idle_k") | .total_ns, .min_ns, .max_ns]' "$WORK/$json"
}
exact=$(run 0 plain.json)
expect_eq "$exact" '[33000,3000,3000]' "idle launches read exactly"
# Without the fix each launch read 2 us short (1000 ns); the calibration, which times its own idle
# launches the same way, would hide a constant cost, not one that other threads' launches make vary.
expect_eq "$(run 0 query.json FAKEGPU_QUERY_HOST_NS=2000)" "$exact" "a 2 us query is not taken off"
expect_eq "$(run 1 calibrated.json FAKEGPU_QUERY_HOST_NS=2000)" "$exact" "nor with the calibration on"
pass "the idle-stream correction ends at the launch's return"
