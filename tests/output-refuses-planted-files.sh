#!/bin/sh
# Files planted at the output path cannot turn the report against the user: a link or a file that another
# user owns in a folder others can write, or a hard link there, is refused (one warning, the report on
# stderr); a FIFO with no reader is refused at once instead of hanging the program at exit (while one
# with a reader still gets the report); the CSV files libkprof names itself (kprof.<pid>.*) are created
# anew, mode 0600, never through something planted there.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
KPROF_TEST_TIMEOUT=20 # read by run_kprof (not exported: libkprof would warn about it)
P=$PROGS/chatty

# A FIFO with no reader: refused at once, the report on stderr.
mkfifo "$WORK/fifo"
rc=0; KPROF_OUTPUT="$WORK/fifo" run_kprof "$P" >/dev/null 2>"$WORK/fifo.err" || rc=$?
expect_eq "$rc" 0 "a FIFO with no reader does not hang the program"
expect_grep "^libkprof: cannot write the report to '$WORK/fifo' \(a FIFO with no reader\); writing it to stderr$" \
    "$WORK/fifo.err" "and is refused with one warning"
expect_grep '^== libkprof: end ==$' "$WORK/fifo.err" "the report on stderr instead"
# A FIFO with a reader gets the report (the open does not block, the writes do).
timeout 20 cat "$WORK/fifo" >"$WORK/fifo.read" &
reader=$!
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/fifo" run_kprof "$P" >/dev/null 2>"$WORK/fifo2.err"
wait $reader || fail "the FIFO's reader failed"
expect_eq "$(kernel_field "$WORK/fifo.read" chatty calls)" 3 "a FIFO with a reader gets the whole report"

# The CSV default names: created with O_EXCL and mode 0600, even under a lax umask.
mkdir "$WORK/csv" && cd "$WORK/csv"
(umask 000 && KPROF_FORMAT=csv run_kprof "$P" >/dev/null 2>"$WORK/csv.err")
set -- kprof.*.summary.csv
[ -f "$1" ] || { ls >&2; fail "no CSV report under its default name"; }
expect_eq "$(stat -c %a "$1")" 600 "the default CSV files are created with mode 0600"
# Files of a name libkprof chose, in the current directory: one line says where (a new user's trial: the
# report seemed lost).
expect_grep "^libkprof: CSV report written to kprof\.[0-9]+\.\*\.csv \(set KPROF_OUTPUT, or kprof -o, to name it\)$" "$WORK/csv.err" \
    "the default CSV names said on stderr"
# ...and never through a link planted at the (predictable) name: exec keeps the pid the link names.
rm -f kprof.*
echo secret >"$WORK/victim"
rc=0; KPROF_FORMAT=csv run_kprof sh -c 'ln -s "$1/victim" kprof.$$.kernels.csv; exec "$2"' sh "$WORK" "$P" \
    >/dev/null 2>"$WORK/csv2.err" || rc=$?
expect_eq "$rc" 0 "the program runs"
expect_eq "$(cat "$WORK/victim")" secret "a link planted at a default CSV name is not written through"
expect_grep "^libkprof: cannot write the CSV report to 'kprof\.[0-9]+\.kernels\.csv' \(File exists\); writing it as text to stderr$" \
    "$WORK/csv2.err" "one warning"
expect_grep '^== libkprof: end ==$' "$WORK/csv2.err" "the report as text on stderr"
cd "$WORK"

# Another user's link or file in a folder others can write (sticky like /tmp, or not).
[ "$(id -u)" = 0 ] || { echo "SKIP: the rest plants files owned by another user (needs root)"; exit 77; }
id nobody >/dev/null 2>&1 || skip "no user nobody"
for mode in 1777 0777; do
    d=$WORK/shared$mode
    mkdir "$d" && chmod $mode "$d"
    echo secret >"$WORK/victim" && chmod 600 "$WORK/victim"
    ln -s "$WORK/victim" "$d/link" && chown -h nobody "$d/link"
    echo theirs >"$d/file" && chown nobody "$d/file"
    for what in link file; do
        KPROF_OUTPUT="$d/$what" KPROF_TRACE="$d/$what" run_kprof "$P" >/dev/null 2>"$WORK/$what.err"
        expect_eq "$(cat "$WORK/victim")" secret "$mode: the victim of another user's link is untouched ($what)"
        expect_eq "$(cat "$d/file")" theirs "$mode: another user's file is untouched ($what)"
        expect_grep "^libkprof: cannot write the report to '$d/$what' \(owned by another user in a folder others can write\); writing it to stderr$" \
            "$WORK/$what.err" "$mode: the report refuses another user's $what"
        expect_grep "^libkprof: cannot write the trace to '$d/$what' \(owned by another user in a folder others can write\)$" \
            "$WORK/$what.err" "$mode: and so does the trace"
        expect_grep '^== libkprof: end ==$' "$WORK/$what.err" "$mode: the report on stderr instead"
        # Said at the start too, as for any path that cannot be written then (a new user's helper heard of
        # another user's link in /tmp only at exit).
        expect_grep "^libkprof: KPROF_OUTPUT='$d/$what' cannot be written now \(owned by another user in a folder others can write\); a report at exit tries it again, else goes to stderr$" \
            "$WORK/$what.err" "$mode: the refusal said at the start ($what)"
    done
    # A hard link there to a file of the user's is refused too (where protected_hardlinks is off).
    ln "$WORK/victim" "$d/hard"
    KPROF_OUTPUT="$d/hard" run_kprof "$P" >/dev/null 2>"$WORK/hard.err"
    expect_eq "$(cat "$WORK/victim")" secret "$mode: a file behind a planted hard link is untouched"
    expect_grep "^libkprof: cannot write the report to '$d/hard' \(a file with another hard link, in a folder others can write\); writing it to stderr$" \
        "$WORK/hard.err" "$mode: with one warning"
    expect_grep "^libkprof: KPROF_OUTPUT='$d/hard' cannot be written now \(a file with another hard link, in a folder others can write\); a report at exit tries it again, else goes to stderr$" \
        "$WORK/hard.err" "$mode: and one at the start"
    rm "$d/hard"
    # The user's own link there is followed (its missing target created).
    ln -s "$WORK/mine.json" "$d/mylink"
    KPROF_FORMAT=json KPROF_OUTPUT="$d/mylink" run_kprof "$P" >/dev/null
    expect_eq "$(kernel_field "$WORK/mine.json" chatty calls)" 3 "$mode: the user's own link is followed"
done
