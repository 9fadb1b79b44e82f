#!/bin/sh
# Within one kprof invocation (KPROF_INVOCATION, set by the launcher) no report overwrites another's:
# `kprof -o out.json sh -c 'a; b'` keeps both (the second as out.<pid>.json, with a warning: before its
# extension, so that a glob such as out*.json finds it, which out.json.<pid> escaped), while a report left
# by an earlier invocation is still replaced.  A forked child adds ".<pid>" to a pattern whose only "%p"
# is a literal "%%p".
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
K=$top_builddir/tools/kprof
P=$PROGS/chatty
# A literal %% before p is no %p: the forked child's report still gets its ".<pid>".
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/f-%%p.json" run_kprof "$P" fork >/dev/null 2>"$WORK/ferr"
[ -f "$WORK/f-%p.json" ] || { ls "$WORK" >&2; fail "no parent report f-%p.json"; }
set -- "$WORK"/f-%p.[0-9]*.json
[ -f "$1" ] || { ls "$WORK" >&2; fail "the child's report did not get its .<pid> before .json"; }
expect_eq "$(kernel_field "$1" chatty calls)" 1 "the child's own report"
expect_eq "$(kernel_field "$WORK/f-%p.json" chatty calls)" 3 "and the parent's"

case $SAN_PRELOAD in
*tsan*) skip "the launcher (a shell script) runs with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
kprof() {
    timeout -k 10 60 env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" "$K" "$@"
}
echo '{"old": true}' >"$WORK/out.json"
touch -d '1 hour ago' "$WORK/out.json"
kprof -f json -o "$WORK/out.json" sh -c '"$1" out=1; "$1" out=2' sh "$P" >/dev/null 2>"$WORK/err"
expect_eq "$(jqr '.old // "replaced"' "$WORK/out.json")" replaced "the earlier invocation's report is replaced"
set -- "$WORK"/out.[0-9]*.json
[ -f "$1" ] && [ $# = 1 ] || { ls "$WORK" >&2; fail "no second report out.<pid>.json"; }
expect_eq "$(kernel_field "$1" chatty calls)" 3 "the second program's report is kept apart"
expect_eq "$(kernel_field "$WORK/out.json" chatty calls)" 3 "the first program's report is kept"
[ "$(jqr .pid "$WORK/out.json")" != "$(jqr .pid "$1")" ] || fail "both reports come from one process"
pass "two processes, two reports"
expect_eq "$(grep -c "^libkprof: '$WORK/out.json' was written by another process since this kprof invocation started; writing the report to '$1' instead$" "$WORK/err")" 1 \
    "one warning says where the second report went"
# The trace too; and a CSV base.
rm -f "$WORK"/out.json "$WORK"/out.[0-9]*.json
kprof -f csv -o "$WORK/c" -t "$WORK/t.json" sh -c '"$1"; "$1"' sh "$P" >/dev/null 2>"$WORK/err"
expect_eq "$(ls "$WORK" | grep -c '^t\.\([0-9]*\.\)\?json$')" 2 "two traces, t.json and t.<pid>.json"
expect_eq "$(ls "$WORK" | grep -c '^c.*\.summary\.csv$')" 2 "two CSV reports"
