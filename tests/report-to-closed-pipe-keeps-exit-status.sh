#!/bin/sh
# The report written to a stderr whose reader has gone (`app 2>&1 | head -1`) does not kill the program
# with SIGPIPE: it exits with its own status, and a SIGPIPE it ignores or blocks stays as it was.
. "${top_srcdir:-..}/tests/lib.sh"
KPROF_TEST_TIMEOUT=20 # read by run_kprof (not exported: libkprof would warn about it)
# chatty prints "out 1", head takes it and exits, chatty sleeps, then the report meets the closed pipe.
{ rc=0; run_kprof "$PROGS/chatty" sleep=300 2>&1 || rc=$?; echo $rc >"$WORK/rc"; } | head -n 1 >"$WORK/first"
expect_eq "$(cat "$WORK/first")" "out 1" "head read the program's first line"
expect_eq "$(cat "$WORK/rc")" 0 "the program's exit status, not SIGPIPE's"
{ rc=0; KPROF_FORMAT=json KPROF_OUTPUT=/dev/stderr run_kprof "$PROGS/chatty" sleep=300 2>&1 || rc=$?; echo $rc >"$WORK/rc"; } | head -n 1 >/dev/null
expect_eq "$(cat "$WORK/rc")" 0 "the same for KPROF_OUTPUT=/dev/stderr"
# A reader that has gone asked for no more: the report is not written to a file of its own instead (as it
# is when standard error cannot take it otherwise: report-not-written-into-a-reused-stderr.sh).
mkdir "$WORK/cwd"
(cd "$WORK/cwd" && { run_kprof "$PROGS/chatty" sleep=300 2>&1; } | head -n 1 >/dev/null)
expect_eq "$(ls "$WORK/cwd")" "" "a reader gone: no report file made instead"
