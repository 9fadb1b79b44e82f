#!/bin/sh
# summary.csv holds every counter of the report's events line, as the JSON report's events object does:
# the first five under the names summary.csv has always used (events_created, pairs_incomplete,
# pairs_failed, untimed_no_event, one_event), the others under their JSON names, with the same values
# (it held the first five only, so held launches, draws, stops stamped on an idle stream... were missing).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
mkdir -p "$WORK/csv"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/csv/r" KPROF_SAVE="$WORK/r.json" run_kprof "$PROGS/two_threads" >/dev/null
[ -s "$WORK/csv/r.summary.csv" ] || fail "no summary.csv"
[ -s "$WORK/r.json" ] || fail "no JSON copy (KPROF_SAVE)"
# summary.csv as one JSON object: header names to values.
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i } NR == 2 { for (i = 1; i <= NF; i++) print h[i] "\t" $i }' \
    "$WORK/csv/r.summary.csv")
n=0
for key in $(jq -r '.events | keys[]' "$WORK/r.json"); do
    case $key in
    created) col=events_created ;; incomplete) col=pairs_incomplete ;; failed) col=pairs_failed ;;
    *) col=$key ;;
    esac
    v=$(printf '%s\n' "$got" | awk -F'\t' -v c="$col" '$1 == c { print $2 }')
    expect_eq "$v" "$(jq -r --arg k "$key" '.events[$k]' "$WORK/r.json")" "summary.csv's $col equals the JSON's events.$key"
    n=$((n + 1))
done
[ "$n" -ge 16 ] || fail "only $n event counters in the JSON report"
expect_eq "$(head -1 "$WORK/csv/r.summary.csv" | tr ',' '\n' | wc -l)" $((6 + n)) "summary.csv: 5 columns of the run, one per counter, and the rank"
# The launcher's rank, last (a new-user helper: the JSON had it, the CSV summary not); empty without one.
expect_eq "$(printf '%s\n' "$got" | awk -F'\t' '$1 == "rank" { print "[" $2 "]" }')" "[]" "rank: empty without a launcher's"
PMI_RANK=4 KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/csv/k" run_kprof "$PROGS/two_threads" >/dev/null
expect_eq "$(awk -F, 'NR == 2 { print $NF }' "$WORK/csv/k.summary.csv")" 4 "rank: PMI_RANK=4"
