#!/bin/sh
# Failing CUDA calls return the same error with and without libkprof, and leave the same last-error state;
# failed calls are counted as errors, never timed.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
run_plain "$PROGS/errors" >"$WORK/plain"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/errors" >"$WORK/kprof"
cat "$WORK/kprof"
diff -u "$WORK/plain" "$WORK/kprof" || fail "results or last-error state differ under libkprof"
pass "every result and last-error state identical"
expect_grep 'launch block 2048 +returned +9 ' "$WORK/plain" "the fake rejects a bad block (sanity)"
expect_eq "$(jqr '[.api[] | select(.name == "__cudaLaunchKernel")][0].errors' "$WORK/r.json")" 2 "failed launches counted as errors"
expect_eq "$(kernel_field "$WORK/r.json" kernel calls)" 1 "only the good launch counted"
expect_eq "$(kernel_field "$WORK/r.json" kernel timed)" 1 "and timed"
expect_eq "$(jqr '.events.failed' "$WORK/r.json")" 0 "no event pair failed"
