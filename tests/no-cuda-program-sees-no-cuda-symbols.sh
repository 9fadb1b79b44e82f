#!/bin/sh
# A program without CUDA that asks "is CUDA here?" with dlsym(RTLD_DEFAULT, "cuInit") gets the same
# answers under libkprof as without it: NULL (with dlerror set) until a CUDA library is loaded, found
# after.  Before, libkprof's own exported cuInit, cudaMalloc... answered and the check flipped.  A weak
# reference bound at load time does see libkprof's cuInit (documented), which returns an error.
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$PROGS/cuda_probe" ] || skip "cuda_probe not built"
# No LD_LIBRARY_PATH: the program loads the fake driver and runtime by path only, so that the weak cuInit
# it calls first finds no driver.
probe() {
    timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env -u LD_LIBRARY_PATH ${1:+LD_PRELOAD="$1"} \
        "$PROGS/cuda_probe" "$FAKE_LIB/libcuda.so.1" "$FAKE_LIB/libcudart.so.13"
}
probe "$SAN_PRELOAD" >"$WORK/plain.out" 2>"$WORK/plain.err" || { cat "$WORK/plain.err"; fail "cuda_probe failed without libkprof"; }
probe "${SAN_PRELOAD:+$SAN_PRELOAD }$KPROF_LIB" >"$WORK/kprof.out" 2>"$WORK/kprof.err" ||
    { cat "$WORK/kprof.err"; fail "cuda_probe failed under libkprof"; }
expect_grep '^nothing loaded: cuInit missing \(dlerror set\)$' "$WORK/plain.out" "without libkprof: no cuInit"
expect_grep '^runtime loaded: cudaMalloc found$' "$WORK/plain.out" "without libkprof: cudaMalloc once the runtime is loaded"
sed '$d' "$WORK/plain.out" >"$WORK/plain.lookups"
sed '$d' "$WORK/kprof.out" >"$WORK/kprof.lookups"
diff -u "$WORK/plain.lookups" "$WORK/kprof.lookups" >&2 || fail "dlsym(RTLD_DEFAULT) answers differ under libkprof"
pass "every dlsym(RTLD_DEFAULT) answer as without libkprof ($(wc -l <"$WORK/plain.lookups" | tr -d ' ') lookups)"
expect_eq "$(tail -n 1 "$WORK/plain.out")" "weak cuInit: unbound" "without libkprof the weak cuInit is unbound"
expect_eq "$(tail -n 1 "$WORK/kprof.out")" "weak cuInit: bound, returns an error" \
    "under libkprof it is bound (load time) and fails without a driver"
expect_no_grep . "$WORK/kprof.err" "nothing on stderr"
