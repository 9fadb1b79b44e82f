#!/bin/sh
# One-event timing starts a launch at the previous call's stop only when the stream will still be busy when
# the kernel reaches the GPU: the work queued ahead of it (the last pairs not yet started, each as long as
# its kernel has been so far) must outlast twice the host's launch time plus 1 us.  Otherwise the stream
# may run dry during the launch and the shared start would hold the idle gap.  On the fake GPU: 20
# back-to-back launches of a 100 ns kernel get two events each; of a 1 ms kernel, one event after the first.
. "${top_srcdir:-..}/tests/lib.sh"
# Every launch measured in full (KPROF_HOLD=1): the default's sample shares starts across a short backlog
# and learns the gap (sampled-holds-learn-each-shapes-offset.sh).
export KPROF_HOLD=1
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=1000
FAKEGPU_KERNEL_NS=short=100 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/short.json" run_kprof "$PROGS/preds" short >/dev/null
expect_eq "$(jqr '.events.one_event' "$WORK/short.json")" 0 "100 ns kernels: never one event"
expect_eq "$(kernel_field "$WORK/short.json" short max_ns)" 100 "and each its own 100 ns"
FAKEGPU_KERNEL_NS=long=1000000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/long.json" run_kprof "$PROGS/preds" long >/dev/null
expect_eq "$(jqr '.events.one_event' "$WORK/long.json")" 19 "1 ms kernels: one event after the first of the 20"
expect_eq "$(kernel_field "$WORK/long.json" long max_ns)" 1000000 "and each its own 1 ms"
