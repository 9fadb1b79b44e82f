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
# goes beside the first's, name.<pid>.2.json (with %p in the pattern, name.<pid>.2.json too), not over it
# (a helper lost the first report); a third, name.<pid>.3.json.  libkprof tells the next program its number
# through the environment (KPROF_EXEC_IMAGE): the file system's clock does not tell an earlier image's file
# (a breaker helper: one-second mtimes, and a first program done within 20 ms).
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/self.json" run_kprof "$PROGS/exec_after" self >"$WORK/self.out" 2>"$WORK/self.err" ||
    fail "self: failed: $(cat "$WORK/self.err")"
expect_eq "$(cat "$WORK/self.out")" "handed over" "self: the second image execed echo"
expect_eq "$(cd "$WORK" && ls self*.json | sed 's/[0-9][0-9]*/P/' | sort | tr '\n' ' ')" "self.P.2.json self.json " \
    "self: the second report beside the first"
second=$(ls "$WORK"/self.*.2.json 2>/dev/null || true)
expect_eq "$(kernel_field "$WORK/self.json" exec_after calls) $(kernel_field "$second" exec_after calls)" "5 5" \
    "self: each image's 5 launches in a report of its own"
expect_eq "$(cat "$WORK/self.err")" "" "self: nothing on stderr"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/p.%p.json" run_kprof "$PROGS/exec_after" self2 >/dev/null 2>"$WORK/self2.err" ||
    fail "self2: failed: $(cat "$WORK/self2.err")"
expect_eq "$(cd "$WORK" && ls p.*.json | sed 's/[0-9][0-9]*/P/' | sort | tr '\n' ' ')" "p.P.2.json p.P.3.json p.P.json " \
    "three programs, %p in the pattern: p.<pid>.json, p.<pid>.2.json, p.<pid>.3.json"
# To a stream (stderr here), every program writes where it is named: no /dev/stderr.<pid>.2 file (a
# breaker helper), both reports on stderr.
KPROF_OUTPUT=/dev/stderr run_kprof "$PROGS/exec_after" self >/dev/null 2>"$WORK/stream.err" || fail "self to stderr: failed"
expect_eq "$(grep -c '^== libkprof: end ==$' "$WORK/stream.err")" 2 "to /dev/stderr: both programs' reports there"
expect_eq "$(grep -c 'cannot write' "$WORK/stream.err")" 0 "to /dev/stderr: no file tried beside it"
# KPROF_EXEC_IMAGE of another process (a child inherits it): ignored, without a word; a bad value: a
# warning, and the first program's names.
KPROF_EXEC_IMAGE=1:2 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/other.json" run_kprof "$PROGS/named" kA >/dev/null 2>"$WORK/other.err"
expect_eq "$(ls "$WORK"/other*.json | wc -l | tr -d ' ')$(cat "$WORK/other.err")" "1" "another pid's KPROF_EXEC_IMAGE: other.json, no word"
[ -e "$WORK/other.json" ] || fail "other.json not written"
KPROF_EXEC_IMAGE=junk KPROF_FORMAT=json KPROF_OUTPUT="$WORK/bad.json" run_kprof "$PROGS/named" kA >/dev/null 2>"$WORK/bad.err"
expect_grep "libkprof: ignoring KPROF_EXEC_IMAGE='junk' \(expected <pid>:<n>" "$WORK/bad.err" "a bad KPROF_EXEC_IMAGE: a warning"
[ -e "$WORK/bad.json" ] || fail "bad.json not written"
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
    # Its report written, or, where the signal came inside a CUDA call, one warning that it is lost (it
    # was lost without a word: a new-user helper).
    [ -s "$WORK/sig$i.json" ] || grep -q "^libkprof: /bin/echo replaces the process from inside a CUDA call (an exec from a signal handler): the report cannot be written first and is lost$" "$WORK/sig$i.err" ||
        fail "an exec from a signal handler ($i): no report and no warning: $(cat "$WORK/sig$i.err")"
done
FAKEGPU_TRUTH="$WORK/vfork.truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/vfork.json" run_kprof "$PROGS/exec_after" vfork \
    >"$WORK/vfork.out" 2>"$WORK/vfork.err" || fail "vfork: the program failed"
expect_eq "$(cat "$WORK/vfork.out")" "child ran" "vfork: the child ran"
truth_matches "$WORK/vfork.json" "$WORK/vfork.truth"
expect_eq "$(kernel_field "$WORK/vfork.json" exec_after calls) $(kernel_field "$WORK/vfork.json" exec_after timed)" "8 8" \
    "vfork: the parent's 8 launches, all timed"
expect_eq "$(grep -c '^libkprof' "$WORK/vfork.err")" 0 "vfork: no message"
