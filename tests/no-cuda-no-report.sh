#!/bin/sh
# A process that never touches CUDA runs as without libkprof and writes no report.
. "${top_srcdir:-..}/tests/lib.sh"
run_kprof sh -c 'echo hello' >"$WORK/out" 2>"$WORK/err"
expect_eq "$(cat "$WORK/out")" hello "program output"
expect_no_grep . "$WORK/err" "no report, no message"
KPROF_OUTPUT="$WORK/r.txt" run_kprof sh -c 'true'
[ ! -e "$WORK/r.txt" ] || fail "a report file was written"
pass "no report file"
