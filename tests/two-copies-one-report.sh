#!/bin/sh
# Two different copies of libkprof preloaded (two files): the first reports, the second notices it, says
# so in one warning and passes every call through.  Before, both wrote a report.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
mkdir -p "$WORK/other"
cp "$KPROF_LIB" "$WORK/other/libkprof.so"
export FAKEGPU_KERNEL_NS="reduce_blocks=25000,reduce_final=3000"
two() {
    timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$1 $2" "$KERNELS/reduce" --no-verify --iters 5
}
two "$KPROF_LIB" "$WORK/other/libkprof.so" >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; fail "reduce failed"; }
expect_eq "$(grep -c '^== libkprof: report ==$' "$WORK/err")" 1 "one report"
expect_eq "$(grep -c '^libkprof: ' "$WORK/err")" 1 "one warning"
expect_grep "^libkprof: another copy of libkprof is loaded first \\($KPROF_LIB\\); this one \\($WORK/other/libkprof.so\\) stays disabled" \
    "$WORK/err" "the second copy names both"
# The other order, with a JSON report: counts as with one copy.
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    two "$WORK/other/libkprof.so" "$KPROF_LIB" >/dev/null 2>"$WORK/err2" || { cat "$WORK/err2"; fail "reduce failed"; }
truth_matches "$WORK/r.json" "$WORK/truth"
expect_grep "another copy of libkprof is loaded first \\($WORK/other/libkprof.so\\); this one \\($KPROF_LIB\\)" \
    "$WORK/err2" "the copy loaded second stays disabled"
expect_eq "$(grep -c '^libkprof: ' "$WORK/err2")" 1 "and says so once"
