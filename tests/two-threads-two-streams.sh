#!/bin/sh
# Two host threads launching on two streams at once: no launch lost or counted twice, every one timed.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="kernel_a=2000,kernel_b=3000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/two_threads"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a calls)" 500 "kernel_a calls"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b calls)" 500 "kernel_b calls"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a timed)" 500 "kernel_a timed"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a total_ns)" 1000000 "kernel_a total"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b total_ns)" 1500000 "kernel_b total"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b name)" "kernel_b(float*)" "demangled"
