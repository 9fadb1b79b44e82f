#!/bin/sh
# KPROF_SAMPLE=auto times every launch of a kernel at first and fewer and fewer later, so its timed
# launches over-represent the start of the run: each counts as 1/p launches (p its odds of being timed)
# in the total's estimate, and so in Avg, StdDev and the percentiles too, which then describe every launch
# (before, a kernel that slowed down from 1 us to 5 us after 1000 of 3000 launches read Avg 2.0 us and Med
# 1.0 us beside a Total of 11.06 ms, 3.69 us a launch).  kprof report renders them again from the saved
# weighed sums (steady_w, steady_wx, steady_wxx).
. "${top_srcdir:-..}/tests/lib.sh"
# Every launch due a hold gets one (KPROF_HOLD=1), so that what is counted and read does not depend on
# the draw of the default (sampled-holds-learn-each-shapes-offset.sh).
export KPROF_HOLD=1
need_jq
K=$top_builddir/tools/kprof
export FAKEGPU_EVENT_PENDING_QUERIES=1 FAKEGPU_KERNEL_LATER="kernel_a=1000:5000"
# No budget of timed launches a second (KPROF_SAMPLE_BUDGET): the odds then depend on the seed alone, not on
# how fast a loaded machine runs the loop (a parallel make check read Avg 3514 and 3552 ns with the default).
KPROF_SAMPLE=auto KPROF_SEED=7 KPROF_SAMPLE_BUDGET=1000000000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/auto.json" \
    run_kprof "$PROGS/many_launches" 3000 1 >/dev/null ||
    fail "many_launches under auto failed"
expect_eq "$(kernel_field "$WORK/auto.json" kernel_a calls)" 3000 "every launch counted"
# (How many: 445 on an idle machine; the kernel's warm-up follows its spread, which jumps with its lengths
# at launch 1000, by as much as the harvester has read of the longer ones when it next weighs them: a CI
# -O0 build timed 1000 or more.  A third left untimed at the least.)
timed=$(kernel_field "$WORK/auto.json" kernel_a timed)
[ "$timed" -lt 2000 ] || fail "auto timed $timed of 3000 launches, expected a third or more left untimed"
# Every launch: 1000 of 1 us and 2000 of 5 us: mean 3667 ns, standard deviation 1886 ns, median 5 us.
a=$(kernel_field "$WORK/auto.json" kernel_a avg_ns)
[ "$a" -ge 3560 ] && [ "$a" -le 3780 ] || fail "Avg $a ns, expected about 3667 (the timed launches unweighed read about 2045)"
pass "Avg $a ns, every launch's"
sd=$(kernel_field "$WORK/auto.json" kernel_a stddev_ns | cut -d. -f1)
[ "$sd" -ge 1790 ] && [ "$sd" -le 1980 ] || fail "StdDev $sd ns, expected about 1886"
pass "StdDev $sd ns"
expect_eq "$(kernel_field "$WORK/auto.json" kernel_a median_ns)" 5000 "Med: every launch's, 5 us"
expect_eq "$(kernel_field "$WORK/auto.json" kernel_a instances_median_ns)" 5000 "nsys's Med too"
# Every launch timed: the same figures, exact, and no weighed sums.
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/all.json" run_kprof "$PROGS/many_launches" 3000 1 >/dev/null || fail "many_launches failed"
expect_eq "$(kernel_field "$WORK/all.json" kernel_a avg_ns)-$(kernel_field "$WORK/all.json" kernel_a median_ns)" 3668-5000 \
    "every launch timed: Avg over launches after the first, Med"
expect_eq "$(kernel_field "$WORK/all.json" kernel_a steady_w)" 0 "no weighed sums without auto"
# kprof-merge weighs each process's timed launches as the process did: two copies of the run merge to
# the same Avg (unweighed, the timed launches read about 2045 ns).
MERGE=$top_builddir/tools/kprof-merge
if [ -x "$MERGE" ]; then
    "$MERGE" -f json -o "$WORK/merged.json" "$WORK/auto.json" "$WORK/auto.json" 2>"$WORK/merge.err" ||
        fail "kprof-merge failed: $(cat "$WORK/merge.err")"
    m=$(kernel_field "$WORK/merged.json" kernel_a avg_ns)
    [ "$m" -ge 3560 ] && [ "$m" -le 3780 ] || fail "merged Avg $m ns, expected about 3667 as in each process"
    pass "merged Avg $m ns, every launch's"
fi
# kprof report: the run's text again, byte for byte.
[ -x "$top_builddir/tools/kprof-report" ] || skip "kprof-report not built (configure found no jansson)"
case $SAN_PRELOAD in
*tsan*) skip "runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env LD_LIBRARY_PATH="$FAKE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} KPROF_SEED=7 "$K" --sample auto --save "$WORK/r.json" -o "$WORK/r.txt" \
    "$PROGS/many_launches" 3000 1 >/dev/null 2>&1 || fail "kprof --sample auto failed"
"$K" report "$WORK/r.json" >"$WORK/again.txt" 2>"$WORK/again.err" || fail "kprof report failed: $(cat "$WORK/again.err")"
cmp "$WORK/r.txt" "$WORK/again.txt" || { diff -u "$WORK/r.txt" "$WORK/again.txt" >&2; fail "kprof report differs"; }
pass "kprof report renders the weighed figures again, byte for byte"
