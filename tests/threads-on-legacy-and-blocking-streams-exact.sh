#!/bin/sh
# kernels/first_launch's pattern (tests/gpu/accuracy), 20 rounds on the fake: threads launching at once on
# the legacy default stream, on blocking streams, on the per-thread default stream and on a non-blocking
# stream, each stream created and destroyed by its thread (the fake gives a new stream the handle of the
# last one destroyed).  On an H200 this program read spin4 (legacy) 60 us too long a launch and spin7
# (blocking) 18 us: pairs held the other kind's work.  On the fake every launch reads its kernel's length:
# launches on synchronising streams are ordered, also those begun before libkprof knew both kinds were in
# use, and the legacy stream stays held.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_REUSE_STREAM_HANDLE=1 \
    FAKEGPU_KERNEL_NS="spin1=10000,spin2=20000,spin3=30000,spin4=40000,spin5=50000,spin6=60000,spin7=70000,spin8=80000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/legacy_threads" >"$WORK/out" 2>&1 || fail "legacy_threads failed: $(cat "$WORK/out")"
truth_matches "$WORK/r.json" "$WORK/truth"
for n in 1 2 3 4 5 6 7 8; do
    expect_eq "$(kernel_field "$WORK/r.json" spin$n min_ns)-$(kernel_field "$WORK/r.json" spin$n max_ns)" \
        "${n}0000-${n}0000" "spin$n: every launch reads its own length"
done
