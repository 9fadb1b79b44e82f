#!/bin/sh
# The text report's memsets table names its first column (the row reads "memset" under it), like the copies
# table above it.
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$FAKE/progs/driverapp" ] || skip "fake driver program not built"
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$FAKE/progs/driverapp" >/dev/null
awk '/^== libkprof: memsets ==/ { getline; print; exit }' "$WORK/r.txt" >"$WORK/header"
expect_grep '^Operation +Count +Bytes +Timed +Total \([a-z]+\) +Avg \([a-z]+\) +GB/s$' "$WORK/header" "memsets header names every column"
expect_grep '^memset +1 ' "$WORK/r.txt" "memset row"
