#!/bin/sh
# A plugin that links libcudart and is loaded with dlopen(RTLD_LOCAL) (Python extension modules, app
# plugins) calls libkprof's wrappers, whose real functions RTLD_NEXT cannot see: libkprof must find them
# in the loaded libcudart anyway (it once failed every call with error 302).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
run_plain "$PROGS/plugin_host" "$PROGS/libplugin.so" >"$WORK/plain"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/plugin_host" "$PROGS/libplugin.so" >"$WORK/kprof"
diff -u "$WORK/plain" "$WORK/kprof" || fail "the plugin's CUDA calls returned something else under libkprof"
expect_grep 'returned 0 and 0' "$WORK/kprof" "the plugin's calls succeed"
expect_eq "$(kernel_field "$WORK/r.json" plugin_kern calls)" 2 "and are counted"
expect_eq "$(jqr '.allocations[0].count' "$WORK/r.json")" 2 "its allocations too"
