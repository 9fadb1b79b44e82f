#!/bin/sh
# Another preloaded library that looks functions up with dlsym(RTLD_NEXT, ...) keeps working with libkprof
# preloaded before it: libkprof's dlsym must reach glibc's with a jump, so RTLD_NEXT still resolves
# relative to the library that asked.  (With a call, libshim's puts finds itself and aborts.)
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$FAKE/progs/shimapp" ] || skip "shim not built"
env LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$KPROF_LIB $FAKE_LIB/libshim.so" \
    "$FAKE/progs/shimapp" >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err"; fail "shimapp failed"; }
expect_eq "$(cat "$WORK/out")" "$(printf 'shim: hello\nshim: hello\nshim: hello')" "the shim's puts forwards to glibc's"
# And the trampoline in this build really is a jump to glibc's dlsym, not a call.
objdump -d --no-show-raw-insn "$KPROF_LIB" | awk '/<dlsym(@@GLIBC_2\.34)?>:/,/^$/' >"$WORK/dis"
expect_grep 'jmp +\*0x[0-9a-f]+\(%rip\)' "$WORK/dis" "dlsym passes through with an indirect jmp"
expect_eq "$(grep -c 'call' "$WORK/dis")" 1 "its only call is to the hook"
