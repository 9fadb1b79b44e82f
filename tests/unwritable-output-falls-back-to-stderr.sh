#!/bin/sh
# A KPROF_OUTPUT that cannot be written gets a warning, and the report goes to stderr instead of being lost.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
KPROF_OUTPUT="$WORK/no/such/dir/report.txt" run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: cannot write the report to '$WORK/no/such/dir/report.txt' \(No such file or directory\); writing it to stderr$" \
    "$WORK/err" "warning"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "report on stderr"
expect_grep 'vector_add\(float const\*, float const\*, float\*, unsigned long\)$' "$WORK/err" "with the kernel"
