#!/bin/sh
# The text report's memsets table names its first column (the row reads "memset" under it), like the copies
# table above it.
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$FAKE/progs/driverapp" ] || skip "fake driver program not built"
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$FAKE/progs/driverapp" >/dev/null
awk '/^== libkprof: memsets ==/ { getline; print; exit }' "$WORK/r.txt" >"$WORK/header"
expect_grep '^Operation +Count +Bytes +Timed +Total \([a-z]+\) +Avg \([a-z]+\) +GB/s$' "$WORK/header" "memsets header names every column"
expect_grep '^memset +1 ' "$WORK/r.txt" "memset row"
# Without memsets the CSV has its header and no row, as the copies and graphs CSVs (it once had a row of
# zeros named "[CUDA memset]", a memset operation that never happened).
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$top_builddir/kernels/reduce" >/dev/null || : # (its check of the sums fails on the fake)
expect_eq "$(wc -l <"$WORK/c.memsets.csv")" 1 "no memsets: the memsets CSV is its header alone"
expect_eq "$(grep -c '^[0-9]' "$WORK/c.copies.csv")" 2 "the copies CSV, a row per direction used"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/d" run_kprof "$FAKE/progs/driverapp" >/dev/null
expect_eq "$(sed -n '2s/.*\[CUDA memset\],\([0-9]*\),.*/\1/p' "$WORK/d.memsets.csv")" 1 "one memset: its row"
