#!/bin/sh
# A device reset while the app's other threads launch (tests/progs/shared_stream.c "resets": 4 threads
# launching on the legacy default stream, the main thread resetting the device 10 times, 20 ms apart).  A
# launch that placed libkprof's hold before a reset may release it after: libkprof's hold words lay in
# pinned memory of cuMemAllocHost, which the reset frees (the fake unmaps it, as the driver does): under
# ThreadSanitizer the release wrote freed memory in 4 runs of 4, and with the memory unmapped the app died
# of a SEGV in kprof_hold_release in 3 of 3.  The words are now a page libkprof owns and registers
# (cuMemHostRegister): the reset ends the registration, not the page.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="tiny_k=1000"
for run in 1 2 3; do
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$run.json" run_kprof "$PROGS/shared_stream" resets >"$WORK/out" 2>&1 ||
        fail "run $run: shared_stream resets failed (exit $?): $(tail -c 1500 "$WORK/out")"
    expect_grep '^shared_stream resets: ok$' "$WORK/out" "run $run: the program ran to its end"
    calls=$(kernel_field "$WORK/r$run.json" tiny_k calls)
    [ "${calls:-0}" -gt 0 ] || fail "run $run: no launch of tiny_k in the report"
    pass "run $run: $calls launches of tiny_k counted across 10 resets"
done
