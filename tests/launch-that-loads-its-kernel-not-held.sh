#!/bin/sh
# A runtime launch by host function pointer (cudaLaunchKernel(func): CUDA 12's nvcc, PyTorch) names no
# driver handle; libkprof asks the runtime for its function (cudaGetFuncBySymbol) and loads it before the
# first launch's start event, as for other launches, so every launch is held and reads its kernel's length
# (first launches too: the fake's lazy load, FAKEGPU_LAZY_LOAD_NS, stays out of the pair).  The lookup
# leaves the app's last-error state as it was: it is not made while an error of the app's is pending
# (late_k's launches: lazy_rt keeps one pending and checks it is still there), and a failed lookup's error
# is cleared.  When the runtime cannot answer (FAKECUDART_NO_FUNC_BY_SYMBOL=1, or an error pending), the
# first launch loads its kernel itself: "Loading kernels might require context synchronization" (CUDA
# Programming Guide, Lazy Loading), and the fake's lazy load waits for the holds of the context, so such a
# launch is not held until one has succeeded (held, it would wait for a hold that libkprof releases only
# once the launch has returned: the fake aborts; a real GPU held by a wait hangs for ever).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAZY_LOAD_NS=30000 FAKEGPU_KERNEL_NS="lead_k=1000,late_k=2000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" \
    run_kprof "$PROGS/lazy_rt" >"$WORK/out" 2>&1 || fail "lazy_rt failed (a hold waited for by a lazy load?): $(cat "$WORK/out")"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(jq -c '[.traceEvents[] | select(.name == "lead_k" or .name == "late_k") | [.name, .args.after]]' "$WORK/t.json")" \
    '[["lead_k","held_kernel"],["lead_k","held"],["lead_k","held"],["late_k","kernel"],["late_k","held"],["late_k","held"]]' \
    "lead_k loaded first and held from its first launch; late_k (an error pending) not at its first"
expect_eq "$(kernel_field "$WORK/r.json" lead_k first_ns)-$(kernel_field "$WORK/r.json" lead_k min_ns)-$(kernel_field "$WORK/r.json" late_k min_ns)" \
    1000-1000-2000 "held launches read their kernels' lengths, lead_k's first too"
FAKECUDART_NO_FUNC_BY_SYMBOL=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/n.json" KPROF_TRACE="$WORK/n.trace.json" \
    run_kprof "$PROGS/lazy_rt" >"$WORK/out" 2>&1 || fail "lazy_rt failed without the lookup: $(cat "$WORK/out")"
expect_eq "$(jq -c '[.traceEvents[] | select(.name == "lead_k" or .name == "late_k") | [.name, .args.after]]' "$WORK/n.trace.json")" \
    '[["lead_k","unknown"],["lead_k","held"],["lead_k","held"],["late_k","kernel"],["late_k","held"],["late_k","held"]]' \
    "without the runtime's answer: first launches not held, the others held"
