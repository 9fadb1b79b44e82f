#!/bin/sh
# A hold (libkprof's kprof_hold kernel, spinning until the launch is queued) stalls every stream that
# shares its hardware queue, and libkprof cannot see which streams do: on an H200, 8 threads launching
# 20 us kernels on a stream each read +100 to +380 us a kernel on average held, against +24 us not held
# (tests/gpu/probe_concurrency.cu).  So a launch is held only while no other stream of its context has
# timed work in flight: beside_k, launched 5 times on an idle stream while long_k's stop on another stream
# is still pending (FAKEGPU_EVENT_PENDING_QUERIES), is not held; its 3 launches once that stream was
# waited for are.  The report counts the launches not held for that reason.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=100000 FAKEGPU_KERNEL_NS="long_k=900000,beside_k=2000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/preds" beside >"$WORK/out" ||
    fail "preds beside failed: $(cat "$WORK/out")"
expect_eq "$(kernel_field "$WORK/r.json" beside_k calls)" 8 "beside_k: 8 launches counted"
expect_eq "$(jq -c '[.events.held, .events.held_kernel, .events.beside_busy]' "$WORK/r.json")" '[3,1,5]' \
    "long_k held (its stream's first launch); beside_k held only once the other stream was done"
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/preds" beside >/dev/null
expect_grep 'not held beside another busy stream 5' "$WORK/r.txt" "the text report counts them"
