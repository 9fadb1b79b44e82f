#!/bin/sh
# kprof-merge and `kprof report` order kernels as libkprof's own report does: total time, then calls, both
# largest first, then the mangled name.  A new user's helper saw two kernels of equal totals swap places
# between a process's report and its merge (the merge broke ties by the demangled name: reduce_final
# before reduce_blocks in one, after in the other).  many_kernels 12: k0() to k11(), mangled _Z2k0v to
# _Z3k11v, every one 100 launches of 1 us on the fake GPU.
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$top_builddir/tools/kprof-merge" ] || skip "kprof-merge not built (configure found no jansson)"
need_jq
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/one.json" run_clocked "$PROGS/many_kernels" 12 1200 >/dev/null 2>&1 ||
    fail "many_kernels failed"
names() { jq -c '[.kernels[] | .name]' "$1"; }
own=$(names "$WORK/one.json")
expect_eq "$(jq -c '[.kernels[] | [.total_ns, .calls]] | unique' "$WORK/one.json")" '[[100000,100]]' \
    "the 12 kernels tie"
expect_eq "$own" '["k0()","k1()","k2()","k3()","k4()","k5()","k6()","k7()","k8()","k9()","k10()","k11()"]' \
    "the report orders ties by the mangled name"
"$top_builddir/tools/kprof-merge" -f json -o "$WORK/merged.json" "$WORK/one.json" || fail "kprof-merge failed"
expect_eq "$(names "$WORK/merged.json")" "$own" "kprof-merge orders them as the report"
"$top_builddir/tools/kprof" report -f json -o "$WORK/report.json" "$WORK/one.json" || fail "kprof report failed"
expect_eq "$(names "$WORK/report.json")" "$own" "kprof report orders them as the report"
