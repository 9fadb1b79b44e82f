#!/bin/sh
# The installed kprof preloads the library installed with it, never a libkprof.so planted in
# <bindir>/../src/.libs (for /usr/local/bin that is /usr/local/src/.libs, group-writable on Debian); the
# build tree's kprof still preloads the build tree's library.
. "${top_srcdir:-..}/tests/lib.sh"
case $SAN_PRELOAD in
*tsan*) skip "runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
D=$WORK/dest
make -s -C "$top_builddir/tools" install-binSCRIPTS DESTDIR="$D" >/dev/null
make -s -C "$top_builddir/src" install-pkglibLTLIBRARIES DESTDIR="$D" >/dev/null 2>&1
K=$(find "$D" -name kprof -type f)
L=$(find "$D" -name libkprof.so -type f)
[ -x "$K" ] && [ -f "$L" ] || fail "DESTDIR install holds no kprof and libkprof.so"
bin=$(cd "$(dirname "$K")" && pwd -P)
L=$(cd "$(dirname "$L")" && pwd -P)/libkprof.so
# A stray library where the old launcher looked first.
mkdir -p "$bin/../src/.libs"
printf 'not a library\n' >"$bin/../src/.libs/libkprof.so"

# What the program is given to preload (what it would have loaded).
env LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" "$K" sh -c 'printf "%s\n" "$LD_PRELOAD"' \
    >"$WORK/preload" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "the installed launcher failed"; }
expect_eq "$(tr ' ' '\n' <"$WORK/preload" | tail -n 1)" "$L" "the installed launcher preloads the installed library"
expect_no_grep 'src/\.libs' "$WORK/preload" "and not the stray one"
expect_eq "$("$K" --print-library)" "$L" "--print-library names it"

# The build tree's launcher: the build tree's library.
B=$(cd "$top_builddir/src/.libs" && pwd -P)/libkprof.so
expect_eq "$("$top_builddir/tools/kprof" --print-library)" "$B" "the build tree's launcher: the build tree's library"

# A launcher copied elsewhere, without a library beside it, falls back to the configured pkglibdir.
mkdir -p "$WORK/elsewhere/bin" "$WORK/elsewhere/src/.libs"
cp "$K" "$WORK/elsewhere/bin/kprof"
cp "$L" "$WORK/elsewhere/src/.libs/libkprof.so"
libdir=$(make -s -C "$top_builddir/src" --no-print-directory -f - print-pkglibdir <<'MK' 2>/dev/null || true
include Makefile
print-pkglibdir: ; @echo $(pkglibdir)
MK
)
rc=0; "$WORK/elsewhere/bin/kprof" --print-library >"$WORK/out" 2>"$WORK/err" || rc=$?
if [ -f "$libdir/libkprof.so" ]; then
    expect_eq "$(cat "$WORK/out")" "$libdir/libkprof.so" "a launcher with no library beside it: pkglibdir"
else
    expect_eq "$rc" 2 "a launcher with no library beside it and none installed: exit status 2"
    expect_grep "^kprof: cannot find libkprof.so" "$WORK/err" "and says so"
fi
