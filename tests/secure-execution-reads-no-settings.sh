#!/bin/sh
# Under secure execution (a setuid-root program run by an unprivileged user: libkprof in
# /etc/ld.so.preload reaches such programs) libkprof reads no KPROF_* variable, writes no file and says
# nothing; the program's calls pass through.  Before, KPROF_OUTPUT made the root-owned process write its
# report where the unprivileged user said.  Here the setuid program dlopens the build's libkprof.so
# (ld.so drops preloads with a slash in secure mode); nothing under /etc is touched.
. "${top_srcdir:-..}/tests/lib.sh"
[ -z "${SAN_PRELOAD:-}" ] || skip "sanitizer build (its runtime cannot be preloaded into a setuid program)"
[ "$(id -u)" = 0 ] || skip "needs root (to make a setuid-root program)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
[ -x "$PROGS/secure_prog" ] || skip "secure_prog not built"
if command -v runuser >/dev/null 2>&1; then as_nobody() { runuser -u nobody -- "$@"; }
elif command -v setpriv >/dev/null 2>&1; then as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
else skip "neither runuser nor setpriv"; fi
chmod 755 "$WORK"
mkdir "$WORK/bin" "$WORK/out"
cp "$PROGS/secure_prog" "$KPROF_LIB" "$FAKE_LIB/libcuda.so.1" "$FAKE_LIB/libcudart.so.13" "$WORK/bin/"
chown root:root "$WORK/bin/secure_prog"
chmod 4755 "$WORK/bin/secure_prog"
chmod 644 "$WORK/bin/"*.so*
chmod 755 "$WORK/bin" "$WORK/out"
case ",$(findmnt -no OPTIONS -T "$WORK/bin" 2>/dev/null)," in
*,nosuid,*) skip "$WORK is on a nosuid filesystem" ;;
esac
rc=0
as_nobody env KPROF_OUTPUT="$WORK/out/report-%p.txt" KPROF_TRACE="$WORK/out/trace.json" KPROF_LOG=debug KPROF_BOGUS=1 \
    timeout -k 5 20 "$WORK/bin/secure_prog" "$WORK/bin/libkprof.so" "$WORK/bin/libcuda.so.1" "$WORK/bin/libcudart.so.13" \
    >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "secure_prog failed ($rc)"; }
grep -q '^secure=1 euid=0$' "$WORK/stdout" || skip "setuid not honoured here ($(head -n 1 "$WORK/stdout"))"
pass "ran setuid root as nobody, AT_SECURE set"
expect_eq "$(sed -n 's/^cudaMalloc //p' "$WORK/stdout")" 0 "cudaMalloc passed through"
expect_eq "$(sed -n 's/^cudaFree //p' "$WORK/stdout")" 0 "cudaFree passed through"
expect_eq "$(ls "$WORK/out")" "" "no file written"
expect_no_grep 'libkprof' "$WORK/stderr" "no message (KPROF_LOG=debug and an unknown KPROF_BOGUS not read)"
