#!/bin/sh
# A program that closes stderr and opens a file of its own, which gets descriptor 2: libkprof's report
# and messages go to the stderr the process started with, not into the program's data (a breaker helper
# found the text report appended to such a file).
. "${top_srcdir:-..}/tests/lib.sh"
rc=0
run_kprof "$PROGS/stderr_reuse" "$WORK/data.bin" >"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "$rc" 0 "the program ran"
expect_eq "$(cat "$WORK/data.bin")" APPDATA "its data file holds its data only"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "the report on the stderr the process started with"
expect_grep 'stderr_reuse\(\)$' "$WORK/err" "with its kernel"
# A message alike (an output path that cannot be written: one at the start, one at exit).
KPROF_OUTPUT="$WORK/no/such/dir/r.txt" run_kprof "$PROGS/stderr_reuse" "$WORK/data2.bin" >/dev/null 2>"$WORK/err2"
expect_eq "$(cat "$WORK/data2.bin")" APPDATA "a message: not in the data file either"
expect_grep "^libkprof: cannot write the report to '$WORK/no/such/dir/r\.txt'" "$WORK/err2" "the message on the first stderr"
