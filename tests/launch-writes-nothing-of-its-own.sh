#!/bin/sh
# A launch writes nothing to stderr but libkprof's own messages ("libkprof: ..."), whatever the environment:
# a debugging line left in kprof_timing_begin (events.c) printed every timed launch's ordering state to
# stderr when DBGO was set, and called getenv() on every timed launch.
. "${top_srcdir:-..}/tests/lib.sh"
export ORDER_WARM=1 ORDER_ROUNDS=5 DBGO=1
run_plain "$PROGS/order_stress" LBP >"$WORK/plain.out" 2>"$WORK/plain.err" || fail "order_stress failed without libkprof"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/order_stress" LBP >"$WORK/out" 2>"$WORK/err" ||
    fail "order_stress failed: $(cat "$WORK/err")"
expect_eq "$(cat "$WORK/out")" "$(cat "$WORK/plain.out")" "stdout as without libkprof"
expect_eq "$(grep -v '^libkprof: ' "$WORK/err" || true)" "$(cat "$WORK/plain.err")" "stderr: the program's, and libkprof's messages"
