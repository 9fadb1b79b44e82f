#!/bin/sh
# A program that reaches the driver only through dlopen + dlsym (as Triton's launcher does), and through
# cuGetProcAddress: launches, copies, memsets and allocations all counted.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/driverapp" ] || skip "fake driver program not built"
export FAKEGPU_KERNEL_NS="triton_kernel_0=4000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/driverapp" >/dev/null
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" triton_kernel_0 calls)" 6 "cuLaunchKernel x4 (one via cuGetProcAddress) + cuLaunchKernelEx x2"
expect_eq "$(kernel_field "$WORK/r.json" triton_kernel_0 total_ns)" 24000 "all timed"
expect_eq "$(copy_field "$WORK/r.json" HtoD bytes)" 4096 "cuMemcpyHtoD_v2"
expect_eq "$(jqr '.memsets.count' "$WORK/r.json")" 1 "cuMemsetD32_v2 counted"
expect_eq "$(jqr '.memsets.bytes' "$WORK/r.json")" 4096 "as bytes"
expect_eq "$(jqr '.allocations[0].count' "$WORK/r.json")" 1 "cuMemAlloc_v2"
expect_eq "$(jqr '.allocations[0].in_use_bytes' "$WORK/r.json")" 0 "cuMemFree_v2"
expect_eq "$(jqr '.context_init[0].api' "$WORK/r.json")" cuDevicePrimaryCtxRetain "context init row"
