#!/bin/sh
# "Loading kernels might require context synchronization" (CUDA Programming Guide, Lazy Loading), and the
# fake's lazy load waits for the holds of the context.  A runtime launch by host function pointer
# (cudaLaunchKernel(func), CUDA 12's nvcc) cannot be loaded by libkprof before its first launch, so that
# launch loads its kernel itself: held, it waited for a hold that libkprof releases only once the launch
# has returned (the fake aborts; a real GPU held by a wait hangs for ever).  Such a launch is not held
# until one has succeeded; later launches are.  (Its first launch still holds the load: first_ns.)
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAZY_LOAD_NS=30000 FAKEGPU_KERNEL_NS="lead_k=1000,late_k=2000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" \
    run_kprof "$PROGS/lazy_rt" >"$WORK/out" 2>&1 || fail "lazy_rt failed (a hold waited for by a lazy load?): $(cat "$WORK/out")"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(jq -c '[.traceEvents[] | select(.name == "lead_k" or .name == "late_k") | [.name, .args.after]]' "$WORK/t.json")" \
    '[["lead_k","unknown"],["lead_k","held"],["lead_k","held"],["late_k","kernel"],["late_k","held"],["late_k","held"]]' \
    "first launches not held, the others held"
expect_eq "$(kernel_field "$WORK/r.json" lead_k min_ns)-$(kernel_field "$WORK/r.json" late_k min_ns)" 1000-2000 \
    "held launches read their kernels' lengths"
