#!/bin/sh
# fake-smoke.sh: runs the fake CUDA stack's smoke programs and checks their ground-truth files.
# Usage: fake-smoke.sh [BUILDDIR]   (BUILDDIR: the build's tests/fake, holding lib/ and progs/fake_smoke)
NAME=fake-smoke FAKE_TIMEOUT=120
. "$(dirname "$0")/fake-lib.sh"
# The smoke modes set their own context-creation time; kernels by name.
export FAKEGPU_KERNEL_NS='add=5000,saxpy=7000,default=1000'
unset FAKEGPU_CTX_INIT_MS

# --- the libraries look like NVIDIA's
if readelf -d "$LIB/libcuda.so.1" | grep -q 'SONAME.*\[libcuda.so.1\]' &&
   readelf -d "$LIB/libcudart.so.13" | grep -q 'SONAME.*\[libcudart.so.13\]'; then
    pass "sonames"
else
    fail "sonames"
fi
nm -D --with-symbol-versions --defined-only "$LIB/libcudart.so.13" | awk '$2 == "T" { print $3 }' > "$tmp/rt-exports"
if [ -s "$tmp/rt-exports" ] && ! grep -v '@@libcudart.so.13$' "$tmp/rt-exports" > "$tmp/unversioned"; then
    pass "libcudart exports are all @@libcudart.so.13 ($(wc -l < "$tmp/rt-exports"))"
else
    fail "libcudart exports without @@libcudart.so.13:"; cat "$tmp/unversioned"
fi
if nm -D --with-symbol-versions --defined-only "$LIB/libcuda.so.1" | awk '$2 == "T" { print $3 }' | grep -q @; then
    fail "libcuda exports carry versions"
else
    pass "libcuda exports are unversioned"
fi

# --- the smoke program, mode by mode
run() { # run MODE [ENV...]: runs fake_smoke MODE with the environment given, output in $tmp/MODE.out
    mode=$1; shift
    env "$@" timeout "$FAKE_TIMEOUT" "$B/progs/fake_smoke" "$mode" > "$tmp/$mode.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "^$mode: ok" "$tmp/$mode.out"; then pass "fake_smoke $mode"; else
        fail "fake_smoke $mode (exit $rc):"; sed 's/^/    /' "$tmp/$mode.out"; fi
}

run basic FAKEGPU_TRUTH="$tmp/basic.truth"
truth basic <<'END'
kernel _Z3addPfS_i 5 25000
kernel _Z5scalePf 4 4000
copy HtoD 4 9196
copy DtoH 3 4116
copy DtoD 1 4096
copy HtoH 0 0
memset 1 4096
alloc device 3 8448
alloc host 1 4096
alloc managed 1 4096
END

run pending FAKEGPU_EVENT_PENDING_QUERIES=2 FAKEGPU_CTX_INIT_MS=0
run hang FAKEGPU_HANG=1 FAKEGPU_CTX_INIT_MS=0
run threads FAKEGPU_CTX_INIT_MS=0
run teardown FAKEGPU_CTX_INIT_MS=0
expect "a handler registered after cudart's first call runs before its teardown" "$tmp/teardown.out" \
    '^late handler: cudaSuccess$'
expect "a handler registered before it runs after the teardown" "$tmp/teardown.out" \
    '^early handler: cudaErrorCudartUnloading$'
nm -D --defined-only "$LIB/libcuda.so.1" | awk '$2 == "T" { print $3 }' > "$tmp/drv-exports"
env FAKEGPU_CTX_INIT_MS=0 "$B/progs/fake_smoke" procs < "$tmp/drv-exports" > "$tmp/procs.out" 2>&1
if [ $? -eq 0 ]; then pass "all $(wc -l < "$tmp/drv-exports") driver exports reachable through cuGetProcAddress_v2"; else
    fail "cuGetProcAddress_v2 table:"; sed 's/^/    /' "$tmp/procs.out"; fi

# --- a real nvcc program (when configure found nvcc)
if [ -x "$B/progs/fake_nvcc_smoke" ]; then
    # A sanitized fake needs its sanitizer runtime loaded first in an unsanitized program ($san).
    env ${san:+LD_PRELOAD=$san} ${san:+ASAN_OPTIONS=detect_leaks=0} LD_DEBUG=libs \
        FAKEGPU_TRUTH="$tmp/nvcc.truth" timeout "$FAKE_TIMEOUT" "$B/progs/fake_nvcc_smoke" > "$tmp/nvcc.out" 2> "$tmp/nvcc.libs"
    rc=$?
    if [ $rc -eq 0 ]; then pass "nvcc program runs"; else fail "nvcc program (exit $rc):"; cat "$tmp/nvcc.out"; fi
    expect "nvcc program loads the fake libcudart" "$tmp/nvcc.libs" "calling init: $LIB/libcudart.so.13"
    expect "nvcc program loads the fake libcuda" "$tmp/nvcc.libs" "calling init: $LIB/libcuda.so.1"
    expect "nvcc program's event timing is the kernel's virtual duration" "$tmp/nvcc.out" '^saxpy 0.007000 ms$'
    expect "nvcc program's kernel in the truth file" "$tmp/nvcc.truth" '^kernel _Z5saxpyfPKfPfi 1 7000$'
    expect "nvcc program's copies in the truth file" "$tmp/nvcc.truth" '^copy HtoD 2 524288$'
fi

exit $status
