#!/bin/sh
# kernels/first_launch's pattern (tests/gpu/accuracy), 20 rounds on the fake: threads launching at once on
# the legacy default stream, on blocking streams, on the per-thread default stream and on a non-blocking
# stream, each stream created and destroyed by its thread (the fake gives a new stream the handle of the
# last one destroyed).  On an H200 this program read spin4 (legacy) 60 us too long a launch and spin7
# (blocking) 18 us: pairs held the other kind's work.  On the fake every launch reads its kernel's length:
# launches on synchronising streams are ordered, also those begun before libkprof knew both kinds were in
# use, and the legacy stream stays held.  Read from the trace, as each pair's raw length (its duration plus
# what was taken off it): a launch found on an idle stream has the host's launch lag taken off, which on
# the fake (a virtual GPU clock, the host's real one) is however long the host thread took, not GPU time
# (a loaded -O0 build read 0 for a 50 us kernel in about 1 run of 10), while the pair itself stays exact.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_REUSE_STREAM_HANDLE=1 \
    FAKEGPU_KERNEL_NS="spin1=10000,spin2=20000,spin3=30000,spin4=40000,spin5=50000,spin6=60000,spin7=70000,spin8=80000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" \
    run_kprof "$PROGS/legacy_threads" >"$WORK/out" 2>&1 || fail "legacy_threads failed: $(cat "$WORK/out")"
truth_matches "$WORK/r.json" "$WORK/truth"
for n in 1 2 3 4 5 6 7 8; do
    expect_eq "$(jq -r --arg k spin$n '[.traceEvents[] | select(.cat == "kernel" and .name == $k) |
                   ((.dur * 1000 + .args.taken_off_ns) | round)] | "\(min)-\(max)-\(length)"' "$WORK/t.json")" \
        "${n}0000-${n}0000-$(kernel_field "$WORK/r.json" spin$n calls)" "spin$n: every launch's pair holds its own kernel alone"
done
# Under KPROF_SAMPLE the launches left untimed take their turn too, once the context's timed launches are
# ordered (kprof_orders_active): a breaker helper's 4 threads, one launch in three on the legacy stream and
# the others on a blocking stream each, read pairs of up to 11 us for a 1 us kernel (another thread's
# untimed launches inside them) and kernel_a's total 3% over with KPROF_SAMPLE=4, up to 4.5x with auto.
for s in 4 auto; do
    FAKEGPU_KERNEL_NS="kernel_a=1000" KPROF_SAMPLE=$s KPROF_FORMAT=json KPROF_OUTPUT="$WORK/mix$s.json" \
        KPROF_TRACE="$WORK/mix$s.trace" run_kprof "$PROGS/legacy_mix" 4 5000 >"$WORK/out" 2>&1 ||
        fail "legacy_mix failed: $(cat "$WORK/out")"
    expect_eq "$(jq -r '[.traceEvents[] | select(.cat == "kernel") | ((.dur * 1000 + .args.taken_off_ns) | round)] |
                   "\(min)-\(max)"' "$WORK/mix$s.trace")" "1000-1000" "KPROF_SAMPLE=$s: every timed pair holds its own kernel alone"
    expect_eq "$(kernel_field "$WORK/mix$s.json" kernel_a calls)" 20032 "KPROF_SAMPLE=$s: every launch counted"
done
