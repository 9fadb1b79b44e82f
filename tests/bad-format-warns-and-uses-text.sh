#!/bin/sh
# An unknown KPROF_FORMAT gets one warning naming the variable and the default, and the text report;
# words are read whatever their case.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
KPROF_FORMAT=xml run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
expect_eq "$(grep -c "^libkprof: ignoring KPROF_FORMAT='xml' (expected text, csv or json); using text$" "$WORK/err")" 1 "one warning"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "text report written"
# White space around a value is ignored alike for words and numbers.
KPROF_FORMAT=' json ' KPROF_ONE_EVENT=' 0' KPROF_SAMPLE='4 ' KPROF_OUTPUT="$WORK/ws.json" \
    run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/ws.err"
expect_no_grep '^libkprof: ignoring' "$WORK/ws.err" "no warning for ' json ', ' 0', '4 '"
expect_eq "$(jq -r .sample_period "$WORK/ws.json")" 4 "KPROF_SAMPLE='4 ' read as 4, in a JSON report"
# Words are read whatever their case (a new user's KPROF_FORMAT=JSON was refused).
KPROF_FORMAT=JSON KPROF_GROUP=Shape KPROF_SAMPLE=Auto KPROF_OUTPUT="$WORK/case.json" \
    run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/case.err"
expect_no_grep '^libkprof: ignoring' "$WORK/case.err" "no warning for JSON, Shape, Auto"
expect_eq "$(jq -r '[.sample_period, .group] | @csv' "$WORK/case.json")" '0,"shape"' "read as json, shape and auto"
