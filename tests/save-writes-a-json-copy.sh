#!/bin/sh
# KPROF_SAVE (kprof --save) writes the JSON report beside the report in any format, from the same
# snapshot: the text report's kernel and the copy agree; an unwritable path is one warning, and the report
# is still written.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_KERNEL_NS="scale_chunk=11000" FAKEGPU_COPY_PS_PER_BYTE=250
prog() { run_kprof "$KERNELS/stream_overlap" --no-verify --chunks 4 --chunk-bytes 1048576 >/dev/null; }

KPROF_SAVE="$WORK/copy.%p.json" prog 2>"$WORK/report.txt"
set -- "$WORK"/copy.*.json
[ -f "$1" ] || fail "no JSON copy written"
expect_eq "copy.$(jqr .pid "$1").json" "${1##*/}" "the copy's pattern expanded (%p: the pid)"
expect_grep '^== libkprof: report ==' "$WORK/report.txt" "the text report on stderr as before"
expect_eq "$(jqr '.kernels[0].calls' "$1")" 4 "the copy's kernel calls"
expect_grep "^ *100\.00 +44\.000 +4 +4 .*scale_chunk" "$WORK/report.txt" "the text report's kernel: the same run"
expect_eq "$(jqr '.pid' "$1")" "$(sed -n 's/^Process: .* (pid \([0-9]*\)) on .*/\1/p' "$WORK/report.txt")" "the same process"

KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/r" KPROF_SAVE="$WORK/csv.json" prog 2>"$WORK/err"
[ -s "$WORK/r.kernels.csv" ] && jq -e '.schema_version == 1' "$WORK/csv.json" >/dev/null || fail "csv: no CSV files or no copy"
pass "KPROF_FORMAT=csv: CSV files and the JSON copy"

KPROF_SAVE="$WORK/no/such/dir/c.json" prog 2>"$WORK/err"
expect_eq "$(grep -c '^libkprof: cannot write the JSON copy of the report' "$WORK/err")" 1 "an unwritable copy: one warning"
expect_grep '^== libkprof: end ==' "$WORK/err" "an unwritable copy: the report still written"
