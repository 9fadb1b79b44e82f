#!/bin/sh
# KPROF_INCLUDE with back-references ('(.*)(.*)\2\1x') takes exponential time to match a long kernel
# name; it once hung the first launch (holding the kernel-names lock).  libkprof rejects back-references
# with a warning (no filter), and matches names outside its lock.  Bounded to 20 s.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
KPROF_TEST_TIMEOUT=20
KPROF_INCLUDE='(.*)(.*)\2\1x' KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$PROGS/deep_name" 250 0 >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "the program did not finish within 20 s"; }
expect_grep "^libkprof: ignoring KPROF_INCLUDE=.*back-reference" "$WORK/err" "one warning"
expect_eq "$(grep -c . "$WORK/err")" 1 "and nothing else"
expect_eq "$(jqr '.kernels | length' "$WORK/r.json")" 1 "no filter: the kernel is profiled"
# The same for KPROF_EXCLUDE; a backslash inside a bracket expression is no back-reference.
KPROF_EXCLUDE='(a*)*\1b' KPROF_FORMAT=json KPROF_OUTPUT="$WORK/e.json" \
    run_kprof "$PROGS/deep_name" 250 0 >"$WORK/out" 2>"$WORK/err" || fail "KPROF_EXCLUDE: did not finish within 20 s"
expect_grep "^libkprof: ignoring KPROF_EXCLUDE=.*back-reference" "$WORK/err" "KPROF_EXCLUDE: one warning"
KPROF_INCLUDE='^void f<[\1A]' KPROF_FORMAT=json KPROF_OUTPUT="$WORK/b.json" \
    run_kprof "$PROGS/deep_name" 250 0 >"$WORK/out" 2>"$WORK/err" || fail "bracket: did not finish"
expect_eq "$(grep -c . "$WORK/err")" 0 "a bracket expression's backslash: no warning"
expect_eq "$(jqr '.kernels | length' "$WORK/b.json")" 1 "and the filter applies"
