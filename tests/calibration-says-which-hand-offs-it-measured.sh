#!/bin/sh
# A hand-off situation that too few of the calibration's launches fell in is taken off as nothing; the
# report said "0.00" for it, as for one measured at 0 (a new-user helper).  With every launch call taking
# 100 us of host time on the fake GPU (each event seen complete at the first query), no launch behind a predecessor finds its stream still busy: those
# read "-" in the text report, null in the JSON, empty in the CSV, with a note; the idle and held ones
# were measured.  kprof report renders the saved JSON's text the same.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_HOST_NS=100000 FAKEGPU_EVENT_PENDING_QUERIES=0
run_kprof "$PROGS/named" kA >/dev/null 2>"$WORK/err" || fail "named failed: $(cat "$WORK/err")"
line=$(grep '^Hand-off calibration, device 0' "$WORK/err")
echo "$line"
case $line in
*"kernel - HtoD - DtoH - DtoD - memset - other - held "[0-9]*"; one event: kernel - "*) pass "the unmeasured situations read -" ;;
*) fail "expected '-' for the situations behind a predecessor: $line" ;;
esac
expect_grep '\(-: too few launches fell in the situation to measure it; nothing taken off there\)' "$WORK/err" "with a note"
expect_grep 'idle -?[0-9]+\.[0-9][0-9] kernel -' "$WORK/err" "the idle one measured"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/named" kA >/dev/null 2>&1 || fail "json run failed"
expect_eq "$(jq -c '.calibration[0] | [.handoff_ns.kernel, .handoff_shared_ns.HtoD, (.handoff_ns.idle | type), (.handoff_ns.held | type)]' "$WORK/r.json")" \
    '[null,null,"number","number"]' "JSON: null where not measured"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$PROGS/named" kA >/dev/null 2>&1 || fail "csv run failed"
expect_eq "$(awk -F, '$5 == "own" && $6 == "kernel" {print "[" $7 "]"}' "$WORK/c.calibration.csv")" "[]" "CSV: empty where not measured"
R=$top_builddir/tools/kprof-report
if [ -x "$R" ]; then
    "$R" "$WORK/r.json" >"$WORK/again" 2>&1 || fail "kprof report failed"
    expect_grep 'kernel - HtoD - DtoH - DtoD - memset - other - held' "$WORK/again" "kprof report: the same"
fi
# A hand-off below 0 (the idle situation, where the idle-stream correction can take off more than the pair
# holds beyond its kernel: -0.08 to -0.13 us on the fake with the real host clock) is explained on the line
# (a new user's helper asked what "idle -0.08" meant); none where it is 0 or above.
run_clocked "$PROGS/named" kA >/dev/null 2>"$WORK/clocked" || fail "named failed on the virtual clock"
expect_grep 'idle 0\.00 kernel' "$WORK/clocked" "on the virtual host clock, idle 0.00"
expect_no_grep 'idle below 0' "$WORK/clocked" "no note while idle is not below 0"
if [ -x "$R" ]; then
    jq '.calibration[0].handoff_ns.idle = -80' "$WORK/r.json" >"$WORK/neg.json"
    "$R" "$WORK/neg.json" >"$WORK/neg" 2>&1 || fail "kprof report failed on a negative idle hand-off"
    expect_grep 'idle -0\.08 kernel -' "$WORK/neg" "kprof report: idle -0.08"
    expect_grep '\(idle below 0: the idle-stream correction, the host.s time from the start event to the launch call.s return, took off more than the pair holds beyond its kernel; that much is added back\)' \
        "$WORK/neg" "the note on a hand-off below 0"
    # Below 0 by less than 5 ns: 0.00, not "-0.00" without a note (a breaker helper).
    jq '.calibration[0].handoff_ns.idle = -3' "$WORK/r.json" >"$WORK/tiny.json"
    "$R" "$WORK/tiny.json" >"$WORK/tiny" 2>&1 || fail "kprof report failed on a tiny negative idle hand-off"
    expect_grep 'idle 0\.00 kernel -' "$WORK/tiny" "kprof report: -3 ns reads idle 0.00"
    expect_no_grep 'idle below 0' "$WORK/tiny" "no note for -3 ns"
fi
