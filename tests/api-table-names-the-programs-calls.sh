#!/bin/sh
# The api table names the calls the program made.  cudart carries out cudaMemsetAsync, cudaMallocAsync,
# cudaEventRecord, cudaGraphLaunch, cudaStreamDestroy... through driver functions that libkprof also
# wraps (cuMemsetD8Async, cuMemAllocAsync...): each call is counted once, under the runtime's name, while
# the driver wrapper still does its work (the memset timed, the graph launch counted, the allocation
# booked).  A program with the static runtime (no runtime call to see) keeps the driver's names.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/rt_calls" >/dev/null
jq -r '.api[] | "\(.name) \(.calls)"' "$WORK/r.json" | sort >"$WORK/api"
sort >"$WORK/expected" <<'API'
__cudaLaunchKernel 1
cudaDeviceGetStreamPriorityRange 1
cudaEventCreate 1
cudaEventRecord 2
cudaEventRecord_ptsz 1
cudaFree 2
cudaFreeAsync 1
cudaGraphInstantiate 1
cudaGraphLaunch 2
cudaMalloc 1
cudaMallocAsync 1
cudaMallocManaged 1
cudaMemGetInfo 1
cudaMemset 1
cudaMemsetAsync 2
cudaMemsetAsync_ptsz 1
cudaStreamCreate 1
cudaStreamCreateWithPriority 1
cudaStreamDestroy 2
cudaStreamIsCapturing 1
cudaStreamSynchronize 1
cudaStreamWaitEvent 1
API
diff -u "$WORK/expected" "$WORK/api" >&2 || fail "the api table differs from the program's calls"
pass "the api table holds the program's calls, each counted once, under the runtime's names"
expect_eq "$(jqr '.memsets.count' "$WORK/r.json")" 4 "the four memsets timed by the driver wrappers"
expect_eq "$(jqr '.graphs[0].calls' "$WORK/r.json")" 2 "both graph launches counted"
expect_eq "$(jqr '[.allocations[] | select(.kind == "device")][0] | "\(.count) \(.frees)"' "$WORK/r.json")" "2 2" \
    "cudaMallocAsync/cudaFreeAsync booked with cudaMalloc/cudaFree"
expect_eq "$(jqr '[.allocations[] | select(.kind == "managed")][0].count' "$WORK/r.json")" 1 "cudaMallocManaged booked"

[ -x "$PROGS/rt_calls_static" ] || fail "progs/rt_calls_static not built"
nm -D "$PROGS/rt_calls_static" | grep -q ' U cuda' && fail "the static program imports cuda* symbols"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s.json" run_kprof "$PROGS/rt_calls_static" >/dev/null
expect_eq "$(jq -r '[.api[].name | select(startswith("cuda") or startswith("__cuda"))] | join(" ")' "$WORK/s.json")" "" \
    "static runtime: no runtime name"
for want in "cuMemsetD8Async 2" "cuMemsetD8Async_ptsz 1" "cuMemsetD8_v2 1" "cuMemAllocAsync 1" "cuEventRecord 2" \
    "cuGraphLaunch 2" "cuStreamDestroy_v2 2" "cuMemFreeAsync 1" "cuGraphInstantiateWithFlags 1"; do
    expect_eq "$(jq -r --arg n "${want% *}" '[.api[] | select(.name == $n)][0].calls' "$WORK/s.json")" "${want#* }" \
        "static runtime: ${want% *} under the driver's name"
done
expect_eq "$(jqr '.memsets.count' "$WORK/s.json")" 4 "static runtime: the same four memsets"
