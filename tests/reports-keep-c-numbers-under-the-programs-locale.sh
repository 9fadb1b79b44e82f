#!/bin/sh
# A program that takes its environment's locale (setlocale(LC_ALL, "")) under one with a decimal comma made
# libkprof write "0,5" into its JSON report, CSV tables and trace, so that no reader could parse them and
# kprof report skipped the file (a breaker helper).  The report is written in C's notation whatever the
# program's locale.  Needs localedef and the de_DE locale's source (glibc's locales); skipped without.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
command -v localedef >/dev/null 2>&1 || skip "no localedef"
mkdir -p "$WORK/loc" && localedef -i de_DE -f UTF-8 "$WORK/loc/de_DE.UTF-8" >/dev/null 2>&1 || skip "localedef could not make de_DE.UTF-8"
export LOCPATH="$WORK/loc" LANG=de_DE.UTF-8 NAMED_SETLOCALE=1
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" run_kprof "$PROGS/named" k >/dev/null 2>"$WORK/err" ||
    fail "named failed: $(cat "$WORK/err")"
expect_eq "$(jq -c '[.kernels[0].name, .kernels[0].share]' "$WORK/r.json")" '["k",1]' "the JSON report parses"
expect_eq "$(jq -c '[.traceEvents[] | select(.ph == "X")] | length' "$WORK/t.json")" 1 "the trace parses"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$PROGS/named" k >/dev/null 2>&1 || fail "named (csv) failed"
expect_eq "$(awk -F, '{print NF}' "$WORK/c.kernels.csv" | sort -u | wc -l | tr -d ' ')" 1 "every CSV row has the header's fields"
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/named" k >/dev/null 2>&1 || fail "named (text) failed"
expect_grep '^ *100\.00 ' "$WORK/r.txt" "the text report: 100.00, not 100,00"
