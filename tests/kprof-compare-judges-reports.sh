#!/bin/sh
# tests/gpu/kprof-compare.py (which judges a libkprof report against a CUPTI trace on GPU machines) passes
# its no-GPU self-test on the fixtures in tests/gpu/testdata: a matching report, a mismatching one, too
# tight a tolerance, --no-copies and --ignore, a truncated CUPTI summary, a missing input.  A counted test,
# so that make check's summary holds it.
. "${top_srcdir:-..}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found: kprof-compare.py's self-test needs it"
sh "$top_srcdir/tests/gpu/compare-selftest.sh" "$top_srcdir/tests/gpu" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; fail "compare-selftest.sh failed"; }
cat "$WORK/out"
expect_eq "$(grep -c '^PASS: kprof-compare ' "$WORK/out")" 6 "every check of the self-test passed"
