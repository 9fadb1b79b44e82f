#!/bin/sh
# tools/kprof: sets the variables and LD_PRELOAD (the build tree's library), runs the program and passes
# its exit status through; --help, --version and usage errors.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
K=$top_builddir/tools/kprof
"$K" --help >"$WORK/help" || fail "--help failed"
expect_grep '^Usage: kprof ' "$WORK/help" "--help prints the usage"
expect_grep 'csv' "$WORK/help" "--help names every format"
expect_grep '^kprof \(libkprof\) [0-9]' "$(("$K" --version >"$WORK/v"); echo "$WORK/v")" "--version"
for args in "" "-o x"; do
    rc=0; "$K" $args 2>"$WORK/err" || rc=$?
    expect_eq "$rc:$(wc -l <"$WORK/err" | tr -d ' '):$(cut -c1-23 "$WORK/err")" "2:1:kprof: no program given" \
        "no program ('$args'): one kprof: line (not the whole help), exit status 2"
done
rc=0; "$K" --bogus true 2>"$WORK/err" || rc=$?
expect_eq "$rc" 2 "unknown option: exit status 2"
rc=0; "$K" -f xml true 2>"$WORK/err" || rc=$?
expect_eq "$rc" 2 "unknown format: exit status 2"
rc=0; "$K" -fxml true 2>"$WORK/err" || rc=$?
expect_eq "$rc" 2 "an attached value (-fxml) is read as -f xml"
expect_grep "unknown format 'xml'" "$WORK/err" "and checked like one"
# A value forgotten: -o takes the program, whose option is then unknown; the message says so.
rc=0; "$K" -o "$KERNELS/vector_add" --no-verify 2>"$WORK/err" || rc=$?
expect_eq "$rc:$(wc -l <"$WORK/err" | tr -d ' ')" 2:1 "-o PROGRAM --flag: one line, exit status 2"
expect_grep "^kprof: unknown option --no-verify \(see kprof --help\): -o took the program '.*vector_add' as its value$" \
    "$WORK/err" "naming what -o took"
# Any case, as libkprof reads KPROF_FORMAT (a new user's -f JSON; kprof report and kprof-merge alike:
# merge-three-reports.sh).
rc=0; "$K" -f JSON --group Shape --print-library >/dev/null 2>"$WORK/err" || rc=$? # runs no program
expect_eq "$rc" 0 "-f JSON --group Shape accepted"
case $SAN_PRELOAD in
*tsan*) skip "the rest runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
rc=0; env LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" "$K" -- sh -c 'exit 7' 2>/dev/null || rc=$?
expect_eq "$rc" 7 "the program's exit status passes through"
env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" \
    "$K" -f json -o "$WORK/r.%p.json" -t "$WORK/t.json" "$KERNELS/vector_add" --no-verify --n 64 >/dev/null
set -- "$WORK"/r.*.json
[ -f "$1" ] || fail "no report written by the launcher"
expect_eq "$(kernel_field "$1" vector_add calls)" 1 "the report the launcher asked for"
expect_eq "$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$WORK/t.json")" 4 "and its trace (1 launch, 3 copies)"
