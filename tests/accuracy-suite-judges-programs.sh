#!/bin/sh
# tests/gpu/accuracy_compare.py (the GPU accuracy suite's judge, run by tests/gpu/run-accuracy.sh on GPU
# machines) passes its no-GPU self-test on made-up reports and CUPTI summaries: sums, per-kernel means,
# graphs, unknown counts, failed runs, truncated summaries, kernels paced by the host, the manifest and
# --run inputs.  A counted test, so that a change to the suite's method is checked in CI too.
. "${top_srcdir:-..}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found: accuracy_compare.py's self-test needs it"
python3 "$top_srcdir/tests/gpu/accuracy/compare_selftest.py" >"$WORK/out" 2>&1 ||
    { cat "$WORK/out" >&2; fail "compare_selftest.py failed"; }
cat "$WORK/out"
expect_eq "$(grep -c '^FAIL' "$WORK/out")" 0 "no check of the self-test failed"
expect_eq "$(tail -n 1 "$WORK/out")" "compare_selftest: passed" "the self-test passed"
