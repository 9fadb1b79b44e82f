#!/bin/sh
# Nsight Compute (ncu 2025.3) preloads libcuda-injection.so, whose own dlopen answers the CUDA runtime's
# dlopen("libcuda.so.1") with a handle to itself: the runtime's driver entry points, cuInit included, then
# come through the injection's cuGetProcAddress_v2 and never reach libkprof's driver wrappers.  libkprof
# still sees the program's runtime calls; it took the driver for uninitialised (no cuInit seen), never
# noted a context and wrote no report (tests/gpu/ncu-coexist.sh on the H200).  A runtime call that
# succeeded means the driver is initialised.  tests/fake/injshim.c plays the injection's part, preloaded
# first as ncu does: the report has every launch of a shared-cudart program, timed, and its context.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
# A sanitizer's runtime, preloaded ahead of the shim, intercepts dlopen itself: the shim then sees the
# sanitizer as its caller and cannot tell the runtime's dlopen of the driver from libkprof's own.
case $SAN_PRELOAD in ?*) skip "sanitizer build: its dlopen interceptor hides the caller from the shim" ;; esac
[ -e "$FAKE_LIB/libinjshim.so" ] || skip "injection shim not built"
export FAKEGPU_KERNEL_NS="kernel_a=3000,kernel_b=5000"
rc=0
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" \
    LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$FAKE_LIB/libinjshim.so $KPROF_LIB" "$PROGS/two_threads" \
    >/dev/null 2>"$WORK/err" || rc=$?
cat "$WORK/err" >&2
expect_eq "$rc" 0 "the program exits 0"
expect_grep '^injshim: cuGetProcAddress_v2$' "$WORK/err" "the runtime took its driver from the shim"
[ -s "$WORK/r.json" ] || fail "no libkprof report"
pass "libkprof wrote its report"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a calls):$(kernel_field "$WORK/r.json" kernel_a timed)" 500:500 "kernel_a: every launch counted and timed"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b total_ns)" 2500000 "kernel_b: 500 launches of 5 us"
expect_eq "$(jqr '.context_init | length' "$WORK/r.json")" 1 "one context init row"
expect_eq "$(jqr '.context_init[0].api' "$WORK/r.json")" cudaFree "created by the program's cudaFree"
