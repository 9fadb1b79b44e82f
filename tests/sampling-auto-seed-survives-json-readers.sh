#!/bin/sh
# KPROF_SAMPLE=auto without KPROF_SEED: the seed libkprof picks is written to the report (sample_seed) so
# that the run can be repeated.  It must survive JSON readers that hold numbers as doubles (jq 1.6,
# JavaScript): picked below 2^53, the seed jq reads back times the same launches again.  (A budget that
# binds makes the draws depend on the launch rate too, so it is set out of reach here; and a kernel whose
# lengths spread widely is timed longer as its spread is read, which depends on the harvester's pace: the
# lengths here keep each kernel's warm-up at 100.)
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="kernel_a=1000/1400,kernel_b=5000" KPROF_SAMPLE_BUDGET=1000000000
for i in 1 2 3; do
    KPROF_SAMPLE=auto KPROF_FORMAT=json KPROF_OUTPUT="$WORK/a.json" run_kprof "$PROGS/many_launches" 3000 >/dev/null
    raw=$(grep -o '"sample_seed": *[0-9]*' "$WORK/a.json" | grep -o '[0-9]*$')
    seed=$(jqr '.sample_seed' "$WORK/a.json")
    expect_eq "$seed" "$raw" "run $i: the picked seed $raw reads back exactly"
    KPROF_SAMPLE=auto KPROF_SEED="$seed" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/b.json" \
        run_kprof "$PROGS/many_launches" 3000 >/dev/null
    expect_eq "$(jq -c '[.kernels[] | [.timed, .total_ns]]' "$WORK/b.json")" \
        "$(jq -c '[.kernels[] | [.timed, .total_ns]]' "$WORK/a.json")" "run $i: KPROF_SEED=$seed times the same launches"
done
