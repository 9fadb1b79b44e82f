#!/bin/sh
# While another tool in the process records kernels through CUPTI's activity API (torch.profiler, through
# Kineto, calls cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)), libkprof runs no kernel of its
# own: no kprof_hold, and no calibration if the context is first used then; otherwise the tool's trace
# holds libkprof's kernels beside the app's (found on the H200: torch.profiler saw 30 kprof_hold kernels in
# a 10-step window, tests/gpu/run-gpu-tests.sh).  libkprof sees the switches on their way to CUPTI (its
# exports come first in the dynamic linker's search); CUPTI's answers are passed back unchanged.
# tests/progs/cupti_window runs against the fake CUPTI of tests/fake (switches only).
. "${top_srcdir:-..}/tests/lib.sh"
# Every launch due a hold gets one (KPROF_HOLD=1), so that what is counted and read does not depend on
# the draw of the default (sampled-holds-learn-each-shapes-offset.sh).
export KPROF_HOLD=1
need_jq
export FAKEGPU_KERNEL_NS="idle_k=3000"
# 9 idle launches, the middle 3 while kernel records are on: 6 held, 3 not (counted), all timed.
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/w.json" run_kprof "$PROGS/cupti_window" window >"$WORK/out" 2>"$WORK/err" ||
    fail "cupti_window failed: $(cat "$WORK/out" "$WORK/err")"
expect_grep 'cupti_window window: ok' "$WORK/out" "the switches reached CUPTI, which answered success"
expect_eq "$(jq -c '[.events.held + .events.held_kernel, .events.not_held_traced]' "$WORK/w.json")" '[6,3]' \
    "held outside the window only"
expect_eq "$(kernel_field "$WORK/w.json" idle_k calls)-$(kernel_field "$WORK/w.json" idle_k timed)" 9-9 "every launch timed"
expect_eq "$(jqr '.calibration[0].state' "$WORK/w.json")" done "calibrated before the window"
KPROF_OUTPUT="$WORK/w.txt" run_kprof "$PROGS/cupti_window" window >/dev/null 2>&1
expect_grep '^Not held while another tool traced kernels through CUPTI 3' "$WORK/w.txt" "the text report says so"
# CUPTI in a library's local scope (dlopened without RTLD_GLOBAL, as Python loads libtorch, whose
# dependency libcupti is then out of a preloaded library's RTLD_NEXT reach): the switches still reach it
# (torch.profiler saw no GPU event when libkprof forwarded through RTLD_NEXT, and a CUPTI tracer loaded
# through CUDA_INJECTION64_PATH crashed), and libkprof still sees them.
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/l.json" run_kprof "$PROGS/cupti_local" local >"$WORK/out" 2>"$WORK/err" ||
    fail "cupti_local failed: $(cat "$WORK/out" "$WORK/err")"
expect_eq "$(jq -c '[.events.held + .events.held_kernel, .events.not_held_traced]' "$WORK/l.json")" '[6,3]' \
    "CUPTI in a local scope: held outside the window only"
# Per-context kernel records count the same; records of copies (MEMCPY) do not.
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/c.json" run_kprof "$PROGS/cupti_window" context >/dev/null 2>&1 ||
    fail "cupti_window context failed"
expect_eq "$(jq -c '[.events.held + .events.held_kernel, .events.not_held_traced]' "$WORK/c.json")" '[6,3]' \
    "per-context kernel records: held outside the window only"
# Kernel records on before the context's first launch: no calibration (its kernels would be traced), so
# no holds either; the report says why.
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/e.json" run_kprof "$PROGS/cupti_window" early >/dev/null 2>&1 ||
    fail "cupti_window early failed"
expect_eq "$(jqr '.calibration[0].state' "$WORK/e.json")" "skipped (another tool was tracing kernels through CUPTI)" \
    "no calibration while kernels are traced"
expect_eq "$(jq -c '[.events.held + .events.held_kernel, (.kernels[] | select(.name == "idle_k") | .timed)]' "$WORK/e.json")" \
    '[0,3]' "no holds, every launch timed"
