#!/bin/sh
# A context destroyed by one thread while another thread's timed launch is still in its call: the
# destruction (here cudaDeviceReset) waits for that launch to end in libkprof, whose hold word and events
# the context's destruction frees (an AddressSanitizer build saw kprof_hold_release write a freed hold
# word when detached threads launched while the program exited).  The fake's launch of slow_k takes
# 150 ms; main resets the device 30 ms into it.  Without libkprof the reset does not wait.
. "${top_srcdir:-..}/tests/lib.sh"
export FAKEGPU_LAUNCH_SLEEP_US=slow_k=150000
KPROF_OUTPUT="$WORK/report.txt" run_kprof "$PROGS/reset_in_flight" >"$WORK/out" 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "reset_in_flight failed under libkprof"; }
took=$(sed -n 's/^reset_in_flight: reset 0 took \([0-9]*\) ms, launch 0$/\1/p' "$WORK/out")
[ -n "$took" ] || { cat "$WORK/out" >&2; fail "no reset and launch both succeeded"; }
[ "$took" -ge 80 ] || fail "the reset took $took ms: it did not wait for the launch in flight (about 120 ms left)"
[ "$took" -le 1200 ] || fail "the reset took $took ms: more than the 1 s libkprof waits at most"
pass "the reset waited $took ms for the launch in flight"
grep -q 'ERROR: AddressSanitizer\|ThreadSanitizer' "$WORK/err" && { cat "$WORK/err" >&2; fail "a sanitizer report"; }
run_plain "$PROGS/reset_in_flight" >"$WORK/plain" 2>&1 || true
pass "without libkprof: $(cat "$WORK/plain")"
