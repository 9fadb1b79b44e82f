#!/bin/sh
# Holds on every driver launch entry point and across contexts (no bug found; not tested elsewhere: the
# other hold tests use cuLaunchKernel on one context, and the per-thread stream test needs nvcc).  On one
# stream, each launch waited for (held) and then back to back: cuLaunchKernel, cuGraphLaunch in between,
# cuLaunchKernelEx, cuLaunchCooperativeKernel; then cuLaunchKernel_ptsz, cuLaunchKernel on
# CU_STREAM_PER_THREAD, cuLaunchKernelEx_ptsz and cuGraphLaunch_ptsz on the per-thread default stream.  Then
# two contexts made by cuCtxCreate on one thread, switched by cuCtxSetCurrent and push/pop, each launching on
# a stream and its legacy stream.  Every hold is released (the fake aborts a synchronize that waits for one
# for ever), every launch counted, and every kernel launch reads its kernel's length exactly.
. "${top_srcdir:-..}/tests/lib.sh"
# Every launch due a hold gets one (KPROF_HOLD=1); the default holds a sample of them
# (sampled-holds-learn-each-shapes-offset.sh).
export KPROF_HOLD=1
need_jq
export FAKEGPU_LAUNCH_LATENCY_NS=7000 FAKEGPU_HANDOFF_NS="kernel=700,hold=300" \
    FAKEGPU_KERNEL_NS="mix_k=1000,graph_k=2000,ex_k=3000,coop_k=4000,exptsz_k=6000,ptsz_k=5000,c1_k=1500,c2_k=2500"
for mode in mix two_ctx; do
    run_plain "$PROGS/holds" $mode >"$WORK/plain" 2>&1 || fail "holds $mode failed without libkprof"
    rm -f "$WORK/truth"
    FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$mode.json" run_kprof "$PROGS/holds" $mode \
        >"$WORK/out" 2>&1 || fail "holds $mode failed (a hold left in place?): $(cat "$WORK/out")"
    expect_eq "$(cat "$WORK/out")" "$(cat "$WORK/plain")" "$mode: output unchanged"
    truth_matches "$WORK/$mode.json" "$WORK/truth"
done
expect_eq "$(jq -c '[.kernels[] | select(.name != "graph_k") | [.name, .calls, .timed, .min_ns, .max_ns]] | sort' "$WORK/mix.json")" \
    '[["coop_k",6,6,4000,4000],["ex_k",6,6,3000,3000],["exptsz_k",3,3,6000,6000],["mix_k",6,6,1000,1000],["ptsz_k",6,6,5000,5000]]' \
    "mix: every entry point's launches timed exactly"
expect_eq "$(jq -c '[.kernels[] | [.name, .calls, .timed, .total_ns]] | sort' "$WORK/two_ctx.json")" \
    '[["c1_k",15,15,22500],["c2_k",15,15,37500]]' "two contexts: every launch timed exactly"
expect_eq "$(jq -c '.calibration | length' "$WORK/two_ctx.json")" 2 "each context calibrated"
