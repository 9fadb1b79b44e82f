#!/bin/sh
# An unknown KPROF_FORMAT gets one warning naming the variable and the default, and the text report.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
KPROF_FORMAT=xml run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
expect_eq "$(grep -c "^libkprof: ignoring KPROF_FORMAT='xml' (expected text, csv or json); using text$" "$WORK/err")" 1 "one warning"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "text report written"
