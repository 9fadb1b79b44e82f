#!/bin/sh
# KPROF_LOG=debug writes each calibration situation's hand-offs, one value per timed launch of libkprof's
# kernel in the order measured (ns), so that their spread can be read: on an H200 they sit on steps about
# 0.2 us apart, and one process's launches mostly on one step (docs/accuracy.md, "Hand-offs in steps").
# On the fake GPU every launch reads what FAKEGPU_HANDOFF_NS and FAKEGPU_LAUNCH_LATENCY_NS say, 1 ns more
# (the pair is read as float milliseconds, the span as integer ns).
. "${top_srcdir:-..}/tests/lib.sh"
export FAKEGPU_HANDOFF_NS="kernel=700" FAKEGPU_LAUNCH_LATENCY_NS=7000 FAKEGPU_PARAM_NS_PER_KIB=64 FAKEGPU_EVENT_PENDING_QUERIES=0
KPROF_LOG=debug KPROF_OUTPUT=/dev/null run_clocked "$PROGS/preds" idle >"$WORK/out" 2>"$WORK/err" ||
    fail "preds idle failed: $(cat "$WORK/out" "$WORK/err")"
sixteen() { printf ' %s' "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1"; }
expect_grep "^libkprof: calibration idle, 0 HtoD copies beside: hand-offs \(ns\)$(sixteen 7001)\$" "$WORK/err" \
    "idle: the launch latency, each of 16 launches"
expect_grep "^libkprof: calibration held, 0 HtoD copies beside: hand-offs \(ns\)$(sixteen 701)\$" "$WORK/err" \
    "held: the hand-off behind a kernel"
# kprof_calibrate_wide's 32752-byte parameter block: 31.98 KiB beyond 16 bytes at 64 ns a KiB.
expect_grep "^libkprof: calibration [a-z_]+ \(kprof_calibrate_wide\), 0 HtoD copies beside: hand-offs \(ns\)$(sixteen 2747)\$" \
    "$WORK/err" "the wide kernel's launches are named"
# Not without KPROF_LOG=debug.
KPROF_OUTPUT=/dev/null run_clocked "$PROGS/preds" idle >/dev/null 2>"$WORK/err2" || fail "preds idle failed"
expect_no_grep 'calibration .*hand-offs' "$WORK/err2" "nothing at the default log level"
