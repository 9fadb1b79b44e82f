#!/bin/sh
# A runtime launch goes through libkprof's runtime wrapper and then, inside cudart, its driver wrapper:
# counted and timed once, under the runtime's name for it.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/reduce" --no-verify --iters 3 >/dev/null
truth_matches "$WORK/r.json" "$WORK/truth"
# (cudart records events through cuEventRecord, which libkprof wraps too: the app's cudaEventRecord calls
# are counted once each, under their own name.)
expect_eq "$(jqr '[.api[] | select(.name | startswith("cu") and (startswith("cuda") | not))] | length' "$WORK/r.json")" 0 \
    "no driver call counted inside a runtime call"
expect_eq "$(jqr '[.api[] | select(.name == "cudaEventRecord")][0].calls' "$WORK/r.json")" 6 \
    "the app's 6 cudaEventRecord calls, once each"
expect_eq "$(jqr '.copies | map(.count) | add' "$WORK/r.json")" 2 "each copy once"
created=$(jqr '.events.created' "$WORK/r.json")
pairs=$(jqr '[.kernels[].timed, .copies[].timed] | add' "$WORK/r.json")
[ "$created" -le $((2 * pairs)) ] || fail "$created events created for $pairs timed calls: some call was timed twice"
pass "at most one event pair per timed call ($created events, $pairs calls; events are reused)"
