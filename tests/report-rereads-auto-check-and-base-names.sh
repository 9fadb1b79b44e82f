#!/bin/sh
# kprof report gives back the run's text report byte for byte (README, kprof(1)), on programs of the fake
# stack (report-rereads-the-text-report.sh needs the nvcc-built samples): a new-user helper found two
# parts it dropped or changed.  KPROF_NAMES=base: the captured table's names came back whole
# ("k()" for "k"); KPROF_AUTO_CHECK=1: the text lost its KPROF_AUTO_CHECK block, and -f json its
# "auto_check" and its sample_seed (written back as 0).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
R=$top_builddir/tools/kprof-report
[ -x "$R" ] || skip "kprof-report not built (configure found no jansson)"
again() { # NAME: the run's text report against kprof report's, and -f json against the saved copy
    "$R" "$WORK/$1.json" >"$WORK/$1.again" 2>"$WORK/$1.err" || fail "$1: kprof report failed: $(cat "$WORK/$1.err")"
    cmp "$WORK/$1.txt" "$WORK/$1.again" || { diff -u "$WORK/$1.txt" "$WORK/$1.again" >&2; fail "$1: kprof report differs"; }
    expect_eq "$(cat "$WORK/$1.err")" "" "$1: kprof report says nothing on stderr"
    "$R" -f json "$WORK/$1.json" >"$WORK/$1.again.json" || fail "$1: kprof report -f json failed"
    cmp "$WORK/$1.json" "$WORK/$1.again.json" || { diff -u "$WORK/$1.json" "$WORK/$1.again.json" >&2; fail "$1: -f json differs"; }
    pass "$1: kprof report and -f json give back the run's report"
}
KPROF_NAMES=base KPROF_OUTPUT="$WORK/base.txt" KPROF_SAVE="$WORK/base.json" run_kprof "$PROGS/rt_calls" >/dev/null 2>&1 ||
    fail "rt_calls failed"
expect_grep '^ +1  k$' "$WORK/base.txt" "KPROF_NAMES=base: the captured kernel's base name"
again base
KPROF_AUTO_CHECK=1 KPROF_SEED=11 KPROF_OUTPUT="$WORK/check.txt" KPROF_SAVE="$WORK/check.json" \
    run_kprof "$PROGS/many_launches" 3000 1 >/dev/null 2>&1 || fail "many_launches failed"
expect_grep '^KPROF_AUTO_CHECK \(KPROF_SEED=11\): every launch timed' "$WORK/check.txt" "KPROF_AUTO_CHECK=1: its block"
expect_eq "$(jq -c '[.sample_seed, .auto_check.estimated]' "$WORK/check.json")" '[11,2]' "its seed and estimates saved"
again check
# Counts as large as a report may hold (a breaker helper's crafted one: 5 held and 2^63 - 1 held behind
# other work): their sum is held at the largest count, not wrapped (it read -9223372036854775804, and
# UBSan stopped at the overflow).
sed 's/"held": [0-9]*, "held_kernel": [0-9]*,/"held": 5, "held_kernel": 9223372036854775807,/' "$WORK/base.json" >"$WORK/big.json"
"$R" "$WORK/big.json" >"$WORK/big.txt" 2>"$WORK/big.err" || fail "kprof report of huge counts failed: $(cat "$WORK/big.err")"
expect_grep 'held until queued 9223372036854775807 \(behind other work 9223372036854775807\)' "$WORK/big.txt" \
    "huge counts: their sum held at the largest"
