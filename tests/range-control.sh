#!/bin/sh
# cudaProfilerStart/cudaProfilerStop pause and resume profiling; KPROF_START=paused starts paused, like
# nvprof's --profile-from-start off.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/run.json" run_kprof "$PROGS/range" >/dev/null
expect_eq "$(kernel_field "$WORK/run.json" before calls)" 3 "running from the start: before counted"
expect_eq "$(kernel_field "$WORK/run.json" inside calls)" 2 "inside counted"
expect_eq "$(kernel_field "$WORK/run.json" after calls)" null "after cudaProfilerStop: not counted"
KPROF_START=paused KPROF_FORMAT=json KPROF_OUTPUT="$WORK/paused.json" run_kprof "$PROGS/range" >/dev/null
expect_eq "$(kernel_field "$WORK/paused.json" before calls)" null "paused from the start: before not counted"
expect_eq "$(kernel_field "$WORK/paused.json" inside calls)" 2 "inside counted"
expect_eq "$(kernel_field "$WORK/paused.json" inside timed)" 2 "and timed"
expect_eq "$(kernel_field "$WORK/paused.json" after calls)" null "after: not counted"
