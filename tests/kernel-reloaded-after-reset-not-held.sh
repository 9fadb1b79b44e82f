#!/bin/sh
# After cudaDeviceReset the primary context may keep its handle (FAKEGPU_REUSE_CTX_HANDLE=1), and every
# module it had loaded is gone.  libkprof remembered the kernel as loaded in that context, so the next
# launch was held (on an idle stream) and then loaded its kernel itself, which "might require context
# synchronization" (CUDA Programming Guide, Lazy Loading): the fake aborts there, as the load would wait
# for the hold (on a GPU, until kprof_hold gives up after 1 ms, the launch read that much long).  A
# context's end now forgets what was loaded ahead of launches, so the kernel is loaded again before the
# hold.  Both launches counted and timed, 1 us each.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS=kernel_c=1000
for reuse in 0 1; do
    FAKEGPU_REUSE_CTX_HANDLE=$reuse KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$reuse.json" \
        run_kprof "$PROGS/reset_relaunch" >"$WORK/out$reuse" 2>"$WORK/err$reuse" ||
        fail "handle reused $reuse: reset_relaunch failed: $(cat "$WORK/out$reuse" "$WORK/err$reuse")"
    expect_grep '^reset_relaunch: ok$' "$WORK/out$reuse" "handle reused $reuse: the program ran to its end"
    expect_eq "$(jq -c '[.kernels[] | [.calls, .timed, .total_ns]]' "$WORK/r$reuse.json")" '[[2,2,2000]]' \
        "handle reused $reuse: both launches counted and timed, 1 us each"
    expect_eq "$(jqr '.events.holds_overdue' "$WORK/r$reuse.json")" 0 "handle reused $reuse: no hold overdue"
done
