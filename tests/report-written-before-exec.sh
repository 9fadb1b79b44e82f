#!/bin/sh
# A program that execs another after its CUDA work: exec replaces the process, and no exit handler runs,
# so the report was lost without a word (a breaker helper: 5 launches, then execl("/bin/echo")).  It is
# written before the exec now; the program execed (libkprof preloaded again, no CUDA) writes none.  An exec
# of a program that is not there is no exec: the profile goes on (a second tester: Python's os.execvp,
# which tries each PATH entry through execv, ended it at the first miss, with a false warning); one that
# fails all the same leaves the program running, unprofiled, with one warning.  A vfork()ed child that
# execs runs in its parent's memory: the parent's profile goes on untouched.  An exec from a signal
# handler goes on, report or not (a second tester: 5 runs in 20 hung for good, the handler having
# interrupted a launch that held libkprof's lock).
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
# A second CUDA program exec'd in the same process (its pid, and KPROF_OUTPUT, the first's): its report
# goes beside the first's, out.<pid>.json, with a warning, not over it (a helper lost the first report).
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/self.json" run_kprof "$PROGS/exec_after" self >"$WORK/self.out" 2>"$WORK/self.err" ||
    fail "self: failed: $(cat "$WORK/self.err")"
expect_eq "$(cat "$WORK/self.out")" "handed over" "self: the second image execed echo"
second=$(ls "$WORK"/self.*.json 2>/dev/null || true)
expect_eq "$(echo "$second" | grep -c .)" 1 "self: one more report, beside the first"
expect_eq "$(kernel_field "$WORK/self.json" exec_after calls) $(kernel_field "$second" exec_after calls)" "5 5" \
    "self: each image's 5 launches in a report of its own"
expect_grep "libkprof: .*self\.json' was written since this process started \(by another process, or by this one before an exec\); writing the report to '.*self\.[0-9]+\.json' instead" \
    "$WORK/self.err" "self: the warning says where the second went"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/execle.json" run_kprof "$PROGS/exec_after" execle >"$WORK/execle.out" 2>&1 ||
    fail "execle: failed"
expect_eq "$(cat "$WORK/execle.out")" "KPROF_TEST_ENV=1" "execle: the environment given, and only it"
expect_eq "$(kernel_field "$WORK/execle.json" exec_after calls)" 5 "execle: the report written before the exec"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/fail.json" run_kprof "$PROGS/exec_after" fail >"$WORK/fail.out" 2>"$WORK/fail.err" ||
    fail "fail: the program failed"
expect_eq "$(cat "$WORK/fail.out")" "exec failed" "not there: the program runs on"
expect_eq "$(cat "$WORK/fail.err")" "" "not there: no message"
expect_eq "$(kernel_field "$WORK/fail.json" exec_after calls) $(kernel_field "$WORK/fail.json" exec_after timed)" "8 8" \
    "not there: the profile went on (5 launches before, 3 after)"
printf 'not a program\n' >"$WORK/notabin"; chmod +x "$WORK/notabin"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/fail2.json" run_kprof "$PROGS/exec_after" fail "$WORK/notabin" >"$WORK/fail2.out" \
    2>"$WORK/fail2.err" || fail "fail: the program failed"
expect_eq "$(cat "$WORK/fail2.out")" "exec failed" "failed all the same: the program runs on"
expect_grep "^libkprof: the exec of $WORK/notabin failed after libkprof wrote its report; later CUDA calls are not profiled$" \
    "$WORK/fail2.err" "failed all the same: one warning"
expect_eq "$(kernel_field "$WORK/fail2.json" exec_after calls)" 5 "failed all the same: the report holds the launches before it"
i=0
while [ $i -lt 8 ]; do
    i=$((i + 1))
    rc=0
    KPROF_TEST_TIMEOUT=20 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/sig$i.json" run_kprof "$PROGS/exec_after" sigexec \
        >"$WORK/sig$i.out" 2>"$WORK/sig$i.err" || rc=$?
    expect_eq "$rc" 0 "an exec from a signal handler ($i): it went on"
    expect_eq "$(cat "$WORK/sig$i.out")" "handed over from a handler" "an exec from a signal handler ($i): the program execed ran"
done
FAKEGPU_TRUTH="$WORK/vfork.truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/vfork.json" run_kprof "$PROGS/exec_after" vfork \
    >"$WORK/vfork.out" 2>"$WORK/vfork.err" || fail "vfork: the program failed"
expect_eq "$(cat "$WORK/vfork.out")" "child ran" "vfork: the child ran"
truth_matches "$WORK/vfork.json" "$WORK/vfork.truth"
expect_eq "$(kernel_field "$WORK/vfork.json" exec_after calls) $(kernel_field "$WORK/vfork.json" exec_after timed)" "8 8" \
    "vfork: the parent's 8 launches, all timed"
expect_eq "$(grep -c '^libkprof' "$WORK/vfork.err")" 0 "vfork: no message"
