#!/bin/sh
# KPROF_SAMPLE=N: every launch counted, the first of each kernel and every Nth after it timed; the report
# says so, and estimates the total from the timed launches.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="kernel_a=2000,kernel_b=3000"
KPROF_SAMPLE=16 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/two_threads" >/dev/null
expect_eq "$(jqr .sample_period "$WORK/r.json")" 16 "sample_period in the JSON"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a calls)" 500 "every launch counted"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a timed)" 32 "launches 0, 16, ... 496 timed"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a measured_ns)" 64000 "their measured time"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a total_ns)" 1000000 "total estimated as measured x calls / timed"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b avg_ns)" 3000 "average from the timed launches"
expect_eq "$(jqr '.events.created <= 128' "$WORK/r.json")" true "events only for the timed launches (two each, reused)"
KPROF_SAMPLE=16 run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/text"
expect_grep '^Sampled \(KPROF_SAMPLE=16\): ' "$WORK/text" "the text report says it is sampled"
expect_grep '^Kernel sum and busy time: the timed launches only \(KPROF_SAMPLE\)\.$' "$WORK/text" \
    "the devices table says its sums come from the timed launches"
KPROF_SAMPLE=0 run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/bad"
expect_grep "^libkprof: ignoring KPROF_SAMPLE='0' " "$WORK/bad" "a bad period warns"
