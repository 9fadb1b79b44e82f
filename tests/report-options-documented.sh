#!/bin/sh
# Every option `kprof report --help` lists is in kprof(1)'s KPROF REPORT section, and that section lists
# no option --help lacks: the two cannot drift apart (as launcher-options-documented.sh for kprof itself).
. "${top_srcdir:-..}/tests/lib.sh"
K=$top_builddir/tools/kprof
[ -x "$top_builddir/tools/kprof-report" ] || skip "kprof-report not built (configure found no jansson)"
man=$top_srcdir/man/kprof.1
"$K" report --help >"$WORK/help" || fail "kprof report --help failed"
sed -n 's/^  \(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\} *\(--[a-z][a-z-]*\).*/\1 \3/p' "$WORK/help" | tr ' ' '\n' | sed '/^$/d' | sort -u >"$WORK/help.opts"
[ "$(wc -l <"$WORK/help.opts")" -ge 6 ] || { cat "$WORK/help.opts" >&2; fail "too few options read from kprof report --help"; }
awk '/^\.SH/ {on = ($0 == ".SH \"KPROF REPORT\"")} on' "$man" >"$WORK/man.sec"
[ -s "$WORK/man.sec" ] || fail "no KPROF REPORT section in kprof(1)"
awk 'prev == ".TP" {print} {prev = $0}' "$WORK/man.sec" | sed 's/\\-/-/g' |
    grep -oE '(^|[ "])--?[A-Za-z][a-z-]*' | tr -d ' "' | sort -u >"$WORK/man.opts"
expect_eq "$(comm -23 "$WORK/help.opts" "$WORK/man.opts" | tr '\n' ' ')" "" "every kprof report --help option is in kprof(1)'s KPROF REPORT"
expect_eq "$(comm -13 "$WORK/help.opts" "$WORK/man.opts" | tr '\n' ' ')" "" "every option of kprof(1)'s KPROF REPORT is in kprof report --help"
