#!/bin/sh
# A thread of the app cancelled (pthread_cancel) inside a timed launch, at a cancellation point in the
# driver (the fake's FAKEGPU_LAUNCH_SLEEP_US usleep; tests/progs/shared_stream.c "cancelled"), on a stream
# other threads launch on, then on a blocking stream with the legacy default stream in use (launches
# ordered).  A break-it helper: the cancelled thread kept the stream's turn and the context's order lock,
# and each later launch there waited 200 ms for them (10 launches: 2.0 s in each part, 5 runs of 5); with
# holds on (the default) its hold was never released, and the fake GPU aborted where a GPU would stall.
# Now the cancellation's unwinding ends the timed call as a failed one (KPROF_TIMING_DECLARE).
. "${top_srcdir:-..}/tests/lib.sh"
# GCC 12's AddressSanitizer cannot take a cancellation unwinding through a cleanup: the unwound frames' stack
# redzones stay poisoned (glibc unwinds from pthread_cancel without telling it), and the landing pad's
# __asan_handle_no_return then fails ASan's own CHECK in its sigaltstack interceptor, after libkprof's
# cleanup has run.  ThreadSanitizer and the plain and -O0 builds run it.
case ${SAN_PRELOAD:-} in *libasan*) skip "AddressSanitizer build: ASan's CHECK fails on a cancellation's unwinding" ;; esac
export FAKEGPU_LAUNCH_SLEEP_US=slow=300000
for hold in 0 default; do
    if [ $hold = default ]; then unset KPROF_HOLD; else export KPROF_HOLD=$hold; fi
    KPROF_LOG=info KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/shared_stream" cancelled >"$WORK/out" 2>&1 ||
        fail "KPROF_HOLD=$hold: shared_stream cancelled failed (exit $?): $(grep -v '^fakegpu: launch' "$WORK/out" | tail -c 1500)"
    for part in "shared stream" "legacy stream"; do
        line=$(grep "^shared_stream cancelled: $part: " "$WORK/out") || fail "KPROF_HOLD=$hold: no line for the $part part"
        case $line in *"launcher cancelled,"*) ;; *) fail "KPROF_HOLD=$hold: $part: the launcher was not cancelled: $line" ;; esac
        s=${line##*took }; s=${s% s}
        awk -v s="$s" 'BEGIN { exit !(s < 0.5) }' ||
            fail "KPROF_HOLD=$hold: $part: the 10 launches after the cancelled one took $s s (0.000 without libkprof)"
    done
    expect_no_grep 'waited 200 ms' "$WORK/out" "KPROF_HOLD=$hold: no call waited 200 ms for a turn or the order lock"
    expect_grep 'a thread was cancelled inside a timed CUDA call' "$WORK/out" "KPROF_HOLD=$hold: said once"
    expect_grep 'tiny_k' "$WORK/r.txt" "KPROF_HOLD=$hold: the report written"
done
# A second helper: a thread's first CUDA call, a launch (its nested driver launch timed on its behalf), then
# a launch from the thread's own cleanup as the cancellation unwinds (here a C cleanup built with
# -fexceptions; the helper's C++ destructor of an RAII guard died of a SEGV in 10 runs of 10: the driver
# wrapper took the cleanup's launch for the dead frame's delegated one; this C form ran before the fix as
# well, and guards the path); and a thread cancelled while libkprof's info message, a write(), ended the
# context's calibration: the making of its pool stayed held, and the next launch waited 10 s.
unset KPROF_HOLD
KPROF_LOG=info KPROF_OUTPUT="$WORK/c.txt" run_kprof "$PROGS/shared_stream" cancelledcleanup >"$WORK/c.out" 2>&1 ||
    fail "shared_stream cancelledcleanup failed (exit $?): $(grep -v '^fakegpu: launch' "$WORK/c.out" | tail -c 1500)"
expect_grep "^shared_stream cancelledcleanup: launcher cancelled, its cleanup's launch returned 0$" "$WORK/c.out" \
    "a launch from the cancelled thread's cleanup ran"
KPROF_LOG=info KPROF_OUTPUT="$WORK/k.txt" run_kprof "$PROGS/shared_stream" cancelledcalibration >"$WORK/k.out" 2>&1 ||
    fail "shared_stream cancelledcalibration failed (exit $?): $(grep -v '^fakegpu: launch' "$WORK/k.out" | tail -c 1500)"
line=$(grep '^shared_stream cancelledcalibration: launcher' "$WORK/k.out") || fail "cancelledcalibration: no result line"
s=${line##*took }; s=${s% s}
awk -v s="$s" 'BEGIN { exit !(s < 0.5) }' ||
    fail "cancelledcalibration: the 10 launches after a thread cancelled in the calibration took $s s"
pass "cancelledcalibration: the 10 launches after took $s s"
