#!/bin/sh
# A runtime launch goes through libkprof's runtime wrapper and then, inside cudart, its driver wrapper:
# counted and timed once, under the runtime's name for it.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/reduce" --no-verify --iters 3 >/dev/null
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(jqr '[.api[] | select(.name | startswith("cu") and (startswith("cuda") | not))] | length' "$WORK/r.json")" 0 \
    "no driver call counted inside a runtime call"
expect_eq "$(jqr '.copies | map(.count) | add' "$WORK/r.json")" 2 "each copy once"
expect_eq "$(jqr '.events.created' "$WORK/r.json")" "$(jqr '[.kernels[].timed, .copies[].timed] | add * 2' "$WORK/r.json")" \
    "one event pair per timed call, no more"
