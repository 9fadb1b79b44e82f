#!/bin/sh
# libkprof's own driver calls never fail on valid input (compute-sanitizer once counted 2 errors in a clean
# program, both libkprof's: cuPointerGetAttribute on pageable host memory).  The fake driver tallies every
# error it returns (FAKEGPU_ERRORS_FILE); under libkprof the tally must be the program's own, unchanged.
# (Not progs/errors: its launch of a function that is no kernel is invalid input, whose name libkprof's
# lookup cannot find either; nor progs/multigpu, whose launch on another device's stream is invalid input
# on which libkprof's event record fails as the launch does.)
# CUDA_ERROR_NOT_READY counts too but from cuEventQuery and cuStreamQuery: compute-sanitizer reports it from
# cuEventElapsedTime as an error (an H100 run of kernels/stream_overlap under it: the harvester asked the
# elapsed time to a 4 MiB HtoD copy's events still pending, beside_htod; fill_first likewise asks another
# stream's filling kernel).  preds htodbesidefirst and htodbesidedeep with events pending for 1000 queries,
# and preds filling, reach both (5, 17 and 26 such answers before the fix).
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
n=0
check() {
    name=$1; shift
    n=$((n + 1))
    FAKEGPU_ERRORS_FILE="$WORK/$n.plain" run_plain "$@" >/dev/null 2>&1 || true
    FAKEGPU_ERRORS_FILE="$WORK/$n.kprof" KPROF_OUTPUT="$WORK/$n.report" run_kprof "$@" >/dev/null 2>"$WORK/$n.err" || true
    [ -f "$WORK/$n.plain" ] && [ -f "$WORK/$n.kprof" ] || fail "$name: the fake driver wrote no error tally"
    [ -s "$WORK/$n.report" ] || { cat "$WORK/$n.err" >&2; fail "$name: no report"; }
    sort "$WORK/$n.plain" >"$WORK/$n.p"
    sort "$WORK/$n.kprof" >"$WORK/$n.k"
    diff -u "$WORK/$n.p" "$WORK/$n.k" >&2 || fail "$name: libkprof's own driver calls got errors (lines with +)"
    pass "$name: the driver returned only the program's own errors ($(wc -l <"$WORK/$n.p" | tr -d ' ') kinds)"
}
check reduce "$KERNELS/reduce" --no-verify
check vector_add "$KERNELS/vector_add" --no-verify
check driverapp "$top_builddir/tests/fake/progs/driverapp"
check managed "$PROGS/managed"
check badname "$PROGS/badname"
check copy_first "$PROGS/copy_first"
F=$top_builddir/tests/fake
check graphapp "$F/progs/graphapp"
check resetapp "$F/progs/resetapp"
check threads8x4 "$F/progs/threads8x4"
check mathapp "$F/progs/mathapp"
check cu12app "$F/progs/cu12app"
check stream_overlap "$KERNELS/stream_overlap" --no-verify
beside="FAKEGPU_KERNEL_NS=near_k=2000,far_k=3000 FAKEGPU_HANDOFF_NS=kernel=700,wait=900,beside_htod=5000"
check htodbesidefirst env FAKEGPU_EVENT_PENDING_QUERIES=1000 $beside "$PROGS/preds" htodbesidefirst
check htodbesidedeep env FAKEGPU_EVENT_PENDING_QUERIES=1000 $beside "$PROGS/preds" htodbesidedeep
check filling env FAKEGPU_SM_SHARING=1 FAKEGPU_KERNEL_NS="small_k=10000,fill_k=20000,long_k=1000000" \
    "$PROGS/preds" filling
[ ! -x "$F/static/reduce" ] || check static-reduce "$F/static/reduce" --no-verify
