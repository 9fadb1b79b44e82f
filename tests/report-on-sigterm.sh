#!/bin/sh
# KPROF_SIGNALS=1: a SIGTERM still gets the report (written by a helper thread, not in the handler, which
# returns at once), and the process then ends by the signal, raised again, as it would without libkprof; a program with its own SIGTERM
# handler keeps it (it exits through exit(), and the report comes from the usual exit path).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
# Like run_kprof, but run in the background it becomes the program itself (exec), so that $! is its pid.
start() { exec env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$KPROF_LIB" "$@"; }
wait_ready() { i=0; while ! grep -q ready "$1" 2>/dev/null; do i=$((i + 1)); [ $i -lt 100 ] || fail "never ready"; sleep 0.1; done; }
# terminated NAME WAIT SLEEPER-ARGS...: runs the sleeper in the background with its output in $WORK/NAME.out,
# waits (WAIT "ready": for its "ready" line, else that many seconds), sends SIGTERM and prints its exit
# status.  Called as rc=$(VAR=... terminated ...): the assignments reach the sleeper, and the command
# substitution's subshell keeps them from outliving the call in any shell.
terminated() {
    name=$1 how=$2
    shift 2
    start "$PROGS/sleeper" "$@" >"$WORK/$name.out" 2>&1 &
    pid=$!
    if [ "$how" = ready ]; then wait_ready "$WORK/$name.out"; else sleep "$how"; fi
    kill -TERM $pid
    st=0; wait $pid || st=$?
    echo "$st"
}

rc=$(KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/a.json" terminated a ready)
expect_eq "$rc" 143 "ended by SIGTERM as without libkprof"
expect_eq "$(kernel_field "$WORK/a.json" sleeper calls)" 5 "the report was written first"
expect_eq "$(kernel_field "$WORK/a.json" sleeper timed)" 5 "with its pairs read"

# (The program's handler calls exit(), which ThreadSanitizer would flag as signal-unsafe.)
rc=$(TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS }report_signal_unsafe=0" \
    KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/b.json" terminated b ready handler)
expect_eq "$rc" 3 "the program's own handler ran"
expect_eq "$(kernel_field "$WORK/b.json" sleeper calls)" 5 "and the report was written"

# A program that sets its handler at its start only where it finds the default, as Python does for SIGINT
# (KeyboardInterrupt; SIGTERM here, which a background job keeps): libkprof's handlers come at the first
# CUDA call, so the program finds the default, and on the signal the report is written, then its handler
# runs (a breaker helper: with libkprof's installed when it was loaded, Python's Ctrl-C killed the script,
# status 130, with no cleanup).
rc=$(KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/py.json" terminated py ready python)
expect_eq "$rc" 0 "python-like, KPROF_SIGNALS=1: the signal ends it through its own handler (status 0)"
expect_grep '^SIGTERM at start: default$' "$WORK/py.out" "python-like: the default found at the start"
expect_grep '^interrupted: cleaning up$' "$WORK/py.out" "python-like: its cleanup ran"
expect_eq "$(kernel_field "$WORK/py.json" sleeper calls)" 5 "python-like: and the report was written"

# A program whose SIGTERM handler, installed after libkprof's, calls the one it replaced (libkprof's): the
# report comes from its exit, and it shuts down as it does without libkprof (a breaker helper: the helper
# thread put the default back and raised the signal again: killed, status 143).
rc=$(KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/chain.json" terminated chain ready chain)
expect_eq "$rc" 0 "a chaining handler: it shut down on its own (status 0)"
expect_grep '^interrupted: cleaning up$' "$WORK/chain.out" "a chaining handler: its cleanup ran"
expect_eq "$(kernel_field "$WORK/chain.json" sleeper calls)" 5 "a chaining handler: the report written at its exit"

# Both: a handler set at the start (A), then, after the first CUDA call, one that calls the handler it
# replaced (B, which then replaces libkprof's): without libkprof B calls A, and so it does with libkprof (a
# second tester: libkprof's handler, called by B, did nothing, and A never ran).
rc=0
KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/ab.json" run_kprof "$PROGS/signal_chain" >"$WORK/ab.out" 2>&1 || rc=$?
expect_eq "$rc" 0 "a chain B -> libkprof's -> A: A ran (status 0)"
expect_grep '^handler B ran: 1, handler A ran: 1$' "$WORK/ab.out" "a chain B -> libkprof's -> A: both ran"
expect_eq "$(kernel_field "$WORK/ab.json" signal_chain calls)" 5 "a chain B -> libkprof's -> A: the report at exit"

rc=$(KPROF_FORMAT=json KPROF_OUTPUT="$WORK/c.json" terminated c ready)
expect_eq "$rc" 143 "without KPROF_SIGNALS: ended by the signal"
[ ! -e "$WORK/c.json" ] || fail "a report was written without KPROF_SIGNALS"
pass "and no report (documented: fatal signals lose it unless KPROF_SIGNALS=1)"

# A SIGTERM while the first CUDA call is still creating the context (200-370 ms on an H200; 6 s here,
# FAKEGPU_CTX_INIT_MS): nothing measured yet, so no report, but one line that says why (it used to end
# with neither).
rc=$(KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/d.json" FAKEGPU_CTX_INIT_MS=6000 terminated d 2)
expect_eq "$rc" 143 "during context creation: ended by SIGTERM"
[ ! -e "$WORK/d.json" ] || fail "a report was written with nothing measured"
expect_eq "$(grep -c '^libkprof: SIGTERM arrived while the first CUDA call was still creating the context: nothing' "$WORK/d.out")" 1 \
    "the one line that says why there is no report"

# The line is for a call in flight only: a program whose CUDA calls are over (here it asked for the device
# count, making no context) and that is then ended by SIGTERM gets none (a breaker helper found it printed
# whenever the driver had been loaded, also in forked children that never used CUDA).
rc=$(KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/e.json" terminated e ready nocontext)
expect_eq "$rc" 143 "no context, no call in flight: ended by SIGTERM"
expect_eq "$(grep -c '^libkprof: SIGTERM arrived' "$WORK/e.out")" 0 "and no line about a context being created"

# A SIGTERM that lands while a launch holds one of libkprof's locks (or the driver's): the handler used
# to wait there for the helper's report, which needed that very lock; 10 s later the default action ended
# the process with no report (a breaker helper: 4 runs in 12).  The handler now returns at once, and the
# helper raises the signal again once the report is written.
i=0
while [ $i -lt 6 ]; do
    i=$((i + 1))
    start_s=$(date +%s)
    rc=$(KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/loop$i.json" terminated loop$i ready loop)
    took=$(($(date +%s) - start_s))
    expect_eq "$rc" 143 "a launch loop ($i): ended by SIGTERM"
    [ -s "$WORK/loop$i.json" ] || fail "a launch loop ($i): no report"
    [ "$took" -lt 5 ] || fail "a launch loop ($i): it took $took s to end"
    pass "a launch loop ($i): the report written, ended in $took s"
done

# A SIGTERM while exit() drains pairs that never complete (FAKEGPU_HANG: KPROF_EXIT_TIMEOUT, 1 s here):
# the helper found the report under way, let the signal end the process at once, and the report was lost
# (the breaker: 3 runs in 3).  It now waits for the report under way.
(export FAKEGPU_HANG=1 KPROF_EXIT_TIMEOUT=1000 KPROF_SIGNALS=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/drain.json" &&
    start "$PROGS/sleeper" exit) >"$WORK/drain.out" 2>&1 &
pid=$!
wait_ready "$WORK/drain.out"
sleep 0.3 # main has returned: exit() drains for 1 s
kill -TERM $pid
rc=0; wait $pid || rc=$?
case $rc in 0|143) pass "SIGTERM during the exit drain: ended ($rc)" ;; *) fail "SIGTERM during the exit drain: exit status $rc" ;; esac
[ -s "$WORK/drain.json" ] || { cat "$WORK/drain.out" >&2; fail "SIGTERM during the exit drain: no report"; }
expect_eq "$(kernel_field "$WORK/drain.json" sleeper calls)" 5 "SIGTERM during the exit drain: the report written"
