#!/bin/sh
# src/config.def is the one list of the KPROF_* variables libkprof reads: each of them has its row in
# README.md's Environment table and its entry in libkprof(7)'s ENVIRONMENT section, and neither names a
# KPROF_* variable the list lacks, so the documentation cannot drift from the code.  The defaults the list
# gives are the ones in effect (the KPROF_LOG=debug print of the configuration, with nothing else set).
. "${top_srcdir:-..}/tests/lib.sh"
def=$top_srcdir/src/config.def
readme=$top_srcdir/README.md
man=$top_srcdir/man/libkprof.7

# KPROF_VAR(name, kind, "default", "doc"), one a line: "name kind default".
sed -n 's/^KPROF_VAR(\([A-Z0-9_]*\), *\([A-Z]*\), *"\([^"]*\)".*/\1 \2 \3/p' "$def" >"$WORK/table"
cut -d' ' -f1 "$WORK/table" | sort >"$WORK/def"
[ -s "$WORK/def" ] || fail "no KPROF_VAR line in $def"
expect_eq "$(grep -c '^KPROF_VAR(' "$def")" "$(wc -l <"$WORK/def" | tr -d ' ')" "every KPROF_VAR line of config.def read"
expect_eq "$(grep -cv '^KPROF_' "$WORK/def")" 0 "every name in config.def starts with KPROF_"

# check_doc WHAT LISTED MENTIONED: LISTED holds the names the document lists (one a line), MENTIONED every
# KPROF_* name that appears in that part of it.
check_doc() {
    sort "$2" >"$2.sorted"
    grep -o 'KPROF_[A-Z0-9_]*[A-Z0-9]' "$3" | sort -u >"$3.names" || true
    expect_eq "$(comm -23 "$WORK/def" "$2.sorted" | tr '\n' ' ')" "" "every variable of config.def in $1"
    expect_eq "$(uniq -d "$2.sorted" | tr '\n' ' ')" "" "each listed once in $1"
    expect_eq "$(comm -13 "$WORK/def" "$3.names" | tr '\n' ' ')" "" "every KPROF_* name in $1 is in config.def"
}

# README.md: the rows of the table under "### Environment", and that section up to the next heading.
awk '/^#/ {on = ($0 == "### Environment")} on' "$readme" >"$WORK/readme.env"
[ -s "$WORK/readme.env" ] || fail "no '### Environment' section in README.md"
sed -n 's/^| `\(KPROF_[A-Z0-9_]*\)` |.*/\1/p' "$WORK/readme.env" >"$WORK/readme.listed"
check_doc "README.md's Environment table" "$WORK/readme.listed" "$WORK/readme.env"

# libkprof(7): the ".TP / .B KPROF_..." entries of ENVIRONMENT, and that section up to the next .SH.
awk '/^\.SH/ {on = ($0 == ".SH ENVIRONMENT")} on' "$man" >"$WORK/man.env"
[ -s "$WORK/man.env" ] || fail "no ENVIRONMENT section in libkprof.7"
awk 'prev == ".TP" && $1 == ".B" && $2 ~ /^KPROF_/ {print $2} {prev = $0}' "$WORK/man.env" >"$WORK/man.listed"
check_doc "libkprof(7)'s ENVIRONMENT" "$WORK/man.listed" "$WORK/man.env"

# kprof(1): its ENVIRONMENT's list of the variables that apply (".BR KPROF_... ," lines before "The options
# above set"; it lacked KPROF_AUTO_CHECK: a new-user helper) and the ".TP / .B KPROF_..." entries of those
# kprof sets itself.
awk '/^\.SH/ {on = ($0 == ".SH ENVIRONMENT")} on' "$top_srcdir/man/kprof.1" >"$WORK/kprof1.env"
[ -s "$WORK/kprof1.env" ] || fail "no ENVIRONMENT section in kprof.1"
{ awk '/^The options above set/ {exit} {print}' "$WORK/kprof1.env" | sed -n 's/^\.BR* \(KPROF_[A-Z0-9_]*\)[ .,]*$/\1/p'
  awk 'prev == ".TP" && $1 == ".B" && $2 ~ /^KPROF_/ {print $2} {prev = $0}' "$WORK/kprof1.env"; } >"$WORK/kprof1.listed"
check_doc "kprof(1)'s ENVIRONMENT" "$WORK/kprof1.listed" "$WORK/kprof1.env"

# The defaults: as given for a value (CHOICE, BOOL, NUMBER), in parentheses for none (PATH, REGEX, IMAGE,
# TIMESTAMP); KPROF_LOG is debug here.
for v in $(env | sed -n 's/^\(KPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = KPROF_TEST_TIMEOUT ] || unset "$v"
done
KPROF_LOG=debug run_kprof true 2>"$WORK/err" || fail "true failed under libkprof"
sed -n 's/^libkprof: configuration: //p' "$WORK/err" | tr ' ' '\n' >"$WORK/effective"
[ -s "$WORK/effective" ] || { cat "$WORK/err" >&2; fail "KPROF_LOG=debug printed no configuration"; }
awk '$1 == "KPROF_LOG" {print $1 "=debug"; next}
     $2 ~ /^(PATH|REGEX|TIMESTAMP|IMAGE)$/ {print $1 "=(" $3 ")"; next}
     {print $1 "=" $3}' "$WORK/table" >"$WORK/expected"
diff -u "$WORK/expected" "$WORK/effective" >&2 || fail "config.def's defaults differ from the configuration in effect"
pass "config.def's defaults in effect, every variable in the debug print, in its order"
