#!/bin/sh
# KPROF_SAMPLE=auto is read as every other word-valued variable is (KPROF_FORMAT, KPROF_GROUP...): white
# space around it ignored, as around a period, so that " auto" from a quoted shell list is not turned into
# "time every launch" with a warning.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for v in "auto " " auto" "	auto	"; do
    KPROF_SAMPLE="$v" KPROF_SEED=7 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
        run_kprof "$PROGS/many_launches" 300 >/dev/null 2>"$WORK/err"
    expect_no_grep "ignoring KPROF_SAMPLE" "$WORK/err" "KPROF_SAMPLE='$v': no warning"
    expect_eq "$(jqr '.sample_period' "$WORK/r.json")" 0 "KPROF_SAMPLE='$v' is auto"
done
# Other spellings still warn and time every launch.
KPROF_SAMPLE=Auto KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/many_launches" 10 >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: ignoring KPROF_SAMPLE='Auto' " "$WORK/err" "KPROF_SAMPLE=Auto warns"
expect_eq "$(jqr '.sample_period' "$WORK/r.json")" 1 "KPROF_SAMPLE=Auto times every launch"
