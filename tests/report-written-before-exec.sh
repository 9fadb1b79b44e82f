#!/bin/sh
# A program that execs another after its CUDA work: exec replaces the process, and no exit handler runs,
# so the report was lost without a word (a breaker helper: 5 launches, then execl("/bin/echo")).  It is
# written before the exec now; the program execed (libkprof preloaded again, no CUDA) writes none.  An
# exec that fails leaves the program running, unprofiled, with one warning.  A vfork()ed child that execs
# runs in its parent's memory: the parent's profile goes on untouched.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for mode in execl execvp; do
    rc=0
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$mode.json" run_kprof "$PROGS/exec_after" $mode >"$WORK/$mode.out" 2>"$WORK/$mode.err" || rc=$?
    expect_eq "$rc" 0 "$mode: the program execed ran"
    expect_eq "$(cat "$WORK/$mode.out")" "handed over" "$mode: its output"
    expect_eq "$(kernel_field "$WORK/$mode.json" exec_after calls) $(kernel_field "$WORK/$mode.json" exec_after timed)" "5 5" \
        "$mode: the report written before the exec"
    expect_eq "$(cat "$WORK/$mode.err")" "" "$mode: nothing on stderr"
done
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/execle.json" run_kprof "$PROGS/exec_after" execle >"$WORK/execle.out" 2>&1 ||
    fail "execle: failed"
expect_eq "$(cat "$WORK/execle.out")" "KPROF_TEST_ENV=1" "execle: the environment given, and only it"
expect_eq "$(kernel_field "$WORK/execle.json" exec_after calls)" 5 "execle: the report written before the exec"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/fail.json" run_kprof "$PROGS/exec_after" fail >"$WORK/fail.out" 2>"$WORK/fail.err" ||
    fail "fail: the program failed"
expect_eq "$(cat "$WORK/fail.out")" "exec failed" "fail: the program runs on"
expect_grep "^libkprof: the exec of /nonexistent/kprof-test-nowhere failed after libkprof wrote its report; later CUDA calls are not profiled$" \
    "$WORK/fail.err" "fail: one warning"
expect_eq "$(kernel_field "$WORK/fail.json" exec_after calls)" 5 "fail: the report holds the launches before it"
FAKEGPU_TRUTH="$WORK/vfork.truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/vfork.json" run_kprof "$PROGS/exec_after" vfork \
    >"$WORK/vfork.out" 2>"$WORK/vfork.err" || fail "vfork: the program failed"
expect_eq "$(cat "$WORK/vfork.out")" "child ran" "vfork: the child ran"
truth_matches "$WORK/vfork.json" "$WORK/vfork.truth"
expect_eq "$(kernel_field "$WORK/vfork.json" exec_after calls) $(kernel_field "$WORK/vfork.json" exec_after timed)" "8 8" \
    "vfork: the parent's 8 launches, all timed"
expect_eq "$(grep -c '^libkprof' "$WORK/vfork.err")" 0 "vfork: no message"
