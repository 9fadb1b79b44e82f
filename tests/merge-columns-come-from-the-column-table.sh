#!/bin/sh
# kprof-merge writes the columns it shares with libkprof's report from src/columns.def: kprof-merge.c, as
# it is, built against a copy of columns.def in which kernels' Calls is headed Launches, Total is 20 wide,
# share is keyed time_share and a column is added (with its one line in tools/merge-columns.def), writes
# the merged kernels table with that header, width and key, and the new column in text and JSON.
. "${top_srcdir:-..}/tests/lib.sh"
[ -x "$top_builddir/tools/kprof-merge" ] || skip "kprof-merge not built (configure found no jansson)"
need_jq
D=$top_srcdir/tests/data/merge
R="$D/rank0.json $D/rank1.json $D/rank2.json"

# The built kprof-merge: the kernels table's headers as columns.def has them.
"$top_builddir/tools/kprof-merge" $R >"$WORK/real.txt"
"$top_builddir/tools/kprof-merge" -f json $R >"$WORK/real.json"
expect_grep '^Procs     Calls    Total \(ms\)    Avg \(us\) ' "$WORK/real.txt" "built: Calls and Total (ms) as columns.def heads them"

# The copy: src's headers, columns.def changed, tools' merge-columns.def with the new column's line.
mkdir -p "$WORK/src" "$WORK/tools"
cp "$top_srcdir"/src/*.h "$WORK/src/"
cp "$top_srcdir/tools/kprof-merge.c" "$top_srcdir/tools/text-report.h" "$WORK/tools/"
sed -e 's/TEXT("Calls", 3, 9, NONE)/TEXT("Launches", 3, 9, NONE)/' \
    -e 's/TEXT("Total", 2, 13, AUTO)/TEXT("Total", 2, 20, AUTO)/' \
    -e 's/JSON("share", 17)/JSON("time_share", 17)/' \
    -e '/^KPROF_COLUMN(kernels, calls,/i\
KPROF_COLUMN(kernels, untimed, COUNT, 0, U64(k->calls - k->timed), 0,\
             JSON("untimed", 40), CSV(NULL, 0), TEXT("Untimed", 40, 9, NONE))' \
    "$top_srcdir/src/columns.def" >"$WORK/src/columns.def"
for changed in '"Launches"' '"Total", 2, 20' '"time_share"' 'kernels, untimed'; do
    grep -q "$changed" "$WORK/src/columns.def" || fail "columns.def no longer has the line this test changes ($changed)"
done
sed '/^MERGE_COLUMN(kernels, calls,/a\
MERGE_COLUMN(kernels, untimed, LIB(kernels, untimed), SAME, U64(k->calls - k->timed), 2, "")' \
    "$top_srcdir/tools/merge-columns.def" >"$WORK/tools/merge-columns.def"
grep -q 'kernels, untimed' "$WORK/tools/merge-columns.def" || fail "merge-columns.def has no kernels calls line"
${CC:-cc} -std=gnu11 -I"$WORK/src" -I"$top_builddir" -o "$WORK/kprof-merge" "$WORK/tools/kprof-merge.c" \
    "$top_srcdir/src/report/column_table.c" "$top_srcdir/src/report/text_table.c" -ljansson -lm 2>"$WORK/cc.err" ||
    { cat "$WORK/cc.err" >&2; fail "kprof-merge does not build against the changed columns.def"; }
pass "kprof-merge.c builds, unchanged, against the changed columns.def"

"$WORK/kprof-merge" $R >"$WORK/copy.txt"
"$WORK/kprof-merge" -f json $R >"$WORK/copy.json"
cat "$WORK/copy.txt"
expect_grep '^Procs  Launches   Untimed           Total \(ms\)    Avg \(us\) ' "$WORK/copy.txt" \
    "text: Launches, the new Untimed after it, Total 20 wide: columns.def's header, column and width"
expect_eq "$(sed -n '/^== kprof-merge: kernels ==$/,/^== kprof-merge: graphs ==$/p' "$WORK/copy.txt" | grep -c Calls)" 0 \
    "text: no Calls header left in the kernels table"
expect_eq "$(jq -c '[.kernels[0] | keys_unsorted[]] | index("time_share") != null and index("share") == null' "$WORK/copy.json")" true \
    "JSON: share under columns.def's key time_share"
expect_eq "$(jq -c '[.kernels[] | .share]' "$WORK/real.json")" "$(jq -c '[.kernels[] | .time_share]' "$WORK/copy.json")" \
    "JSON: the same values under it"
expect_eq "$(jq -c '[.kernels[] | .calls - .timed]' "$WORK/real.json")" "$(jq -c '[.kernels[] | .untimed]' "$WORK/copy.json")" \
    "JSON: the new column's values"
expect_eq "$(jq -r '.kernels[0] | keys_unsorted | join(",")' "$WORK/copy.json" | sed 's/,untimed//; s/time_share/share/')" \
    "$(jq -r '.kernels[0] | keys_unsorted | join(",")' "$WORK/real.json")" "JSON: every other key as the built kprof-merge writes it"
