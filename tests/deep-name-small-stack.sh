#!/bin/sh
# A kernel name nested 250 templates deep, first launched from a thread with a 64 KiB stack: demangling
# it there (__cxa_demangle recurses about 700 bytes a level and keeps arrays on the stack) once crashed
# that thread.  libkprof demangles such names on a thread of its own with a large stack: no crash, and
# the name is demangled; one too deep for the C++ runtime stays mangled.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
KPROF_TEST_TIMEOUT=20
run_plain "$PROGS/deep_name" 250 64 >"$WORK/plain" || fail "the program fails even without libkprof"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/deep_name" 250 64 >"$WORK/out" 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "the program failed under libkprof"; }
expect_grep 'deep_name: ok' "$WORK/out" "the launch from a 64 KiB stack succeeded"
expect_eq "$(jqr '[.kernels[] | select(.name | startswith("void f<A<A<A<"))][0].calls' "$WORK/r.json")" 1 \
    "the 250-deep name is demangled and counted"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s.json" run_kprof "$PROGS/deep_name" 2000 64 >"$WORK/out2" 2>"$WORK/err2" ||
    { cat "$WORK/err2" >&2; fail "depth 2000 failed under libkprof"; }
expect_eq "$(jqr '[.kernels[] | select(.name | startswith("_Z1fI1AI1AI"))][0].calls' "$WORK/s.json")" 1 \
    "a 2000-deep name (beyond the C++ runtime's limit) stays mangled, counted"
