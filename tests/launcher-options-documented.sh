#!/bin/sh
# Every option kprof --help lists is in kprof(1)'s OPTIONS section and in README.md's launcher paragraph,
# and kprof(1) lists no option that --help lacks: the three cannot drift apart.
. "${top_srcdir:-..}/tests/lib.sh"
K=$top_builddir/tools/kprof
man=$top_srcdir/man/kprof.1
readme=$top_srcdir/README.md
"$K" --help >"$WORK/help" || fail "kprof --help failed"
# --help's option lines: "  -f, --format FORMAT ..." and "      --sample N ...".
sed -n 's/^  \(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\} *\(--[a-z][a-z-]*\).*/\1 \3/p' "$WORK/help" | tr ' ' '\n' | sed '/^$/d' | sort -u >"$WORK/help.opts"
[ "$(wc -l <"$WORK/help.opts")" -ge 15 ] || { cat "$WORK/help.opts" >&2; fail "too few options read from --help"; }
# kprof(1)'s OPTIONS section: its .TP tags (\- for -).
awk '/^\.SH/ {on = ($0 == ".SH OPTIONS")} on' "$man" >"$WORK/man.opts.sec"
awk 'prev == ".TP" {print} {prev = $0}' "$WORK/man.opts.sec" | sed 's/\\-/-/g' |
    grep -oE '(^|[ "])--?[A-Za-z][a-z-]*' | tr -d ' "' | sort -u >"$WORK/man.opts"
expect_eq "$(comm -23 "$WORK/help.opts" "$WORK/man.opts" | tr '\n' ' ')" "" "every --help option is in kprof(1)'s OPTIONS"
expect_eq "$(comm -13 "$WORK/help.opts" "$WORK/man.opts" | tr '\n' ' ')" "" "every option of kprof(1)'s OPTIONS is in --help"
# README.md: the paragraph that begins "`kprof` takes".
awk '/^`kprof` takes/ {on = 1} on && /^$/ {exit} on' "$readme" >"$WORK/readme.kprof"
[ -s "$WORK/readme.kprof" ] || fail "no paragraph beginning '\`kprof\` takes' in README.md"
missing=
for o in $(cat "$WORK/help.opts"); do
    grep -q -- "\`$o[\` =]" "$WORK/readme.kprof" || grep -q -- "/\`$o\`" "$WORK/readme.kprof" ||
        grep -q -- "\`$o/" "$WORK/readme.kprof" || missing="$missing $o"
done
expect_eq "$missing" "" "every --help option is in README.md's launcher paragraph"
