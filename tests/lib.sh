# lib.sh: shared helpers for libkprof's tests: run a program under libkprof against the fake CUDA stack and
# query its report.  Sourced by each tests/*.sh; `make check` sets top_builddir and top_srcdir.
set -eu

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
KPROF_LIB=$top_builddir/src/.libs/libkprof.so
FAKE_LIB=$top_builddir/tests/fake/lib
KERNELS=$top_builddir/kernels
PROGS=$top_builddir/tests/progs
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kprof-$TEST_NAME.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# Runs "$@" against the fake CUDA stack, with libkprof preloaded (and the sanitizer runtime first, in
# sanitizer builds).  KPROF_* and FAKEGPU_* variables pass through from the caller.
#
# The fake GPU's clock is virtual: its events complete at their first query unless told otherwise, which
# libkprof would take for an idle stream (and correct for host launch latency that the fake does not
# have).  One pending query per event keeps the fake's exact times exact, unless the harvester queries an
# event twice before its thread's next launch (a descheduled thread): that launch, if not drawn for a hold
# (KPROF_HOLD), loses the host's real lag.  Tests of exact totals with threads read each pair's raw length
# from the trace or set KPROF_HOLD=1; tests of the idle-stream correction set
# FAKEGPU_EVENT_PENDING_QUERIES=0 themselves.
#
# Every run is bounded (KPROF_TEST_TIMEOUT seconds, default 300): a hang fails its test (exit 124)
# instead of stalling the whole suite.
run_kprof() {
    timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" \
        env FAKEGPU_EVENT_PENDING_QUERIES="${FAKEGPU_EVENT_PENDING_QUERIES:-1}" LD_LIBRARY_PATH="$FAKE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$KPROF_LIB" "$@"
}
# run_clocked CMD...: as run_kprof, with the virtual host clock (tests/fake/hostclock.c) preloaded before
# libkprof, so that the fake GPU's clock runs with the host's and host times come out exact.  CMD may begin
# with VAR=VALUE settings (env's).
run_clocked() {
    [ -f "$FAKE_LIB/libfakeclock.so" ] || fail "tests/fake/lib/libfakeclock.so not built"
    timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" \
        env FAKEGPU_EVENT_PENDING_QUERIES="${FAKEGPU_EVENT_PENDING_QUERIES:-1}" LD_LIBRARY_PATH="$FAKE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$FAKE_LIB/libfakeclock.so $KPROF_LIB" "$@"
}
# preds_idle JSON [VAR=VALUE...]: preds idle (idle_k on an idle stream, each launch waited for) under
# libkprof on the virtual host clock, with those variables, its JSON report in $WORK/JSON.
preds_idle() {
    json=$1
    shift
    (export "$@" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$json" && run_clocked "$PROGS/preds" idle) >/dev/null ||
        fail "preds idle ($*) failed"
}
# preds_exact MODE TAG EXPECTED: preds MODE under libkprof with KPROF_HOLD=8 on the virtual host clock, its
# JSON report in $WORK/TAG.json and its trace in $WORK/TAG.trace.json; its first kernel's [calls, total_ns,
# min_ns, max_ns] must be EXPECTED (every launch read exact).
preds_exact() {
    (export KPROF_HOLD=8 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$2.json" KPROF_TRACE="$WORK/$2.trace.json" &&
        run_clocked "$PROGS/preds" "$1") >/dev/null 2>"$WORK/err" || fail "preds $1 failed: $(cat "$WORK/err")"
    expect_eq "$(jq -c '[.kernels[0] | .calls, .total_ns, .min_ns, .max_ns]' "$WORK/$2.json")" "$3" "the total exact"
}
# Runs "$@" against the fake CUDA stack without libkprof (but with the sanitizer runtime the fake needs in
# sanitizer builds).
run_plain() {
    timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env LD_LIBRARY_PATH="$FAKE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} "$@"
}

FAKE=$top_builddir/tests/fake

# truth_matches REPORT TRUTH: every kernel the fake GPU ran (FAKEGPU_TRUTH file) is in the JSON report
# with the same number of launches, and the report has no kernel the fake did not run.  libkprof's own
# calibration kernels (kprof_calibrate and kprof_calibrate_wide, run once per context) are not the app's.
truth_matches() {
    awk '$1 == "kernel" && $3 > 0 && $2 != "kprof_calibrate" && $2 != "kprof_calibrate_wide" {print $2, $3}' "$2" | sort >"$WORK/truth.kernels"
    jq -r '.kernels[] | "\(.mangled) \(.calls)"' "$1" | sort >"$WORK/report.kernels"
    diff -u "$WORK/truth.kernels" "$WORK/report.kernels" >&2 || fail "kernel counts differ from the fake GPU's"
    pass "every kernel counted exactly once ($(wc -l <"$WORK/truth.kernels" | tr -d ' ') kernels)"
}

need_kernels() { [ -x "$KERNELS/reduce" ] || skip "kernels/ samples not built (configure found no nvcc)"; }
need_jq() { command -v jq >/dev/null 2>&1 || fail "jq is needed by the tests (apt-get install jq)"; }

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() {
    [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
    pass "$3 = $2"
}
# expect_grep PATTERN FILE WHAT
expect_grep() {
    grep -Eq -- "$1" "$2" || { cat "$2" >&2; fail "$3: no line matches /$1/ in $2"; }
    pass "$3"
}
expect_no_grep() {
    ! grep -Eq -- "$1" "$2" || { cat "$2" >&2; fail "$3: a line matches /$1/ in $2"; }
    pass "$3"
}
# jqr FILTER FILE: one value from a JSON report
jqr() { jq -r "$1" "$2"; }
# kernel_field FILE NAME-SUBSTRING FIELD: a field of the (first) kernel whose demangled name contains NAME
kernel_field() { jq -r --arg n "$2" --arg f "$3" '[.kernels[] | select(.name | contains($n))][0][$f]' "$1"; }
# expect_totals JSON PER_MILLE WHAT NAME:TRUTH_NS...: each kernel's total_ns within PER_MILLE thousandths of
# its truth (a failure names WHAT).
expect_totals() {
    json=$1 pm=$2 what=$3
    shift 3
    for k in "$@"; do
        name=${k%%:*} truth=${k#*:}
        got=$(kernel_field "$json" "$name" total_ns)
        [ $(((got - truth) * 1000)) -le $((truth * pm)) ] && [ $(((truth - got) * 1000)) -le $((truth * pm)) ] ||
            fail "$what: $name read $got ns, expected $truth within $pm per mille"
        pass "$what: $name $got ns ($truth)"
    done
}
# seed_totals MODE NAME TRUTH_NS PER_MILLE SEED...: preds MODE on the virtual host clock once per seed
# (KPROF_SEED; KPROF_* and FAKEGPU_* from the caller), each run's total of kernel NAME printed and within
# PER_MILLE thousandths of TRUTH_NS, or a failure naming every seed outside.
seed_totals() {
    st_mode=$1 st_name=$2 st_truth=$3 st_pm=$4
    shift 4
    st_bad=
    for st_seed in "$@"; do
        (export KPROF_SEED=$st_seed KPROF_FORMAT=json KPROF_OUTPUT="$WORK/seed$st_seed.json" &&
            run_clocked "$PROGS/preds" "$st_mode") >/dev/null 2>"$WORK/err" ||
            fail "preds $st_mode failed: $(cat "$WORK/err")"
        st_got=$(kernel_field "$WORK/seed$st_seed.json" "$st_name" total_ns)
        echo "seed $st_seed: $st_name $st_got ns ($st_truth due)"
        [ $(((st_got - st_truth) * 1000)) -le $((st_truth * st_pm)) ] &&
            [ $(((st_truth - st_got) * 1000)) -le $((st_truth * st_pm)) ] || st_bad="$st_bad $st_seed"
    done
    [ -z "$st_bad" ] || fail "seeds$st_bad: $st_name's total more than $st_pm per mille off $st_truth ns"
    pass "$st_name's total within $st_pm per mille of $st_truth ns, seeds $*"
}
# idle_env KERNELS: exports the fake GPU of the idle-stream tests: no pending query per event
# (FAKEGPU_EVENT_PENDING_QUERIES=0: an event is seen complete 1 ns after its stamp on the virtual host
# clock), a 1.5 us launch call, a 7 us launch latency on an idle stream, a 0.7 us hand-off between
# kernels, the kernels' lengths KERNELS (FAKEGPU_KERNEL_NS) and KPROF_SEED=7.
idle_env() {
    export FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_EVENT_SEEN_NS=1 FAKEGPU_LAUNCH_HOST_NS=1500 \
        FAKEGPU_LAUNCH_LATENCY_NS=7000 FAKEGPU_HANDOFF_NS="kernel=700" FAKEGPU_KERNEL_NS="$1" KPROF_SEED=7
}
# decode_env: exports the fake GPU's model of an eager decode loop's pace (preds decode: 8 kernels of 8 to
# 64 blocks, host naps of 1 to 12 us, a varying 2.5 us launch latency, events seen 4.5 us after their stamp,
# lengths that vary); expect_decode JSON PERCENT WHAT: each of its kernels' 2000 launches counted and its
# total within PERCENT of its truth.
decode_env() {
    export FAKEGPU_LAUNCH_HOST_NS=1500 FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_LATENCY_NS=2500 \
        FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS=5 FAKEGPU_LAUNCH_JITTER_NS=0/300/0/800/100/0/2100/50/400 \
        FAKEGPU_EVENT_SEEN_NS=4500 PREDS_NAPS_NS=1000/12000 \
        FAKEGPU_KERNEL_NS=dk0=1000/1100,dk1=3000,dk2=1500/1300/1700,dk3=2000,dk4=1000,dk5=2500,dk6=1200,dk7=800/900
}
DECODE_TRUTH='{"dk0":2100000,"dk1":6000000,"dk2":2999800,"dk3":4000000,"dk4":2000000,"dk5":5000000,"dk6":2400000,"dk7":1700000}'
expect_decode() {
    bad=$(jq -r --argjson t "$DECODE_TRUTH" --arg p "$2" '.kernels[] | select(.calls != 2000 or
        ((.total_ns - $t[.name]) | fabs) * 100 > ($p | tonumber) * $t[.name]) | "\(.name) \(.calls) \(.total_ns)"' "$1")
    [ -z "$bad" ] || fail "$3: off by more than $2% (name, calls, total_ns; truths $DECODE_TRUTH): $bad"
    pass "$3: the 8 kernels' totals within $2%"
}
# mask_split_csv KERNELS.CSV: the file with its last four fields (the launch call host times and queue
# times, which vary from run to run) read <host> on every row but the header.
mask_split_csv() { sed -E '1!s/(,[^,]*){4}$/,<host>,<host>,<host>,<host>/' "$1"; }
# copy_field FILE DIRECTION FIELD
copy_field() { jq -r --arg d "$2" --arg f "$3" '[.copies[] | select(.direction == $d)][0][$f] // 0' "$1"; }
