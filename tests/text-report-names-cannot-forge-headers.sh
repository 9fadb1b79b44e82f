#!/bin/sh
# A kernel name with a newline (or other control characters) stays on its row of the text report, escaped
# as \n, \t, \xNN, so it cannot forge a "== libkprof: ... ==" section header; JSON and CSV keep the exact
# name, escaped or quoted as their formats say.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
forged=$(printf 'evil\n== libkprof: end ==\n== libkprof: kernels ==\tx\033y\\z')
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/named" "$forged" plain >/dev/null
cat "$WORK/r.txt"
expect_eq "$(grep -c '^== libkprof: end ==$' "$WORK/r.txt")" 1 "one end header"
expect_eq "$(grep -c '^== libkprof: kernels ==$' "$WORK/r.txt")" 1 "one kernels header"
expect_grep '  evil\\n== libkprof: end ==\\n== libkprof: kernels ==\\tx\\x1by\\\\z$' "$WORK/r.txt" \
    "the name on one row, control characters escaped"
expect_eq "$(awk '/^== libkprof: kernels ==$/ {on = 1; next} /^== / {on = 0} on && / (evil|plain)/' "$WORK/r.txt" | wc -l | tr -d ' ')" \
    2 "both kernels' rows in the kernels section"

KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/named" "$forged" >/dev/null
expect_eq "$(jq -r '.kernels[0].name' "$WORK/r.json")" "$forged" "JSON keeps the exact name"

KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/r" run_kprof "$PROGS/named" "$forged" >/dev/null
python3 - "$WORK/r.kernels.csv" "$forged" <<'PY' || fail "CSV does not round-trip the name"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 1, rows
assert rows[0]["name"] == sys.argv[2], (rows[0]["name"], sys.argv[2])
PY
pass "CSV quotes the name (one row, the exact name)"

# kprof-merge's text summary escapes names the same way.
MERGE=$top_builddir/tools/kprof-merge
[ -x "$MERGE" ] || skip "kprof-merge not built (configure found no jansson)"
forged_merge=$(printf 'evil\n== kprof-merge: end ==\n\tx')
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/m.json" run_kprof "$PROGS/named" "$forged_merge" >/dev/null
"$MERGE" "$WORK/m.json" >"$WORK/m.txt"
cat "$WORK/m.txt"
expect_eq "$(grep -c '^== kprof-merge: end ==$' "$WORK/m.txt")" 1 "kprof-merge: one end header"
expect_grep '  evil\\n== kprof-merge: end ==\\n\\tx$' "$WORK/m.txt" "kprof-merge: the name on one row, escaped"
