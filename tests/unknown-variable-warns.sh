#!/bin/sh
# Misspelt KPROF_* variables and bad numbers are named in a warning; the defaults are used.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
KPROF_FROMAT=json KPROF_EXIT_TIMEOUT=soon run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
expect_grep '^libkprof: ignoring unknown variable KPROF_FROMAT$' "$WORK/err" "unknown name"
expect_grep "^libkprof: ignoring KPROF_EXIT_TIMEOUT='soon' \(expected milliseconds from 0 to 3600000\); using 5000$" \
    "$WORK/err" "bad number"
expect_grep '^== libkprof: kernels ==$' "$WORK/err" "report still written"
KPROF_LOG=debug run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err2"
expect_grep '^libkprof: configuration: KPROF_FORMAT=text ' "$WORK/err2" "KPROF_LOG=debug prints the configuration"
# KPROF_SEED=0 there is what was set; the seed picked follows on a line of its own (a new user's helper took
# the configuration's 0 for the seed used).
expect_grep '^libkprof: KPROF_SEED=0: the draws. seed picked is [1-9][0-9]* \(the report gives it too\)$' "$WORK/err2" \
    "KPROF_LOG=debug: the seed picked"
KPROF_SEED=5 KPROF_LOG=debug run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err3"
expect_no_grep 'seed picked' "$WORK/err3" "KPROF_SEED=5: no seed picked"
# Every number's warning gives its range, in the README's words (a new user's helper: KPROF_TOP's had no
# range, KPROF_TRACE_LIMIT's spoke of events where the README says calls).
KPROF_TOP=-1 KPROF_TRACE_LIMIT=-5 run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err4"
expect_grep "^libkprof: ignoring KPROF_TOP='-1' \(expected a number of kernels from 0 \(all\) to 1073741824\); using 0$" \
    "$WORK/err4" "KPROF_TOP: its range"
expect_grep "^libkprof: ignoring KPROF_TRACE_LIMIT='-5' \(expected a number of calls from 0 to 1073741824\); using 1000000$" \
    "$WORK/err4" "KPROF_TRACE_LIMIT: calls, as the README says"
