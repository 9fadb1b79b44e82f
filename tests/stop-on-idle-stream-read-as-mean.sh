#!/bin/sh
# A launch whose host thread is held up after its kernel was queued (a launch call that returns late, a
# thread descheduled or waiting on a driver lock before libkprof records the stop) leaves a pair that
# holds host time after the kernel: its stop is stamped on an idle stream.  Found on the H200:
# pipeline_8threads (8 threads, each HtoD -> kernel -> DtoH) read single launches of its 20 us kernel at
# 560 to 1031 us, and others at 0 (the idle-stream correction took off a launch call that had returned
# long after its kernel ran), 2 to 9 us a launch on the kernel's mean in 4 runs of 7.  Such a pair is now
# read as its kernel's mean so far, and counted (events.stop_idle).  Here, on the fake GPU's virtual host
# clock, every third launch of idle_k returns 50 us after queuing its 3 us kernel.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_HOST_NS=3000 FAKEGPU_HANDOFF_NS="kernel=700" FAKEGPU_KERNEL_NS="idle_k=3000"
export FAKEGPU_LAUNCH_RETURN_LATE_US="idle_k=50/3"
# Unheld (every launch read with the idle-stream correction): without the rule, launches 3, 6 and 9 read 0
# (50 us of host time after the kernel taken off as if before it); with it, 3 us each, like the others.
KPROF_HOLD=0 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/unheld.json" KPROF_TRACE="$WORK/unheld.trace.json" \
    run_clocked "$PROGS/preds" idle >/dev/null || fail "preds idle failed"
expect_eq "$(kernel_field "$WORK/unheld.json" idle_k calls)" 11 "all launches counted"
expect_eq "$(jqr '.events.stop_idle' "$WORK/unheld.json")" 3 "launches 3, 6 and 9: stop stamped on an idle stream"
expect_eq "$(kernel_field "$WORK/unheld.json" idle_k min_ns)-$(kernel_field "$WORK/unheld.json" idle_k max_ns)" 3000-3000 \
    "each launch reads 3 us (0 for the late ones without the rule)"
expect_eq "$(jq -c '[.traceEvents[] | select(.name == "idle_k" and .args.stop_idle) | .dur] | length' \
    "$WORK/unheld.trace.json")" 3 "the trace marks those launches"
# Held (the first 8 launches of a shape, and every one with KPROF_HOLD=1): the stop is recorded before the
# hold lets the GPU go, so the host's delay is never in the pair and nothing is read as the mean.
KPROF_HOLD=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/held.json" run_clocked "$PROGS/preds" idle >/dev/null ||
    fail "preds idle, held, failed"
expect_eq "$(jq -c '[.events.stop_idle, .events.held + .events.held_kernel]' "$WORK/held.json")" '[0,11]' \
    "held: every launch held, none read as the mean"
expect_eq "$(kernel_field "$WORK/held.json" idle_k min_ns)-$(kernel_field "$WORK/held.json" idle_k max_ns)" 3000-3000 \
    "held: each launch reads 3 us"
pass "stop on an idle stream read as the kernel's mean"
