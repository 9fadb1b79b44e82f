#!/bin/sh
# Without a CUDA driver the program runs exactly as it would without libkprof: same output, same exit
# status, nothing from libkprof on stderr.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
mkdir -p "$WORK/lib"
cp "$FAKE_LIB/libcudart.so.13" "$WORK/lib/"   # a runtime, but no libcuda.so.1
rc1=0; env LD_LIBRARY_PATH="$WORK/lib" ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} "$KERNELS/vector_add" --no-verify >"$WORK/plain.out" 2>"$WORK/plain.err" || rc1=$?
rc2=0; env LD_LIBRARY_PATH="$WORK/lib" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$KPROF_LIB" "$KERNELS/vector_add" --no-verify >"$WORK/kprof.out" 2>"$WORK/kprof.err" || rc2=$?
expect_eq "$rc2" "$rc1" "same exit status ($rc1)"
diff -u "$WORK/plain.out" "$WORK/kprof.out" || fail "stdout differs"
diff -u "$WORK/plain.err" "$WORK/kprof.err" || fail "stderr differs"
pass "same output"
