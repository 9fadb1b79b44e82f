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
# Paused from the start and never resumed: every table says it is empty, the api table included.
KPROF_START=paused run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/never.txt"
expect_grep '^  \(no kernel launches\)$' "$WORK/never.txt" "never resumed: no kernels"
expect_grep '^  \(no API calls counted\)$' "$WORK/never.txt" "and an empty api table says so"
