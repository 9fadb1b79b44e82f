#!/bin/sh
# kprof-merge warns, in one line on stderr, when the reports come from different programs (the base name
# of each report's command), and merges them anyway; ranks of one program, whatever path started them, get
# no warning.
. "${top_srcdir:-..}/tests/lib.sh"
MERGE=$top_builddir/tools/kprof-merge
[ -x "$MERGE" ] || skip "kprof-merge not built (configure found no jansson)"
need_jq
[ -x "$FAKE/progs/graphapp" ] && [ -x "$FAKE/progs/multigpu" ] || skip "fake programs not built"
G=$(cd "$FAKE/progs" && pwd)/graphapp
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/a.json" run_kprof "$G" mixed >/dev/null || fail "graphapp failed"
# The same program by another path: still one program.
(cd "$FAKE/progs" && KPROF_FORMAT=json KPROF_OUTPUT="$WORK/b.json" run_kprof ./graphapp mixed >/dev/null) ||
    fail "./graphapp failed"
FAKEGPU_DEVICES=2 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/c.json" run_kprof "$FAKE/progs/multigpu" >/dev/null || fail "multigpu failed"

"$MERGE" -f json -o "$WORK/ab.json" "$WORK/a.json" "$WORK/b.json" 2>"$WORK/err"
cat "$WORK/err"
expect_no_grep . "$WORK/err" "one program by two paths: no warning"

rc=0
"$MERGE" -f json -o "$WORK/abc.json" "$WORK/a.json" "$WORK/b.json" "$WORK/c.json" 2>"$WORK/err" || rc=$?
cat "$WORK/err"
expect_eq "$rc" 0 "exit status: merged anyway"
expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "one warning line"
expect_grep '^kprof-merge: the reports come from 2 different programs \(graphapp in .*/a\.json, multigpu in .*/c\.json\); merged anyway$' \
    "$WORK/err" "the warning names each program and its first report"
expect_eq "$(jqr .processes "$WORK/abc.json")" 3 "all three reports merged"
# Programs in a directory whose name holds a space: told apart by their base names (the command was cut at
# its first space, so both read "sp": a breaker helper).
mkdir -p "$WORK/sp ace"
cp "$G" "$WORK/sp ace/alpha" && cp "$FAKE/progs/multigpu" "$WORK/sp ace/beta" || fail "copies failed"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/sa.json" run_kprof "$WORK/sp ace/alpha" mixed >/dev/null || fail "alpha failed"
FAKEGPU_DEVICES=2 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/sb.json" run_kprof "$WORK/sp ace/beta" >/dev/null || fail "beta failed"
"$MERGE" -f json -o /dev/null "$WORK/sa.json" "$WORK/sb.json" 2>"$WORK/err"
expect_grep '^kprof-merge: the reports come from 2 different programs \(alpha in .*/sa\.json, beta in .*/sb\.json\); merged anyway$' \
    "$WORK/err" "a space in the path: the programs' base names"
