#!/bin/sh
# The api table's median and minimum host times per function (as nsys's cuda_api_sum has them): 5
# launches of a kernel whose launch takes 20 ms on the host (FAKEGPU_LAUNCH_SLEEP_US) among 16 of one
# that takes no time to speak of: cuLaunchKernel's median (the 11th of 21) and minimum are fast launches
# (under the slow ones' 20 ms: a fast launch can take a few ms on a loaded machine), its maximum a slow
# one, the median within [min, max]; the columns in all three formats.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_SLEEP_US="slow=20000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/preds" apimix >"$WORK/out" 2>&1 ||
    fail "preds apimix failed: $(cat "$WORK/out")"
row=$(jq -c '.api[] | select(.name == "cuLaunchKernel")' "$WORK/r.json")
expect_eq "$(echo "$row" | jq .calls)" 21 "cuLaunchKernel: 21 calls"
expect_eq "$(echo "$row" | jq '.min_ns < 20000000 and .median_ns < 20000000')" true "min and median: fast launches"
expect_eq "$(echo "$row" | jq '.max_ns >= 20000000')" true "max: a slow launch"
expect_eq "$(echo "$row" | jq '.min_ns <= .median_ns and .median_ns <= .max_ns')" true "min <= median <= max"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/r" run_kprof "$PROGS/preds" apimix >/dev/null 2>&1 || fail "csv run failed"
expect_eq "$(head -n 1 "$WORK/r.api.csv" | cut -d, -f10-)" "name,calls,errors,total_ns,max_ns,median_ns,min_ns" \
    "CSV header: libkprof's columns after nsys's"
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/preds" apimix >/dev/null 2>&1 || fail "text run failed"
expect_grep '^ +Calls +Errors +Total \([a-z]+\) +Avg \([a-z]+\) +Med \([a-z]+\) +Min \([a-z]+\) +Max \([a-z]+\)  API \(host time\)$' \
    "$WORK/r.txt" "text header: Med and Min between Avg and Max"
