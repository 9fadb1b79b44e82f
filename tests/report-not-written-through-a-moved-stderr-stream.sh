#!/bin/sh
# The report goes to descriptor 2, not through the program's stderr stream once that stream writes
# elsewhere: a program that points the variable at stdout (stderr = stdout) got the report on its stdout,
# one that opened a file into it got the report in its data, and one whose stream is wide (fwprintf) lost
# the report without a word (a breaker helper).
. "${top_srcdir:-..}/tests/lib.sh"
run_kprof "$PROGS/stderr_stream" stdout >"$WORK/out" 2>"$WORK/err" || fail "stderr_stream stdout failed"
expect_eq "$(cat "$WORK/out")" "result 42" "stderr = stdout: its stdout holds its output only"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "stderr = stdout: the report on descriptor 2"
expect_grep 'stderr_stream\(\)$' "$WORK/err" "stderr = stdout: with its kernel"
run_kprof "$PROGS/stderr_stream" wide >"$WORK/out2" 2>"$WORK/err2" || fail "stderr_stream wide failed"
expect_eq "$(cat "$WORK/out2")" "result 42" "a wide stderr: its stdout holds its output only"
expect_grep '^stderr_stream: wide$' "$WORK/err2" "a wide stderr: its own line"
expect_grep '^== libkprof: kernels ==$' "$WORK/err2" "a wide stderr: the report, not lost"
expect_grep 'stderr_stream\(\)$' "$WORK/err2" "a wide stderr: with its kernel"
