#!/bin/sh
# stream_overlap: asynchronous copies and kernels on two streams are each timed on their own stream.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_KERNEL_NS="scale_chunk=11000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/stream_overlap" --no-verify --chunks 6
expect_eq "$(kernel_field "$WORK/r.json" scale_chunk calls)" 6 "scale_chunk calls"
expect_eq "$(kernel_field "$WORK/r.json" scale_chunk total_ns)" 66000 "scale_chunk total"
expect_eq "$(copy_field "$WORK/r.json" HtoD count)" 6 "HtoD count"
expect_eq "$(copy_field "$WORK/r.json" HtoD total_ns)" $((6 * 4194304)) "HtoD time"
expect_eq "$(copy_field "$WORK/r.json" DtoH count)" 6 "DtoH count"
expect_eq "$(copy_field "$WORK/r.json" DtoH timed)" 6 "DtoH timed"
expect_eq "$(jqr '[.api[] | select(.name == "cudaMemcpyAsync")][0].calls' "$WORK/r.json")" 12 "cudaMemcpyAsync calls"
expect_eq "$(jqr '[.allocations[] | select(.kind == "pinned")][0].count' "$WORK/r.json")" 2 "pinned host allocations"
expect_eq "$(jqr '[.allocations[] | select(.kind == "pinned")][0].peak_bytes' "$WORK/r.json")" $((2 * 6 * 4194304)) "pinned peak"
expect_eq "$(jqr '[.allocations[] | select(.kind == "pinned")][0].frees' "$WORK/r.json")" 2 "pinned frees"
expect_eq "$(jqr '.context_init[0].api' "$WORK/r.json")" cudaMallocHost "context created by cudaMallocHost"
