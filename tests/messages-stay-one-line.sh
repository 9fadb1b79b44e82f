#!/bin/sh
# libkprof's messages stay one line each: control characters in echoed values are escaped, a long path is
# cut in the middle (the reason stays), a CSV report that cannot be written gets one warning, and %q{NAME}
# finds a variable whatever the length of its name.
. "${top_srcdir:-..}/tests/lib.sh"
P=$PROGS/chatty
esc=$(printf '\033')
KPROF_FORMAT="$(printf 'xml\nlibkprof: forged\r')" KPROF_LOG="$(printf 'a%s[31mb' "$esc")" run_kprof "$P" >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: ignoring KPROF_FORMAT='xml\\\\nlibkprof: forged\\\\r' \(expected text, csv or json\); using text$" \
    "$WORK/err" "a newline and a carriage return in a value are escaped"
expect_grep "^libkprof: ignoring KPROF_LOG='a\\\\x1b\[31mb'" "$WORK/err" "and so is ESC"
expect_no_grep '^libkprof: forged' "$WORK/err" "no forged line"
expect_no_grep "$esc" "$WORK/err" "no raw ESC"

long=$WORK/$(printf '%03000d' 0)/x
KPROF_OUTPUT="$long" run_kprof "$P" >/dev/null 2>"$WORK/err"
expect_grep "^libkprof: cannot write the report to '$WORK/0+\.\.\.0+/x' \(File name too long\); writing it to stderr$" \
    "$WORK/err" "a long path is cut in the middle; the reason stays"
expect_eq "$(grep '^libkprof: ' "$WORK/err" | awk '{ if (length($0) > n) n = length($0) } END { print (n <= 1024) }')" 1 "at most 1024 bytes a line"

KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/no/such/dir/r" run_kprof "$P" >/dev/null 2>"$WORK/err"
expect_eq "$(grep -c '^libkprof: ' "$WORK/err")" 2 "a CSV report that cannot be written: one warning at the start, one at exit"
expect_grep "^libkprof: KPROF_OUTPUT='$WORK/no/such/dir/r': '$WORK/no/such/dir/r\.summary\.csv' cannot be written now \(No such file or directory\); a report at exit tries it again, else goes to stderr$" \
    "$WORK/err" "the one at the start names the file and the reason"
expect_grep "^libkprof: cannot write the CSV report to '$WORK/no/such/dir/r\.summary\.csv' \(No such file or directory\); writing it as text to stderr$" \
    "$WORK/err" "naming the first file and the reason"
expect_grep '^== libkprof: end ==$' "$WORK/err" "the report as text on stderr"

name=V$(printf '%0200d' 0)
cut=$(printf '%s' "$name" | cut -c1-127)
(export "$name=right" "$cut=wrong" && KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r-%q{$name}.json" run_kprof "$P" >/dev/null 2>"$WORK/err")
[ -f "$WORK/r-right.json" ] || { ls "$WORK" >&2; cat "$WORK/err" >&2; fail "%q{NAME} with a 201-character name"; }
pass "%q{NAME} finds a variable with a long name"
