#!/bin/sh
# KPROF_SAMPLE=auto: every launch counted; each kernel's first 100 launches timed, then fewer and fewer at
# random (KPROF_SEED fixes the draws); totals estimated with a 95% interval that holds the true total, in
# JSON, CSV and text, and kept as they are by kprof report.  A kernel whose durations repeat every 16
# launches fools KPROF_SAMPLE=16 (it times one phase only) but not auto.  KPROF_SAMPLE_BUDGET caps the
# timed launches a second, and the interval widens to match.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
# kernel_a: 15 launches of 2 us, then one of 4 us (mean 2.125 us); kernel_b: 5 us every time.
export FAKEGPU_KERNEL_NS="kernel_a=2000/2000/2000/2000/2000/2000/2000/2000/2000/2000/2000/2000/2000/2000/2000/4000,kernel_b=5000"
N=50000
auto() { # auto NAME SEED: the JSON report of a run with KPROF_SAMPLE=auto in $WORK/NAME.json
    name=$1 seed=$2; shift 2
    FAKEGPU_TRUTH="$WORK/$name.truth" KPROF_SAMPLE=auto KPROF_SEED="$seed" KPROF_SAMPLE_BUDGET=1000000000 \
        KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$name.json" run_kprof "$PROGS/many_launches" $N >/dev/null
}
auto a 7
truth_matches "$WORK/a.json" "$WORK/a.truth"
expect_eq "$(jqr '[.sample_period, .sample_seed] | @csv' "$WORK/a.json")" "0,7" "sample_period 0 (auto) and the seed in the JSON"
true_a=$(awk '$2 == "_Z8kernel_aPf" {print $4}' "$WORK/a.truth")
expect_eq "$true_a" 106250000 "the fake ran kernel_a for 106.25 ms"
timed=$(kernel_field "$WORK/a.json" kernel_a timed)
expect_eq "$(jq -n "$timed > 100 and $timed < $N / 20")" true "kernel_a: $timed of $N launches timed (the first 100, then fewer)"
tot=$(kernel_field "$WORK/a.json" kernel_a total_ns); ci=$(kernel_field "$WORK/a.json" kernel_a total_ci95_ns)
expect_eq "$(jq -n "($tot - $true_a | fabs) <= $ci")" true "kernel_a: the true total $true_a ns within $tot +- $ci ns"
expect_eq "$(jq -n "$ci > 0 and $ci < 0.05 * $tot")" true "kernel_a: the interval is under 5% of the total"
expect_eq "$(kernel_field "$WORK/a.json" kernel_b total_ns)" 25000000 "kernel_b (5 us every launch): the estimate is exact"
expect_eq "$(kernel_field "$WORK/a.json" kernel_b total_ci95_ns)" 0 "kernel_b: and its interval 0"

# The same seed draws the same launches; another seed others.
auto b 7
expect_eq "$(jq -c '[.kernels[] | [.timed, .total_ns]]' "$WORK/b.json")" "$(jq -c '[.kernels[] | [.timed, .total_ns]]' "$WORK/a.json")" \
    "the same seed times the same launches"
auto c 8
[ "$(kernel_field "$WORK/c.json" kernel_a timed)" != "$timed" ] || fail "seed 8 timed the same number of launches as seed 7"
pass "another seed draws other launches"

# A period that matches the durations' own: KPROF_SAMPLE=16 sees only 2 us launches.
KPROF_SAMPLE=16 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/n16.json" run_kprof "$PROGS/many_launches" $N >/dev/null
expect_eq "$(kernel_field "$WORK/n16.json" kernel_a total_ns)" 100000000 "KPROF_SAMPLE=16 aliases (100 ms against 106.25)"

# Text and CSV; the saved JSON read back by kprof report gives the same kernels table.
KPROF_SAMPLE=auto KPROF_SEED=7 KPROF_SAMPLE_BUDGET=1000000000 KPROF_SAVE="$WORK/saved.json" \
    run_kprof "$PROGS/many_launches" $N >/dev/null 2>"$WORK/text"
expect_grep '^Sampled \(KPROF_SAMPLE=auto, KPROF_SEED=7, ' "$WORK/text" "the text report says how it sampled"
# ... and when the budget binds: not in the first 100 ms, and below 1 in 128 if need be (a new user read
# "at most 2000 timed launches a second" and found 12,000 a second in a 0.15 s run).
expect_grep 'at most [0-9]+ timed launches a second after the first 100 ms\):$' "$WORK/text" "the budget's start said"
expect_grep '(below 1 in 128 when the budget needs)' "$WORK/text" "the budget's reach below the floor said"
expect_grep 'kernel_a\(float\*\)  \[Total \+-[0-9.]+%: 95% interval\]$' "$WORK/text" "kernel_a's row gives its interval"
sed -n '/== libkprof: kernels ==/,/^Sampled/p' "$WORK/text" >"$WORK/text.kernels"
"$top_builddir/tools/kprof" report "$WORK/saved.json" 2>&1 | sed -n '/== libkprof: kernels ==/,/^Sampled/p' >"$WORK/reread.kernels"
diff -u "$WORK/text.kernels" "$WORK/reread.kernels" >&2 || fail "kprof report renders the kernels table otherwise"
pass "kprof report keeps the estimates and their intervals"
KPROF_SAMPLE=auto KPROF_SEED=7 KPROF_SAMPLE_BUDGET=1000000000 KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" \
    run_kprof "$PROGS/many_launches" $N >/dev/null
expect_eq "$(head -n1 "$WORK/c.kernels.csv" | tr ',' '\n' | grep -c '^total_ci95_ns$')" 1 "the CSV has total_ci95_ns"

# A budget of 50 timed launches a second: fewer timed, the true total still inside a wider interval.
FAKEGPU_TRUTH="$WORK/d.truth" KPROF_SAMPLE=auto KPROF_SEED=7 KPROF_SAMPLE_BUDGET=50 KPROF_FORMAT=json \
    KPROF_OUTPUT="$WORK/d.json" run_kprof "$PROGS/many_launches" 300000 >/dev/null
true_d=$(awk '$2 == "_Z8kernel_aPf" {print $4}' "$WORK/d.truth")
tot=$(kernel_field "$WORK/d.json" kernel_a total_ns); ci=$(kernel_field "$WORK/d.json" kernel_a total_ci95_ns)
expect_eq "$(jq -n "($tot - $true_d | fabs) <= $ci")" true "budget 50/s: the true total $true_d ns within $tot +- $ci ns"
KPROF_SAMPLE=auto KPROF_SAMPLE_BUDGET=0 run_kprof "$PROGS/many_launches" 10 >/dev/null 2>"$WORK/bad"
expect_grep "^libkprof: ignoring KPROF_SAMPLE_BUDGET='0' " "$WORK/bad" "a bad budget warns"

# kprof-merge: two processes' estimates are independent, so their intervals add in quadrature.
MERGE=$top_builddir/tools/kprof-merge
if [ -x "$MERGE" ]; then
    "$MERGE" -f json -o "$WORK/m.json" "$WORK/a.json" "$WORK/c.json"
    want=$(jq -n "($(kernel_field "$WORK/a.json" kernel_a total_ci95_ns) | . * .) + ($(kernel_field "$WORK/c.json" kernel_a total_ci95_ns) | . * .) | sqrt")
    expect_eq "$(jq -n "($(kernel_field "$WORK/m.json" kernel_a total_ci95_ns) - $want | fabs) < 1e-4 * $want")" true \
        "kprof-merge: kernel_a's interval from both processes' ($want ns)"
    # The text says which totals are estimates, with their interval, as one process's report does on the
    # row (a new user's helper read the merged text as exact: no Timed column, no +-).
    "$MERGE" -o "$WORK/m.txt" "$WORK/a.json" "$WORK/c.json"
    cat "$WORK/m.txt"
    expect_grep "^Estimated: 2 kernels' Total, from the timed launches in some process" \
        "$WORK/m.txt" "kprof-merge text: the estimated totals said"
    pct=$(jq -rn "100 * $want / $(kernel_field "$WORK/m.json" kernel_a total_ns) * 10 | round / 10")
    timed=$(kernel_field "$WORK/m.json" kernel_a timed); calls=$(kernel_field "$WORK/m.json" kernel_a calls)
    expect_grep "^  $timed of $calls calls timed, Total \+-$pct%  kernel_a\(float\*\)$" "$WORK/m.txt" \
        "kprof-merge text: kernel_a's launches timed and interval (+-$pct%)"
    # Every launch timed: no such lines.
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/e.json" run_kprof "$PROGS/many_launches" 1000 >/dev/null
    "$MERGE" -o "$WORK/e.txt" "$WORK/e.json" "$WORK/e.json"
    expect_no_grep '^Estimated' "$WORK/e.txt" "kprof-merge text: every launch timed, no estimate said"
fi
