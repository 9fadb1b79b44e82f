#!/bin/sh
# KPROF_OUTPUT and KPROF_TRACE expand %p (pid), %h (host), %q{VAR} (an environment variable) and %%, so
# every rank of a parallel job writes its own files.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
host=$(hostname)
RANK=3 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r-%q{RANK}-%h-%%-%p.json" KPROF_TRACE="$WORK/t-%q{RANK}-%q{NO_SUCH_VAR}.json" \
    run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null
set -- "$WORK"/r-3-"$host"-%-*.json
[ -f "$1" ] || { ls "$WORK" >&2; fail "no report named r-3-$host-%-<pid>.json"; }
pid=${1##*-}; pid=${pid%.json}
expect_eq "$(jqr .pid "$1")" "$pid" "%p is the profiled process's pid"
[ -f "$WORK/t-3-.json" ] || fail "no trace named t-3-.json (unset variable expands to nothing)"
pass "trace name expanded"
# A % that starts no pattern is written as it is, and said once (a new user's typo, -o 'o.%x.json',
# went unseen).
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/o.%x.json" run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/x.err"
[ -f "$WORK/o.%x.json" ] || fail "no report named o.%x.json"
expect_grep "^libkprof: KPROF_OUTPUT='.*/o\.%x\.json': '%x' is no path pattern \(%p, %h, %q\{VAR\}, %%\); written as it is$" \
    "$WORK/x.err" "the stray % said"
expect_eq "$(grep -c 'no path pattern' "$WORK/x.err")" 1 "once"
