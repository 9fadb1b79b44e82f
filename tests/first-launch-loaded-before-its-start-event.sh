#!/bin/sh
# Lazy loading: a kernel's first launch in a context loads its module, host work that the GPU idles
# through (FAKEGPU_LAZY_LOAD_NS on the fake).  libkprof loads the kernel (cuFuncIsLoaded, cuFuncLoad)
# before recording the first launch's start event, so the first launch reads its own length like the rest.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAZY_LOAD_NS=30000 FAKEGPU_KERNEL_NS="lazy_a=1000,lazy_b=2000,lazy_c=3000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/preds" lazy >/dev/null || fail "preds lazy failed"
for k in lazy_a:1000 lazy_b:2000 lazy_c:3000; do
    expect_eq "$(kernel_field "$WORK/r.json" "${k%%:*}" first_ns)" "${k#*:}" "${k%%:*}: first launch without its load"
    expect_eq "$(kernel_field "$WORK/r.json" "${k%%:*}" total_ns)" "$((3 * ${k#*:}))" "${k%%:*}: total of 3 launches"
done
