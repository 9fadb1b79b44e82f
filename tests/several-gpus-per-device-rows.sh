#!/bin/sh
# Two GPUs: each context gets its events on its own device, the report has a row per device, and a launch
# on another device's stream fails exactly as without libkprof.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/multigpu" ] || skip "fake multi-GPU program not built"
export FAKEGPU_DEVICES=2 FAKEGPU_KERNEL_NS="dev0=4000,dev1=6000"
run_plain "$FAKE/progs/multigpu" >"$WORK/plain.out"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/multigpu" >"$WORK/kprof.out"
diff -u "$WORK/plain.out" "$WORK/kprof.out" || fail "results differ under libkprof"
pass "same results, the failing cross-device launch included"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(jq -c '[.devices[] | [.device, .kernels, .kernel_ns]]' "$WORK/r.json")" '[[0,3,12000],[1,2,12000]]' "a row per device"
expect_eq "$(jq -c '[.context_init[].device] | sort' "$WORK/r.json")" '[0,1]' "a context per device"
