#!/bin/sh
# KPROF_SAMPLE leaves all but each kernel's first launch untimed, and an untimed launch takes the thread's
# current context as the one its last call ended with, without asking the driver: a device reset and a
# switch of device between launches still leave every launch counted, the results unchanged and a
# context-init row per context created.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export KPROF_SAMPLE=1000000
[ -x "$FAKE/progs/resetapp" ] || skip "fake reset program not built"
[ -x "$FAKE/progs/multigpu" ] || skip "fake multi-GPU program not built"
for reuse in 0 1; do
    FAKEGPU_REUSE_CTX_HANDLE=$reuse FAKEGPU_TRUTH="$WORK/truth$reuse" KPROF_FORMAT=json \
        KPROF_OUTPUT="$WORK/r$reuse.json" run_kprof "$FAKE/progs/resetapp" >/dev/null || fail "resetapp failed"
    truth_matches "$WORK/r$reuse.json" "$WORK/truth$reuse"
    expect_eq "$(kernel_field "$WORK/r$reuse.json" after timed)" 1 "handle reuse $reuse: only the first launch after the reset timed"
    expect_eq "$(jqr '.context_init | length' "$WORK/r$reuse.json")" 2 "handle reuse $reuse: two context-init rows"
    expect_eq "$(jqr '[.api[] | select(.name == "__cudaLaunchKernel")][0].calls' "$WORK/r$reuse.json")" 8 \
        "handle reuse $reuse: every launch in the api table"
done
export FAKEGPU_DEVICES=2
run_plain "$FAKE/progs/multigpu" >"$WORK/plain.out"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/multigpu" >"$WORK/kprof.out"
diff -u "$WORK/plain.out" "$WORK/kprof.out" || fail "results differ under libkprof"
pass "same results, the failing cross-device launch included"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(jq -c '[.context_init[].device] | sort' "$WORK/r.json")" '[0,1]' "a context per device"
