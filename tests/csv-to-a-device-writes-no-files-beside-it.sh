#!/bin/sh
# KPROF_FORMAT=csv names its files after KPROF_OUTPUT (BASE.kernels.csv...): a device names no file, and
# /dev/stdout.kernels.csv and ten more were created in /dev (a breaker helper).  /dev/null asks for no
# report: none; /dev/stdout and other devices get the text report, with one warning.
. "${top_srcdir:-..}/tests/lib.sh"
[ -w /dev/null ] || skip "no /dev/null"
before=$(ls /dev | wc -l)
KPROF_FORMAT=csv KPROF_OUTPUT=/dev/null run_kprof "$PROGS/two_threads" >"$WORK/null.out" 2>"$WORK/null.err"
expect_eq "$(grep -c '^libkprof: ' "$WORK/null.err")" 0 "/dev/null: no message"
expect_no_grep '== libkprof' "$WORK/null.out" "/dev/null: no report on stdout"
KPROF_FORMAT=csv KPROF_OUTPUT=/dev/stdout run_kprof "$PROGS/two_threads" >"$WORK/out" 2>"$WORK/err"
expect_grep "^libkprof: KPROF_FORMAT=csv names its files after KPROF_OUTPUT, and '/dev/stdout' is no file; writing the report as text to it$" \
    "$WORK/err" "/dev/stdout: one warning"
expect_eq "$(grep -c '^libkprof: ' "$WORK/err")" 1 "/dev/stdout: that one only"
expect_grep '^== libkprof: kernels ==$' "$WORK/out" "/dev/stdout: the text report there"
expect_eq "$(ls /dev | wc -l)" "$before" "no file created in /dev"
[ -z "$(ls /dev | grep -E '^(null|stdout)\.')" ] || fail "files beside the devices"
pass "none beside the devices"
# A device that takes nothing (/dev/full): the report falls back to stderr, as for the other formats (a
# breaker helper: it was lost, with only the write error said).
if [ -w /dev/full ]; then
    KPROF_FORMAT=csv KPROF_OUTPUT=/dev/full run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/full.err"
    expect_grep "^libkprof: error while writing the report to '/dev/full' \(No space left on device\); writing it to stderr$" \
        "$WORK/full.err" "/dev/full: said"
    expect_grep '^== libkprof: kernels ==$' "$WORK/full.err" "/dev/full: the report on stderr"
fi
