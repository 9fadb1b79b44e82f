#!/bin/sh
# vector_add: copies by direction with bytes, GPU time and bandwidth; allocations with peak bytes in use.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_KERNEL_NS="vector_add=7000" FAKEGPU_COPY_PS_PER_BYTE=500
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/vector_add" --no-verify
bytes=$((4194304 * 4))
expect_eq "$(kernel_field "$WORK/r.json" vector_add calls)" 1 "vector_add calls"
expect_eq "$(kernel_field "$WORK/r.json" vector_add total_ns)" 7000 "vector_add time"
expect_eq "$(kernel_field "$WORK/r.json" vector_add block)" "$(printf '[\n  256,\n  1,\n  1\n]')" "block"
expect_eq "$(copy_field "$WORK/r.json" HtoD count)" 2 "HtoD count"
expect_eq "$(copy_field "$WORK/r.json" HtoD bytes)" $((2 * bytes)) "HtoD bytes"
expect_eq "$(copy_field "$WORK/r.json" HtoD total_ns)" $((2 * bytes / 2)) "HtoD time at 2 bytes per ns"
expect_eq "$(copy_field "$WORK/r.json" HtoD gbps)" 2 "HtoD bandwidth (GB/s)"
expect_eq "$(copy_field "$WORK/r.json" DtoH count)" 1 "DtoH count"
expect_eq "$(copy_field "$WORK/r.json" DtoH bytes)" $bytes "DtoH bytes"
expect_eq "$(jqr '.allocations[0].count' "$WORK/r.json")" 3 "allocations"
expect_eq "$(jqr '.allocations[0].bytes' "$WORK/r.json")" $((3 * bytes)) "allocated bytes"
expect_eq "$(jqr '.allocations[0].peak_bytes' "$WORK/r.json")" $((3 * bytes)) "peak"
expect_eq "$(jqr '.allocations[0].in_use_bytes' "$WORK/r.json")" 0 "all freed"
expect_eq "$(jqr '[.api[] | select(.name == "cudaMemcpy")][0].calls' "$WORK/r.json")" 3 "cudaMemcpy in the API table"
