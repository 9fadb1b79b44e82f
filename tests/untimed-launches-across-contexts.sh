#!/bin/sh
# KPROF_SAMPLE leaves all but each kernel's first launch untimed, and an untimed launch takes the thread's
# current context as the one its last call ended with, without asking the driver: a device reset and a
# switch of device between launches still leave every launch counted, the results unchanged and a
# context-init row per context created.  And untimed launches, counted through their sampling numbers, are
# counted exactly with failures, captures and graph replays among them.
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

# Untimed launches are counted through their sampling numbers (one atomic add less each): with captured
# launches (counted apart), graph replays (their nodes counted as launches) and a direct launch mixed in,
# with failed launches, and with launch shapes as rows (KPROF_GROUP=shape), every count is still exact.
unset FAKEGPU_DEVICES
for n in 2 1000000; do
    FAKEGPU_TRUTH="$WORK/gtruth$n" KPROF_SAMPLE=$n KPROF_FORMAT=json KPROF_OUTPUT="$WORK/g$n.json" \
        run_kprof "$FAKE/progs/graphapp" mixed >/dev/null || fail "graphapp mixed failed"
    truth_matches "$WORK/g$n.json" "$WORK/gtruth$n"
    expect_eq "$(kernel_field "$WORK/g$n.json" graph_k1 calls)" 31 "KPROF_SAMPLE=$n: graph_k1 30 nodes and 1 direct launch"
    expect_eq "$(jq -c '[.captured[] | [.mangled, .launches]] | sort' "$WORK/g$n.json")" \
        '[["_Z8graph_k1v",3],["_Z8graph_k2v",2]]' "KPROF_SAMPLE=$n: captured launches counted apart"
    KPROF_SAMPLE=$n KPROF_FORMAT=json KPROF_OUTPUT="$WORK/e$n.json" run_kprof "$PROGS/errors" >/dev/null
    expect_eq "$(kernel_field "$WORK/e$n.json" kernel calls)" 1 "KPROF_SAMPLE=$n: failed launches not counted"
    KPROF_SAMPLE=$n KPROF_GROUP=shape KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s$n.json" run_kprof "$PROGS/two_threads" >/dev/null
    expect_eq "$(jq '[.kernels[].calls] | add' "$WORK/s$n.json")" 1000 "KPROF_SAMPLE=$n, KPROF_GROUP=shape: 1000 launches"
done
expect_eq "$(kernel_field "$WORK/g2.json" direct timed)" 2 "KPROF_SAMPLE=2: direct launches 0 and 2 of 4 timed"
