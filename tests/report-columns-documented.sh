#!/bin/sh
# src/columns.def is the one list of the report's table columns: each JSON key it declares is named in
# libkprof(7)'s "JSON report" section, and each CSV header in its "CSV files" section, so the man page
# cannot lag behind a new column.
. "${top_srcdir:-..}/tests/lib.sh"
def=$top_srcdir/src/columns.def
man=$top_srcdir/man/libkprof.7

# JSON("key", order) with a place, and CSV("header", order) (a DIM3's header holds three names).
grep -o 'JSON("[a-z0-9_]*", *[1-9][0-9]*)' "$def" | sed 's/JSON("\([^"]*\)".*/\1/' | sort -u >"$WORK/json"
grep -o 'CSV("[^"]*", *[1-9][0-9]*)' "$def" | sed 's/CSV("\([^"]*\)".*/\1/' | tr ',' '\n' | sort -u >"$WORK/csv"
[ -s "$WORK/json" ] || fail "no JSON key read from $def"
[ -s "$WORK/csv" ] || fail "no CSV header read from $def"
expect_eq "$(grep -c '^KPROF_COLUMN(' "$def")" "$(grep -c '^ *JSON(' "$def")" "every KPROF_COLUMN of columns.def read (one JSON() each)"

# The sections, up to the next .SS or .SH; the words they set in bold (.B, .BR), and the CSV header lines'
# items.
awk '/^\.S[SH]/ {on = ($0 ~ /^\.SS "JSON report/)} on' "$man" >"$WORK/man.json"
awk '/^\.S[SH]/ {on = ($0 == ".SS \"CSV files\"")} on' "$man" >"$WORK/man.csv"
[ -s "$WORK/man.json" ] || fail "no JSON report section in libkprof.7"
[ -s "$WORK/man.csv" ] || fail "no CSV files section in libkprof.7"
words() { sed -n 's/^\.BR\{0,1\} //p' "$1" | sed 's/\\://g; s/[",()]/ /g' | tr ' ' '\n' | sort -u; }
# CSV headers (nsys's hold spaces and parentheses: "Time (%)"): each bold line's comma-separated items.
headers() { sed -n 's/^\.BR\{0,1\} //p' "$1" | sed 's/\\://g; s/\\c$//; s/\\ / /g; s/"//g' | tr ',' '\n' |
            sed 's/^ *//; s/ *$//' | sort -u; }
words "$WORK/man.json" >"$WORK/man.json.words"
headers "$WORK/man.csv" >"$WORK/man.csv.words"
expect_eq "$(comm -23 "$WORK/json" "$WORK/man.json.words" | tr '\n' ' ')" "" "every JSON key of columns.def in libkprof(7)"
expect_eq "$(comm -23 "$WORK/csv" "$WORK/man.csv.words" | tr '\n' ' ')" "" "every CSV header of columns.def in libkprof(7)"
