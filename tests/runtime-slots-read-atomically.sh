#!/bin/sh
# libkprof calls the CUDA runtime only through the pointer KPROF_REAL returns (an atomic load of its slot
# in kprof_rt, resolved on first use), never by a plain read of the slot: another thread may be filling
# it.  A breaker helper's ThreadSanitizer runs reported that race (2 in 32) where kprof_rt_quiet_begin,
# function_from_runtime and name_from_runtime called kprof_rt.NAME(...) while a first launch on another
# thread resolved the same slot; it is too rare to catch by running, so the source is checked.
. "${top_srcdir:-..}/tests/lib.sh"
calls=$(grep -rnE 'kprof_rt\.[A-Za-z_0-9]+ *\(' "$top_srcdir/src" --include='*.c' --include='*.h' | grep -v '#define' || true)
[ -z "$calls" ] || { printf '%s\n' "$calls" >&2; fail "runtime functions called through a plain read of kprof_rt"; }
pass "no call through a plain read of kprof_rt's slots"
