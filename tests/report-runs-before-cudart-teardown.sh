#!/bin/sh
# cudart releases its context from an atexit handler; libkprof must drain its events and report before
# that, or every pending pair is lost.  The fake keeps each event pending for many queries, so the pairs
# are still in flight when main returns.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=50 FAKEGPU_KERNEL_NS="reduce_blocks=25000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/reduce" --no-verify --iters 20 >/dev/null
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks calls)" 21 "calls"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks timed)" 21 "every pair read before the teardown"
expect_eq "$(jqr '.events.incomplete' "$WORK/r.json")" 0 "none incomplete"
expect_eq "$(jqr '.events.failed' "$WORK/r.json")" 0 "none failed"
