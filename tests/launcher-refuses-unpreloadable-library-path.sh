#!/bin/sh
# LD_PRELOAD separates its entries with spaces and colons, so a libkprof.so whose path holds one cannot be
# preloaded: kprof says so and exits 2 instead of starting the program unprofiled.
. "${top_srcdir:-..}/tests/lib.sh"
case $SAN_PRELOAD in
*tsan*) skip "runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
# libtool cannot install into such a path: install, then move the tree there (a relocated install; kprof
# finds the library beside it).
make -s -C "$top_builddir/tools" install-binSCRIPTS DESTDIR="$WORK/dest" >/dev/null
make -s -C "$top_builddir/src" install-pkglibLTLIBRARIES DESTDIR="$WORK/dest" >/dev/null 2>&1
for d in "with space" "with:colon"; do
    D=$WORK/$d
    mv "$WORK/dest" "$D"
    K=$(find "$D" -name kprof -type f)
    [ -x "$K" ] || fail "DESTDIR install into '$D' holds no kprof"
    rc=0
    env LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" "$K" sh -c ': >"$1"' sh "$WORK/ran" 2>"$WORK/err" || rc=$?
    cat "$WORK/err"
    expect_eq "$rc" 2 "library under '$d': exit status 2"
    [ ! -e "$WORK/ran" ] || fail "library under '$d': the program was started anyway"
    pass "library under '$d': the program is not started"
    expect_grep "^kprof: cannot preload .*$d.*: its path holds a space or a colon" "$WORK/err" "library under '$d': says why"
    expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "library under '$d': in one line"
    rc=0; "$K" --print-library >/dev/null 2>&1 || rc=$?
    expect_eq "$rc" 2 "library under '$d': --print-library fails too"
    mv "$D" "$WORK/dest"
done
