#!/bin/sh
# The kernel table's options: KPROF_INCLUDE/KPROF_EXCLUDE (extended regexes on demangled names),
# KPROF_NAMES=mangled, KPROF_TOP=N, KPROF_GROUP=shape; and KPROF_TRACE_LIMIT.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_KERNEL_NS="reduce_blocks=5000"
R="$KERNELS/reduce --no-verify --iters 3"
KPROF_INCLUDE='^reduce_b' KPROF_FORMAT=json KPROF_OUTPUT="$WORK/inc.json" run_kprof $R >/dev/null
expect_eq "$(jq -c '[.kernels[].mangled]' "$WORK/inc.json")" '["_Z13reduce_blocksPKdPdm"]' "KPROF_INCLUDE keeps only matches"
# Nothing matches: the table says no launch was profiled, not that none was made (a new-user helper read
# "(no kernel launches)" above "(2 kernels left out by ...)").
KPROF_INCLUDE='nomatch' KPROF_OUTPUT="$WORK/none.txt" run_kprof $R >/dev/null
expect_grep '^  \(no kernel launches profiled\)$' "$WORK/none.txt" "KPROF_INCLUDE matching nothing: none profiled"
expect_grep '^  \(2 kernels left out by KPROF_INCLUDE/KPROF_EXCLUDE: passed through, not in this table\)$' "$WORK/none.txt" \
    "and the two left out"
KPROF_EXCLUDE='final|nothing' KPROF_FORMAT=json KPROF_OUTPUT="$WORK/exc.json" run_kprof $R >/dev/null
expect_eq "$(jq -c '[.kernels[].mangled]' "$WORK/exc.json")" '["_Z13reduce_blocksPKdPdm"]' "KPROF_EXCLUDE drops matches"
KPROF_EXCLUDE='(' run_kprof $R >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: ignoring KPROF_EXCLUDE='\\(' \\(not an extended regular expression" "$WORK/err" "bad regex warns"
KPROF_NAMES=mangled run_kprof $R 2>"$WORK/mangled" >/dev/null
expect_grep '  _Z13reduce_blocksPKdPdm$' "$WORK/mangled" "KPROF_NAMES=mangled"
KPROF_TOP=1 run_kprof $R 2>"$WORK/top" >/dev/null
expect_grep '^  \(1 more kernel, [0-9.]+% of kernel time, not shown: KPROF_TOP=1\)$' "$WORK/top" "KPROF_TOP=1"
expect_no_grep '  reduce_final' "$WORK/top" "the second kernel is not listed"
KPROF_GROUP=shape KPROF_FORMAT=json KPROF_OUTPUT="$WORK/shape.json" run_kprof $R >/dev/null
expect_eq "$(kernel_field "$WORK/shape.json" reduce_final grid)" "$(printf '[\n  1,\n  1,\n  1\n]')" "shape entry keeps its grid"
KPROF_GROUP=shape run_kprof $R 2>"$WORK/shape.txt" >/dev/null
expect_grep 'reduce_blocks\(double const\*, double\*, unsigned long\) \[1024,1,1\] \[256,1,1\]$' "$WORK/shape.txt" "text shows the shape"
KPROF_TRACE="$WORK/t.json" KPROF_TRACE_LIMIT=3 run_kprof $R >/dev/null 2>"$WORK/err"
expect_eq "$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$WORK/t.json")" 3 "KPROF_TRACE_LIMIT caps the trace"
expect_eq "$(jq '.otherData.dropped_events' "$WORK/t.json")" 7 "and says how many were dropped (8 launches + 2 copies - 3)"
expect_grep '^libkprof: the trace holds the first 3 timed calls; 7 more were dropped' "$WORK/err" "with a warning"
