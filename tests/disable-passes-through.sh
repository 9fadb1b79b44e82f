#!/bin/sh
# KPROF_DISABLE=1 turns libkprof into pure pass-through: same output, no report.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
KPROF_DISABLE=1 run_kprof "$KERNELS/reduce" --no-verify --iters 2 >"$WORK/out" 2>"$WORK/err"
run_plain "$KERNELS/reduce" --no-verify --iters 2 >"$WORK/plain"
diff -u "$WORK/plain" "$WORK/out" || fail "output differs"
expect_no_grep . "$WORK/err" "nothing on stderr"
