#!/bin/sh
# libkprof.so exports only the CUDA entry points it interposes (-fvisibility=hidden), each once.
. "${top_srcdir:-..}/tests/lib.sh"
nm -D --defined-only "$KPROF_LIB" | awk '$2 ~ /^[TtWDB]$/ {print $3}' | sort >"$WORK/exports"
cat "$WORK/exports"
expect_no_grep '^(kprof|_kprof)' "$WORK/exports" "no internal symbol exported"
bad=$(grep -Ev '^(__cuda|cuda)' "$WORK/exports" | grep -Ev '^(_init|_fini|__bss_start|_edata|_end)$' || true)
expect_eq "$bad" "" "nothing but CUDA names"
expect_grep '^__cudaLaunchKernel$' "$WORK/exports" "__cudaLaunchKernel exported"
expect_grep '^cudaMemcpyAsync_ptsz$' "$WORK/exports" "cudaMemcpyAsync_ptsz exported"
