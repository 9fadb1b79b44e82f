#!/bin/sh
# A KPROF_OUTPUT that cannot be written gets a warning, and the report goes to stderr instead of being lost;
# the run is told at its start too (a new user's long job learned it only at its end).
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
KPROF_OUTPUT="$WORK/no/such/dir/report.txt" run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: cannot write the report to '$WORK/no/such/dir/report.txt' \(No such file or directory\); writing it to stderr$" \
    "$WORK/err" "warning"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "report on stderr"
expect_eq "$(head -n1 "$WORK/err")" \
    "libkprof: KPROF_OUTPUT='$WORK/no/such/dir/report.txt' cannot be written now (No such file or directory); a report at exit tries it again, else goes to stderr" \
    "said at the start, before the program's own output"
# Written once the directory exists by exit (the program makes it, say): no fallback then (sh and mkdir
# also start with libkprof preloaded, and warn at their start).
mkdir -p "$WORK/later"
KPROF_OUTPUT="$WORK/later/sub/r.txt" run_kprof sh -c "mkdir '$WORK/later/sub' && exec '$KERNELS/vector_add' --no-verify --n 64" \
    >/dev/null 2>"$WORK/err2"
expect_eq "$(grep -c '^libkprof: cannot write' "$WORK/err2")" 0 "a directory made during the run: no fallback at exit"
expect_grep '^== libkprof: end ==$' "$WORK/later/sub/r.txt" "and the report written there"
expect_grep 'vector_add\(float const\*, float const\*, float\*, unsigned long\)$' "$WORK/err" "with the kernel"
# A pattern that expands to nothing (an unset %q{VAR}): said at the start, and why at exit, in those words
# (it read "cannot write the report to '' (No such file or directory)" at exit only: a new-user helper).
unset KPROF_TEST_NOPE
KPROF_OUTPUT='%q{KPROF_TEST_NOPE}' run_kprof "$PROGS/named" kA >/dev/null 2>"$WORK/err3"
expect_grep "^libkprof: KPROF_OUTPUT='%q\{KPROF_TEST_NOPE\}' expands to an empty path now \(an unset variable in %q\{VAR\}\?\); a report at exit tries it again, else goes to stderr$" \
    "$WORK/err3" "an empty expansion: warned at the start"
expect_grep "^libkprof: cannot write the report to '' \(the pattern expands to an empty path\); writing it to stderr$" \
    "$WORK/err3" "and why at exit"
expect_grep '^== libkprof: end ==$' "$WORK/err3" "the report on stderr"
# A new file where none can be made whatever the permissions (procfs, sysfs): said at the start too (a
# new-user helper, running as root, whom access() let through, heard it only at exit).
KPROF_OUTPUT=/proc/kprof-no-such-file.txt run_kprof "$PROGS/named" kA >/dev/null 2>"$WORK/err4"
# Both warnings give the one reason (the start said "Permission denied", the exit "No such file or directory":
# a new-user helper).
proc_why='a \/proc or \/sys file system, where no file can be made'
expect_grep "^libkprof: KPROF_OUTPUT='/proc/kprof-no-such-file.txt' cannot be written now \($proc_why\); a report at exit tries it again, else goes to stderr$" \
    "$WORK/err4" "a path under /proc: warned at the start, with why"
expect_grep "^libkprof: cannot write the report to '/proc/kprof-no-such-file.txt' \($proc_why\); writing it to stderr$" \
    "$WORK/err4" "and at exit, with the same reason"
expect_grep '^== libkprof: end ==$' "$WORK/err4" "the report on stderr"
