#!/bin/sh
# KPROF_OUTPUT=/dev/stdout (or /dev/stderr, or a path naming the same file) with the program's output
# redirected to a file: the report is written through the program's own descriptor, after its output,
# and never truncates the file.
. "${top_srcdir:-..}/tests/lib.sh"
P=$PROGS/chatty
KPROF_OUTPUT=/dev/stdout run_kprof "$P" out=200 >"$WORK/out" 2>"$WORK/err"
expect_eq "$(grep -c '^out [0-9]*$' "$WORK/out")" 200 "/dev/stdout: all of the program's output survives"
expect_eq "$(sed -n 1p "$WORK/out")" "out 1" "and comes first"
expect_grep '^== libkprof: end ==$' "$WORK/out" "/dev/stdout: the whole report follows"
expect_no_grep '^libkprof: ' "$WORK/err" "no warning"

KPROF_OUTPUT=/dev/stderr run_kprof "$P" out=0 err=200 2>"$WORK/err2"
expect_eq "$(grep -c '^err [0-9]*$' "$WORK/err2")" 200 "/dev/stderr: all of the program's output survives"
expect_grep '^== libkprof: end ==$' "$WORK/err2" "/dev/stderr: the whole report follows"

KPROF_OUTPUT="$WORK/same" run_kprof "$P" out=200 >"$WORK/same" 2>"$WORK/err3"
expect_eq "$(grep -c '^out [0-9]*$' "$WORK/same")" 200 "the file the program's stdout goes to: its output survives"
expect_grep '^== libkprof: end ==$' "$WORK/same" "and the report follows"
