#!/bin/sh
# KPROF_OUTPUT, KPROF_SAVE and KPROF_TRACE naming one file (a new user's slip, also through kprof's -o, --save
# and -t): each later file overwrote the earlier, so the report was lost without a word (a new-user helper:
# KPROF_OUTPUT=a.txt KPROF_SAVE=a.txt left the JSON copy only, KPROF_TRACE the trace only).  Now the report
# keeps its file; a later one gets ".<pid>" added, with a warning; the JSON copy naming the JSON report's
# file is that report already.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
cd "$WORK" || fail "no work directory"
run() { run_kprof "$PROGS/preds" idle >/dev/null 2>"$WORK/err" || fail "preds idle failed: $(cat "$WORK/err")"; }
KPROF_OUTPUT=a.txt KPROF_SAVE=a.txt run
expect_grep '^== libkprof: report ==$' a.txt "text report and JSON copy on one file: the report kept"
copy=$(ls a.*.txt)
expect_eq "$(jq '.kernels | length' "$copy")" 1 "the JSON copy written beside it ($copy)"
expect_grep "^libkprof: KPROF_SAVE='a.txt' names the file KPROF_OUTPUT wrote \('a.txt'\); writing the JSON copy of the report to '$copy' instead$" \
    "$WORK/err" "and said where"
KPROF_FORMAT=json KPROF_OUTPUT=b.json KPROF_SAVE=b.json run
expect_eq "$(jq '.kernels | length' b.json)" 1 "JSON report and JSON copy on one file: the report"
expect_eq "$(ls b.* | wc -l)" 1 "no second file"
expect_no_grep 'libkprof' "$WORK/err" "nothing to say"
KPROF_FORMAT=json KPROF_OUTPUT=c.json KPROF_TRACE=./c.json run
expect_eq "$(jq '.kernels | length' c.json)" 1 "JSON report and trace on one file: the report kept"
expect_eq "$(jq '.traceEvents | length > 0' c.*.json)" true "the trace written beside it"
expect_grep "^libkprof: KPROF_TRACE='./c.json' names the file KPROF_OUTPUT wrote" "$WORK/err" "and said"
# The JSON copy and the trace on one file, the report on stderr: the copy kept.
KPROF_SAVE=d.json KPROF_TRACE=d.json run
expect_eq "$(jq '.kernels | length' d.json)" 1 "JSON copy and trace on one file: the copy kept"
expect_eq "$(jq '.traceEvents | length > 0' d.*.json)" true "the trace beside it"
expect_grep '^== libkprof: report ==$' "$WORK/err" "the report on stderr"
# A directory as KPROF_OUTPUT (KPROF_OUTPUT=.): said at the start as any path that cannot be written now
# (a new-user helper heard of it only at exit), and the report on stderr.
mkdir -p dir
KPROF_OUTPUT=dir run
expect_eq "$(head -n1 "$WORK/err")" "libkprof: KPROF_OUTPUT='dir' cannot be written now (Is a directory); a report at exit tries it again, else goes to stderr" \
    "a directory: said at the start"
expect_grep '^== libkprof: report ==$' "$WORK/err" "the report on stderr"
