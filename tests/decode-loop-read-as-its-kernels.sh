#!/bin/sh
# An eager decode loop's pace (PyTorch's torch_decode on the H200: small kernels, each launch a few us of
# host time after the last, the GPU idle at some launches and still busy at others, a token read back each
# step): 8 kernels of 8 to 64 blocks in turn, 2000 steps, host naps drawn between 1 and 12 us, on the fake
# GPU with the virtual host clock: a launch latency of 2.5 us that varies from launch to launch
# (FAKEGPU_LAUNCH_JITTER_NS) and grows with the grid (5 ns a block), events seen complete 4.5 us after
# their stamp (as on the H200), lengths that vary.  Most launches are read with a learned offset there (the
# holds' unheld ones, the one-event ones behind a short backlog with the gap's): each kernel's total within
# 3% of its truth (the twenty-sixth session's build read -0.9 to +0.8% over three seeds, by the draws' chance
# for the kernels whose lengths vary: dk2's references fix its mean within about 0.7%, one standard error;
# an AddressSanitizer build in a parallel make check read dk2 1.9% short once; on the H200
# torch_decode's small kernels read 5 to 49% over CUPTI's, which this model of the loop does not show:
# docs/accuracy.md).  Every launch held (KPROF_HOLD=1): exact but for the lengths' draws.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_HOST_NS=1500 FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_LATENCY_NS=2500 \
    FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS=5 FAKEGPU_LAUNCH_JITTER_NS=0/300/0/800/100/0/2100/50/400 \
    FAKEGPU_EVENT_SEEN_NS=4500 PREDS_NAPS_NS=1000/12000 \
    FAKEGPU_KERNEL_NS=dk0=1000/1100,dk1=3000,dk2=1500/1300/1700,dk3=2000,dk4=1000,dk5=2500,dk6=1200,dk7=800/900
# Each kernel's truth for its 2000 launches, its lengths in turn.
truth='{"dk0":2100000,"dk1":6000000,"dk2":2999800,"dk3":4000000,"dk4":2000000,"dk5":5000000,"dk6":2400000,"dk7":1700000}'
check() { # check JSON PERCENT WHAT
    bad=$(jq -r --argjson t "$truth" --arg p "$2" '.kernels[] | select(.calls != 2000 or
        ((.total_ns - $t[.name]) | fabs) * 100 > ($p | tonumber) * $t[.name]) | "\(.name) \(.calls) \(.total_ns)"' "$1")
    [ -z "$bad" ] || fail "$3: off by more than $2% (name, calls, total_ns; truths $truth): $bad"
    pass "$3: the 8 kernels' totals within $2%"
}
for seed in 1 2; do
    KPROF_SEED=$seed KPROF_FORMAT=json KPROF_OUTPUT="$WORK/d$seed.json" run_clocked "$PROGS/preds" decode \
        >"$WORK/out" 2>&1 || fail "preds decode failed: $(cat "$WORK/out")"
    check "$WORK/d$seed.json" 3 "seed $seed"
    read_offset=$(jqr '.events.unheld_drawn + .events.gap_shared' "$WORK/d$seed.json")
    [ "$read_offset" -ge 8000 ] || fail "seed $seed: $read_offset launches read with an offset, expected most of 16000"
done
KPROF_HOLD=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/h.json" run_clocked "$PROGS/preds" decode >"$WORK/out" 2>&1 ||
    fail "preds decode failed with KPROF_HOLD=1: $(cat "$WORK/out")"
check "$WORK/h.json" 0.1 "KPROF_HOLD=1"
