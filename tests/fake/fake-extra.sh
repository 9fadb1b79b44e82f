#!/bin/sh
# fake-extra.sh: runs the programs the driver-API tests use (static cudart, a math library with its own
# runtime, a CUDA 12 runtime, driver API only, a second preload) against the fake stack, without libkprof,
# and checks their exit status and ground-truth files.
# Usage: fake-extra.sh [BUILDDIR]   (BUILDDIR: the build's tests/fake, holding lib/, progs/ and static/)
NAME=fake-extra FAKE_TIMEOUT=120
. "$(dirname "$0")/fake-lib.sh"

# --- libfakemath.so + mathapp: a math library whose kernels go through its own hidden runtime
nm -D --defined-only "$LIB/libfakemath.so" | awk '$2 ~ /^[TDBVWRiu]$/ { print $3 }' > "$tmp/math-exports"
if [ "$(cat "$tmp/math-exports")" = fakemath_gemm ]; then pass "libfakemath exports only fakemath_gemm"; else
    fail "libfakemath exports:"; sed 's/^/    /' "$tmp/math-exports"; fi
runp mathapp -- "$B/progs/mathapp"
truth mathapp <<'END'
kernel _Z13fakemath_gemmPKfS0_Pfi 5 5000
kernel _Z7app_addPf 3 3000
copy HtoD 1 4096
copy DtoH 0 0
copy DtoD 0 0
copy HtoH 0 0
memset 0 0
alloc device 1 4096
alloc host 0 0
alloc managed 0 0
END

# --- libcudart.so.12 + cu12app: CUDA 12's runtime, launches through cudaLaunchKernel(hostStub)
if readelf -d "$LIB/libcudart.so.12" | grep -q 'SONAME.*\[libcudart.so.12\]' &&
   readelf -d "$B/progs/cu12app" | grep -q 'NEEDED.*\[libcudart.so.12\]' &&
   ! readelf -d "$B/progs/cu12app" | grep -q 'NEEDED.*\[libcudart.so.13\]'; then
    pass "cu12app needs libcudart.so.12 only"
else
    fail "libcudart.so.12 soname or cu12app's NEEDED"
fi
nm -D --with-symbol-versions --defined-only "$LIB/libcudart.so.12" | awk '$2 == "T" { print $3 }' > "$tmp/rt12-exports"
if [ -s "$tmp/rt12-exports" ] && ! grep -v '@@libcudart.so.12$' "$tmp/rt12-exports" > "$tmp/unversioned"; then
    pass "libcudart.so.12 exports are all @@libcudart.so.12 ($(wc -l < "$tmp/rt12-exports"))"
else
    fail "libcudart.so.12 exports without @@libcudart.so.12:"; cat "$tmp/unversioned"
fi
runp cu12app LD_DEBUG=libs -- "$B/progs/cu12app"
if grep -q "calling init: $LIB/libcudart.so.12" "$tmp/cu12app.out" &&
   ! grep -q 'calling init: .*libcudart.so.13' "$tmp/cu12app.out"; then
    pass "cu12app loads the fake libcudart.so.12, not .13"
else
    fail "cu12app's libraries:"; grep 'calling init' "$tmp/cu12app.out" | sed 's/^/    /'
fi
truth cu12app <<'END'
kernel _Z9cu12_axpyPf 4 4000
copy HtoD 1 1000
copy DtoH 0 0
copy DtoD 0 0
copy HtoH 0 0
memset 0 0
alloc device 1 1000
alloc host 0 0
alloc managed 0 0
END

# --- driverapp: the driver API only, as Triton's launcher uses it
if readelf -d "$B/progs/driverapp" | grep -q 'NEEDED.*\[libcud'; then fail "driverapp links a CUDA library"; else
    pass "driverapp links no CUDA library"; fi
runp driverapp -- "$B/progs/driverapp"
truth driverapp <<'END'
kernel triton_kernel_0 6 6000
copy HtoD 1 4096
copy DtoH 0 0
copy DtoD 0 0
copy HtoH 0 0
memset 1 4096
alloc device 1 4096
alloc host 0 0
alloc managed 0 0
END

# --- libshim.so + shimapp: a preload whose puts uses dlsym(RTLD_NEXT) on every call
runp shimapp-plain -- "$B/progs/shimapp"
printf 'hello\nhello\nhello\n' > "$tmp/hello"
if cmp -s "$tmp/hello" "$tmp/shimapp-plain.out"; then pass "shimapp alone prints hello x3"; else
    fail "shimapp alone:"; sed 's/^/    /' "$tmp/shimapp-plain.out"; fi
env LD_PRELOAD="${san:+$san }$LIB/libshim.so" timeout 60 "$B/progs/shimapp" > "$tmp/shim.out" 2>&1
rc=$?
printf 'shim: hello\nshim: hello\nshim: hello\n' > "$tmp/shim.expected"
if [ $rc -eq 0 ] && cmp -s "$tmp/shim.expected" "$tmp/shim.out"; then pass "shimapp under libshim.so prints shim: hello x3"; else
    fail "shimapp under libshim.so (exit $rc):"; sed 's/^/    /' "$tmp/shim.out"; fi

# --- the kernels/ samples linked with the fake static cudart (when configure found nvcc)
for p in reduce vector_add stream_overlap; do
    exe=$B/static/$p
    [ -x "$exe" ] || continue
    # The fake runs no kernel, so the samples' own checks would fail.
    args=--no-verify
    [ $p = reduce ] && args="$args --iters 5"
    if nm -D "$exe" | grep -E ' (cuda|__cuda|cu[A-Z])' > "$tmp/$p.dyn"; then
        fail "static/$p has dynamic CUDA symbols:"; sed 's/^/    /' "$tmp/$p.dyn"
    else
        pass "static/$p has no dynamic cuda* symbols"
    fi
    runp "static-$p" -- "$exe" $args
    if ! grep -q '^kernel ' "$tmp/static-$p.truth" 2>/dev/null; then
        fail "static/$p launched no kernel:"; cat "$tmp/static-$p.truth" 2>/dev/null
    fi
    # Same program with the shared fake cudart: the driver must see the same work.
    shared=$B/../../kernels/$p
    if [ -x "$shared" ]; then
        runp "shared-$p" -- "$shared" $args
        if diff -u "$tmp/shared-$p.truth" "$tmp/static-$p.truth" > "$tmp/$p.diff" 2>&1; then
            pass "static/$p's truth matches kernels/$p's"
        else
            fail "static/$p's truth differs from kernels/$p's:"; cat "$tmp/$p.diff"
        fi
    fi
done

exit $status
