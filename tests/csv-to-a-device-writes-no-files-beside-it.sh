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
# A base that names a folder (ends in '/', or is one) or nothing (a pattern that expanded to ''): the
# files were dot-files there, .summary.csv and ten more, without a warning (a breaker helper, as root
# in /); they get the default's names in that folder, with one warning.
mkdir "$WORK/csvdir" "$WORK/cwd"
for base in "$WORK/csvdir/" "$WORK/csvdir"; do
    rm -f "$WORK/csvdir/"* "$WORK/csvdir/".[!.]* 2>/dev/null
    KPROF_FORMAT=csv KPROF_OUTPUT="$base" run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/dir.err"
    expect_grep "^libkprof: KPROF_FORMAT=csv names its files after KPROF_OUTPUT='$base', which names a folder or nothing; writing them as '$WORK/csvdir/kprof\.[0-9]+\.\*\.csv'$" \
        "$WORK/dir.err" "a folder ($base): one warning"
    expect_eq "$(ls -A "$WORK/csvdir" | grep -c '^\.')" 0 "a folder ($base): no dot-files"
    expect_eq "$(ls "$WORK/csvdir" | grep -cE '^kprof\.[0-9]+\.(summary|kernels)\.csv$')" 2 "a folder ($base): kprof.<pid>.*.csv there"
done
(cd "$WORK/cwd" && KPROF_FORMAT=csv KPROF_OUTPUT='%q{KPROF_TEST_UNSET}' run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/empty.err")
expect_grep "^libkprof: KPROF_FORMAT=csv names its files after KPROF_OUTPUT='%q\{KPROF_TEST_UNSET\}', which names a folder or nothing; writing them as 'kprof\.[0-9]+\.\*\.csv'$" \
    "$WORK/empty.err" "a pattern that expands to nothing: one warning"
expect_eq "$(ls -A "$WORK/cwd" | grep -c '^\.')" 0 "a pattern that expands to nothing: no dot-files"
expect_eq "$(ls "$WORK/cwd" | grep -cE '^kprof\.[0-9]+\.summary\.csv$')" 1 "a pattern that expands to nothing: kprof.<pid>.*.csv"
