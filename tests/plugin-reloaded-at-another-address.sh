#!/bin/sh
# A plugin linking libcudart, loaded with RTLD_LOCAL, called, unloaded with dlclose (libcudart with it),
# then a copy of it and of libcudart loaded from another directory at another address and called again:
# libkprof's wrappers once kept calling the first copy's functions (a crash).  libkprof's dlclose notices
# that the libcudart it used is gone and looks the functions up again.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
case "${SAN_PRELOAD:-}" in
*tsan*) skip "under ThreadSanitizer the program crashes without libkprof too (its atexit interceptor seemingly keeps the unloaded libcudart's exit handler)" ;;
esac
# The fake libcudart keeps its state until the process ends: unloaded, it is reported as leaked.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
mkdir "$WORK/copy"
cp "$FAKE_LIB/libcudart.so.13" "$PROGS/libplugin.so" "$WORK/copy/"
run_plain "$PROGS/plugin_reload" "$PROGS/libplugin.so" "$WORK/copy" >"$WORK/plain" ||
    fail "the program fails even without libkprof"
rc=0
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/plugin_reload" "$PROGS/libplugin.so" "$WORK/copy" \
    >"$WORK/kprof" 2>"$WORK/err" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/err" >&2; fail "exit status $rc under libkprof"; }
diff -u "$WORK/plain" "$WORK/kprof" || fail "the plugin's CUDA calls returned something else under libkprof"
expect_grep 'returned 0, then 0 from the copy' "$WORK/kprof" "both copies' calls succeed"
# No word from libkprof: its lines begin "libkprof:" (the program's own note that it could not reserve
# the first copy's address, which an AddressSanitizer build's layout may refuse with EEXIST, is not one).
expect_eq "$(grep -c '^libkprof:' "$WORK/err")" 0 "no warning: $(head -c 400 "$WORK/err")"
expect_eq "$(kernel_field "$WORK/r.json" plugin_kern calls)" 2 "both launches counted"
expect_eq "$(jqr '.allocations[0].count' "$WORK/r.json")" 2 "both allocations too"
