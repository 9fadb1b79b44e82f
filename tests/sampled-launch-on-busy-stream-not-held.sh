#!/bin/sh
# Under KPROF_SAMPLE (N, or auto) no start is shared with the previous call's stop (untimed launches come
# between), but a launch on a stream that stays busy behind the timed work known on it needs no hold
# either: it starts behind that work, as an unsampled one does.  Held, every sampled launch of a busy loop
# cost a kernel launch more (kernels/reduce under KPROF_SAMPLE=auto, every launch timed within its first
# 100: +6.6 us a launch against +3.7 unsampled on an H200).  On the fake GPU: 20 back-to-back launches of a
# 1 ms kernel after a synchronize: only the first is held (it finds the stream idle), and each reads 1 ms.
# On the virtual host clock (run_clocked): on the wall clock a host descheduled for over 1 ms between two
# launches (make -j4 check in a fresh clone, compiling beside it) can let the fake's stream run dry; one run
# there failed (its log was not kept: a pair read longer than its kernel is the likely assertion).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=1000 FAKEGPU_KERNEL_NS=long=1000000
for s in 2 auto; do
    KPROF_SAMPLE=$s KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$s.json" run_clocked "$PROGS/preds" long >/dev/null ||
        fail "preds long failed with KPROF_SAMPLE=$s"
    expect_eq "$(jqr '.events.held' "$WORK/$s.json")" 1 "KPROF_SAMPLE=$s: only the launch on an idle stream held"
    expect_eq "$(kernel_field "$WORK/$s.json" long min_ns)-$(kernel_field "$WORK/$s.json" long max_ns)" 1000000-1000000 \
        "KPROF_SAMPLE=$s: each timed launch its own 1 ms"
done
expect_eq "$(kernel_field "$WORK/auto.json" long timed)" 21 "auto: the first 100 launches of a kernel all timed"
