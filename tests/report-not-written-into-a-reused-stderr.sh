#!/bin/sh
# A program that closes stderr and opens a file of its own, which gets descriptor 2: libkprof's report
# and messages go to the stderr the process started with, not into the program's data (a breaker helper
# found the text report appended to such a file).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
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

# The first stderr a pipe: libkprof keeps no copy of it (a breaker helper: a program that gave descriptor
# 2 away, daemon(3), held its caller's `$(...)` for as long as it ran, 3 s for 4 ms), so the report has
# no stderr left here: it goes to kprof.<pid>.txt (.json) in the working directory, not lost.
mkdir "$WORK/cwd"
(cd "$WORK/cwd" && run_kprof "$PROGS/stderr_reuse" "$WORK/data3.bin" 2>&1 >/dev/null | cat >"$WORK/err3")
expect_eq "$(cat "$WORK/data3.bin")" APPDATA "a pipe: the data file holds its data only"
expect_eq "$(cat "$WORK/err3")" "" "a pipe: nothing on it once descriptor 2 is the program's"
set -- "$WORK"/cwd/kprof.*.txt
[ -f "$1" ] || fail "a pipe: no kprof.<pid>.txt in the working directory ($(ls "$WORK/cwd"))"
expect_grep 'stderr_reuse\(\)$' "$1" "a pipe: the report in $(basename "$1")"
expect_eq "$(stat -c %a "$1")" 600 "a pipe: the file created anew, mode 0600"
(cd "$WORK/cwd" && KPROF_FORMAT=json run_kprof "$PROGS/stderr_reuse" "$WORK/data4.bin" 2>&1 >/dev/null | cat >/dev/null)
set -- "$WORK"/cwd/kprof.*.json
expect_eq "$(jq -r '.kernels[0].calls' "$1")" 10 "a pipe, KPROF_FORMAT=json: kprof.<pid>.json"
# KPROF_OUTPUT=/dev/stderr the same: never the file descriptor 2 names now (a second tester: the report
# truncated the program's log, freopen()ed on stderr).
rm -f "$WORK"/cwd/kprof.*
(cd "$WORK/cwd" && KPROF_OUTPUT=/dev/stderr run_kprof "$PROGS/stderr_reuse" "$WORK/data6.bin" 2>&1 >/dev/null | cat >/dev/null)
expect_eq "$(cat "$WORK/data6.bin")" APPDATA "KPROF_OUTPUT=/dev/stderr, a pipe: the data file holds its data only"
set -- "$WORK"/cwd/kprof.*.txt
expect_grep 'stderr_reuse\(\)$' "$1" "KPROF_OUTPUT=/dev/stderr, a pipe: the report in kprof.<pid>.txt"
# Working in / (as a daemon does): the file goes to $TMPDIR instead (a second tester found /kprof.<pid>.txt).
mkdir "$WORK/tmp"
(cd / && TMPDIR=$WORK/tmp run_kprof "$PROGS/stderr_reuse" "$WORK/data7.bin" 2>&1 >/dev/null | cat >/dev/null)
set -- "$WORK"/tmp/kprof.*.txt
expect_grep 'stderr_reuse\(\)$' "$1" "working in /: the report in \$TMPDIR/kprof.<pid>.txt"
[ -z "$(ls / | grep '^kprof\.[0-9]*\.txt$')" ] || fail "working in /: a report file in /"
pass "working in /: none in /"
# Started with descriptor 2 closed (2>&-): the program's first file gets it; the report went into it (a
# second tester); it goes to kprof.<pid>.txt.
rm -f "$WORK"/cwd/kprof.*
(cd "$WORK/cwd" && run_kprof "$PROGS/stderr_reuse" "$WORK/data8.bin" >/dev/null 2>&-)
expect_eq "$(cat "$WORK/data8.bin")" APPDATA "started without stderr: the data file holds its data only"
set -- "$WORK"/cwd/kprof.*.txt
expect_grep 'stderr_reuse\(\)$' "$1" "started without stderr: the report in kprof.<pid>.txt"
# The first stderr a file that the program opens again, read-only, as descriptor 2: the report's writes
# fail, and it was lost without a word (a second tester); it goes to kprof.<pid>.txt.
rm -f "$WORK"/cwd/kprof.*
(cd "$WORK/cwd" && run_kprof "$PROGS/stderr_readonly" "$WORK/log.txt" >/dev/null 2>"$WORK/log.txt")
set -- "$WORK"/cwd/kprof.*.txt
expect_grep 'stderr_readonly\(\)$' "$1" "a read-only descriptor 2: the report in kprof.<pid>.txt"
# Without descriptor 2 being taken, the pipe is written to as before.
run_kprof "$PROGS/many_launches" 10 2>&1 >/dev/null | cat >"$WORK/err5"
expect_grep '^== libkprof: kernels ==$' "$WORK/err5" "a pipe kept: the report on it"
