#!/bin/sh
# quick_exit() runs only at_quick_exit handlers: libkprof registers its report there too, so the report
# is not lost, and the exit status passes through; and, as quick_exit flushes no stdio stream, neither
# does libkprof then (a breaker helper found the program's unflushed output written).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
rc=0
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/quick_exit" >"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "$rc" 4 "the program's quick_exit status passes through"
expect_grep 'quick_exit: ok' "$WORK/out" "the program ran"
expect_no_grep 'never flushed' "$WORK/out" "the line left in stdout's buffer is not written"
[ -s "$WORK/r.json" ] || { cat "$WORK/err" >&2; fail "no report after quick_exit"; }
expect_eq "$(kernel_field "$WORK/r.json" quick_kern calls)" 3 "the report counts its launches"
expect_eq "$(kernel_field "$WORK/r.json" quick_kern timed)" 3 "with their pairs read"
