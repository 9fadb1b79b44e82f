#!/bin/sh
# Per-kernel percentiles: the log-linear histogram's p50..p99.9, min and max against exact nearest-rank
# ones (within 2^-7 relative), its median as nsys computes one (the mean of the two middle samples for an
# even count; with one more sample kept apart, as a kernel's first launch), merge, empty and overflow
# cases, allocation failure; no CUDA involved.
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$PROGS/histogram_test" ] || fail "$PROGS/histogram_test not built"
"$PROGS/histogram_test" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; fail "histogram_test: $(grep -c '^FAIL ' "$WORK/out") checks failed"; }
grep -v '^PASS' "$WORK/out"
pass "histogram_test: $(grep -c '^ok ' "$WORK/out") checks"
