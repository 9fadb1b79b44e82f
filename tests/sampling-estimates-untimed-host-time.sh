#!/bin/sh
# KPROF_SAMPLE=N: a launch left untimed has its host time read only one time in KPROF_HOST_SAMPLE (64) per
# thread; the api table still counts every launch and its errors, and estimates the launches' total host
# time from the ones read.  Two threads launch 500 kernels each, one thread's launches taking 400 us each
# on the host (FAKEGPU_LAUNCH_SLEEP_US): the total comes out near 500 x 400 us (at least 90% of it; far
# less if the untimed launches were left out or weighed wrongly).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
FAKEGPU_LAUNCH_SLEEP_US="kernel_a=400" KPROF_SAMPLE=16 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/two_threads" >/dev/null || fail "two_threads failed"
row=$(jq -c '.api[] | select(.name == "__cudaLaunchKernel")' "$WORK/r.json")
expect_eq "$(echo "$row" | jq .calls)" 1000 "every launch counted in the api table"
expect_eq "$(echo "$row" | jq .errors)" 0 "no errors"
expect_eq "$(echo "$row" | jq '.total_ns >= 180000000')" true "total host time estimated with the untimed launches ($(echo "$row" | jq .total_ns) ns)"
# An estimate from 16 launches: one slowed down by a sanitizer's runtime weighs 58 times.
[ -n "${SAN_PRELOAD:-}" ] ||
    expect_eq "$(echo "$row" | jq '.total_ns <= 1500000000')" true "and not wildly over"
expect_eq "$(echo "$row" | jq '.min_ns <= .median_ns and .median_ns <= .max_ns and .max_ns >= 400000')" true \
    "min <= median <= max, a slow launch's time the max"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a calls)" 500 "kernel_a: every launch counted"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a timed)" 32 "kernel_a: 1 in 16 timed"

# Failed launches left untimed still count as errors.
KPROF_SAMPLE=1000000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/e.json" run_kprof "$PROGS/errors" >/dev/null
expect_eq "$(jqr '[.api[] | select(.name == "__cudaLaunchKernel")][0].errors' "$WORK/e.json")" 2 \
    "failed untimed launches counted as errors"
expect_eq "$(kernel_field "$WORK/e.json" kernel calls)" 1 "only the good launch counted"
