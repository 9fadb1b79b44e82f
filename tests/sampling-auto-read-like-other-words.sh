#!/bin/sh
# KPROF_SAMPLE=auto is read as every other word-valued variable is (KPROF_FORMAT, KPROF_GROUP...): in any
# case, white space around it ignored, as around a period, so that " auto" from a quoted shell list is not turned into
# "time every launch" with a warning.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for v in "auto " " auto" "	auto	"; do
    KPROF_SAMPLE="$v" KPROF_SEED=7 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
        run_kprof "$PROGS/many_launches" 300 >/dev/null 2>"$WORK/err"
    expect_no_grep "ignoring KPROF_SAMPLE" "$WORK/err" "KPROF_SAMPLE='$v': no warning"
    expect_eq "$(jqr '.sample_period' "$WORK/r.json")" 0 "KPROF_SAMPLE='$v' is auto"
done
# In any case, as the other words (bad-format-warns-and-uses-text.sh); other spellings still warn and
# time every launch.
KPROF_SAMPLE=AUTO KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/many_launches" 10 >/dev/null 2>"$WORK/err"
expect_no_grep "ignoring KPROF_SAMPLE" "$WORK/err" "KPROF_SAMPLE=AUTO: no warning"
expect_eq "$(jqr '.sample_period' "$WORK/r.json")" 0 "KPROF_SAMPLE=AUTO is auto"
KPROF_SAMPLE=automatic KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/many_launches" 10 >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: ignoring KPROF_SAMPLE='automatic' " "$WORK/err" "KPROF_SAMPLE=automatic warns"
expect_eq "$(jqr '.sample_period' "$WORK/r.json")" 1 "KPROF_SAMPLE=automatic times every launch"
