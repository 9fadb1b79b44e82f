#!/bin/sh
# A copy of 0 bytes is no copy: the runtime answers cudaMemcpy(..., 0, ...) with success and no work, as it
# does cudaMemset's, which libkprof never counted; the copies' table counted and timed them (a breaker
# helper: HtoD 7 for the fake GPU's 1, its Avg 585 ns for 4,096).  They count in the API table only, and
# the kernel launched after each is still timed.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/zero_bytes" ||
    fail "zero_bytes failed"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(jq -c '[.copies[] | select(.count > 0) | [.direction, .count, .bytes, .timed]]' "$WORK/r.json")" \
    '[["HtoD",1,4096,1]]' "one HtoD copy of 4 KiB, timed"
expect_eq "$(jqr '.copies[] | select(.direction == "HtoD") | .total_ns' "$WORK/r.json")" 4096 "its time (the fake: 1 ns a byte)"
expect_eq "$(jqr '.memsets.count' "$WORK/r.json")" 1 "one memset"
expect_eq "$(jq -c '[.api[] | select(.name | test("^cudaMem(cpy|set)")) | [.name, .calls]]' "$WORK/r.json")" \
    '[["cudaMemcpy",7],["cudaMemcpyAsync",3],["cudaMemset",4],["cudaMemsetAsync",3]]' "every call in the API table"
expect_eq "$(kernel_field "$WORK/r.json" zero_after calls) $(kernel_field "$WORK/r.json" zero_after timed)" "3 3" \
    "the kernels after them counted and timed"
