#!/bin/sh
# A KPROF_OUTPUT that opens but cannot take the report (/dev/full) gets a warning and the report on
# stderr; a non-UTF-8 kernel name still makes valid (UTF-8) JSON and trace files.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -w /dev/full ] || skip "no /dev/full"
KPROF_OUTPUT=/dev/full run_kprof "$PROGS/two_threads" >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: error while writing the report to '/dev/full' \(No space left on device\); writing it to stderr$" \
    "$WORK/err" "warning"
expect_grep '^== libkprof: end ==$' "$WORK/err" "the whole report on stderr"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" run_kprof "$PROGS/badname" >/dev/null
for f in r.json t.json; do
    iconv -f UTF-8 -t UTF-8 "$WORK/$f" >/dev/null || fail "$f is not UTF-8"
    jq . "$WORK/$f" >/dev/null || fail "$f is not JSON"
    pass "$f is valid UTF-8 JSON"
done
expect_eq "$(jqr '.kernels[0].mangled' "$WORK/r.json")" "$(printf 'bad\357\277\275\357\277\275"\\\n,name')" "bad bytes shown as U+FFFD, the rest escaped"
