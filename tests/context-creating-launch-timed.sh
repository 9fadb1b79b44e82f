#!/bin/sh
# A program whose first CUDA call is a launch: the launch creates the context, so there is none to record
# a start event in when it begins.  libkprof times it through the driver launch cudart makes once the
# context exists, and counts it once: every launch timed, the first one too.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS=first_k=4000
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/first_call" >/dev/null ||
    fail "first_call failed"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" first_k timed)" 3 "all 3 launches timed"
expect_eq "$(kernel_field "$WORK/r.json" first_k first_ns)" 4000 "the context-creating one at its own 4 us"
expect_eq "$(jqr '.context_init[0].api' "$WORK/r.json")" __cudaLaunchKernel "the context's creation goes to the launch"
