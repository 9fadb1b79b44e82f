#!/bin/sh
# kprof report renders a saved JSON report (kprof --save, KPROF_SAVE) with libkprof's own report writers:
# its text is the text report of the same run byte for byte (kernels whose times have fractions of a ns,
# graphs and captured kernels, KPROF_GROUP=shape, KPROF_SAMPLE, --top as KPROF_TOP, KPROF_NAMES=base and
# KPROF_NAME_WIDTH), its JSON the saved
# file itself, its CSV the run's CSV tables; several reports are kprof-merge's summary; what it cannot
# render is a one-line kprof: error.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
K=$top_builddir/tools/kprof
[ -x "$top_builddir/tools/kprof-report" ] || skip "kprof-report not built (configure found no jansson)"
for v in $(env | sed -n 's/^\(KPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = KPROF_TEST_TIMEOUT ] || unset "$v"
done
case $SAN_PRELOAD in
*tsan*) skip "runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
# kprof runs under the fake CUDA stack (run_kprof's LD_PRELOAD is the launcher's to set).
kp() { timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env LD_LIBRARY_PATH="$FAKE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
           ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} "$K" "$@"; }

# same NAME [REPORT-OPTIONS] -- KPROF-OPTIONS PROGRAM...: the run's text report and kprof report of its
# saved JSON are the same bytes, kprof report says nothing on stderr, and -f json gives back the file.
same() {
    n=$1; shift
    ropts=
    while [ "$1" != -- ]; do ropts="$ropts $1"; shift; done
    shift
    kp --save "$WORK/$n.json" -o "$WORK/$n.txt" "$@" >/dev/null 2>"$WORK/$n.err" || true
    [ -s "$WORK/$n.txt" ] && [ -s "$WORK/$n.json" ] || { cat "$WORK/$n.err" >&2; fail "$n: no report or no JSON copy"; }
    "$K" report $ropts "$WORK/$n.json" >"$WORK/$n.again" 2>"$WORK/$n.again.err" || fail "$n: kprof report failed: $(cat "$WORK/$n.again.err")"
    expect_eq "$(cat "$WORK/$n.again.err")" "" "$n: kprof report says nothing on stderr"
    cmp "$WORK/$n.txt" "$WORK/$n.again" || { diff -u "$WORK/$n.txt" "$WORK/$n.again" >&2; fail "$n: kprof report differs from the run's text report"; }
    pass "$n: kprof report$ropts is the run's text report, byte for byte"
    "$K" report -f json "$WORK/$n.json" >"$WORK/$n.again.json" || fail "$n: kprof report -f json failed"
    cmp "$WORK/$n.json" "$WORK/$n.again.json" || { diff -u "$WORK/$n.json" "$WORK/$n.again.json" >&2; fail "$n: -f json differs from the saved report"; }
    pass "$n: kprof report -f json is the saved report"
}

export FAKEGPU_KERNEL_NS="scale_chunk=11000" FAKEGPU_COPY_PS_PER_BYTE=250
same overlap -- "$KERNELS/stream_overlap" --no-verify --chunks 4 --chunk-bytes 1048576
unset FAKEGPU_KERNEL_NS FAKEGPU_COPY_PS_PER_BYTE
same graphs -- "$KERNELS/graph_replay"
jq -e '(.graphs | length) > 0' "$WORK/graphs.json" >/dev/null || fail "graph_replay's report has no graph row"
# Idle streams without holds: times corrected by the host's launch latency, fractions of a ns in Avg and
# StdDev (avg_ns is rounded and stddev_ns has one decimal: the text is rendered from steady_ns, steady_m2).
# Every pair under 1 us (200 ns kernels, 500 ns latency), so that the columns stay in ns whatever the host
# time taken off (with 1 us kernels and 3 us, a loaded 2-core machine read a launch at 1.031 us and the
# columns went to us in 2 runs of 5).
export FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_LATENCY_NS=500 FAKEGPU_KERNEL_NS=default=200 KPROF_HOLD=0
same idle -- "$KERNELS/threads_streams"
unset FAKEGPU_KERNEL_NS
expect_grep 'StdDev \(ns\)' "$WORK/idle.txt" "idle: the spread is in ns, with three decimals"
same shape -- --group shape --sample 3 "$KERNELS/threads_streams"
expect_grep 'Kernel \[grid\] \[block\]' "$WORK/shape.txt" "shape: rows by launch shape"
expect_grep '^Sampled \(KPROF_SAMPLE=3\)' "$WORK/shape.txt" "shape: sampled"
unset FAKEGPU_EVENT_PENDING_QUERIES FAKEGPU_LAUNCH_LATENCY_NS KPROF_HOLD
same top --top 1 -- --top 1 "$KERNELS/graph_replay"
# KPROF_TOP is saved with the report: kprof report without --top shows what the run showed (a new user
# read the hidden kernel back, against README's "byte for byte"); --top 0 shows every kernel again.
same topsaved -- --top 1 "$KERNELS/graph_replay"
expect_eq "$(jqr '.top' "$WORK/topsaved.json")" 1 "top: saved in the JSON"
"$K" report --top 0 "$WORK/topsaved.json" >"$WORK/top0.txt" || fail "kprof report --top 0 failed"
expect_no_grep 'not shown: KPROF_TOP' "$WORK/top0.txt" "top: --top 0 shows every kernel"
# A "top" that is no KPROF_TOP value (a breaker helper's: a string, a fraction, 2^63 - 1): a warning, and
# every kernel (it was taken silently, and 2^63 - 1 written back by -f json).
for bad in '"3"' 1.5 9223372036854775807; do
    sed "s/\"top\": 1,/\"top\": $bad,/" "$WORK/topsaved.json" >"$WORK/badtop.json"
    "$K" report -f json "$WORK/badtop.json" >"$WORK/badtop.out" 2>"$WORK/badtop.err" || fail "top $bad: kprof report failed"
    expect_grep '^kprof: .*"top" is not a whole number from 0 to 1073741824: every kernel shown$' "$WORK/badtop.err" \
        "top $bad: warned of"
    expect_eq "$(jqr '.top' "$WORK/badtop.out")" 0 "top $bad: written back as 0"
done
# Base names and a capped name column (KPROF_NAMES=base, KPROF_NAME_WIDTH) are saved with the report.
same names -- --names base --name-width 10 "$KERNELS/stream_overlap" --no-verify --chunks 2
expect_eq "$(jqr '[.names, .name_width] | tostring' "$WORK/names.json")" '["base",10]' "names: saved in the JSON"
expect_grep '\.\.\.' "$WORK/names.txt" "names: the name column capped"
FAKEGPU_DEVICES=2 same devices -- "$KERNELS/multi_gpu"
expect_grep 'not shown: KPROF_TOP=1' "$WORK/top.txt" "top: one kernel shown"

# CSV: the run's tables (stream_overlap's GPU tables are exact on the fake GPU: tests/golden).
"$K" report -f csv -o "$WORK/csv" "$WORK/overlap.json" || fail "kprof report -f csv failed"
mask_split_csv "$WORK/csv.kernels.csv" >"$WORK/csv.kernels.csv.masked" && mv "$WORK/csv.kernels.csv.masked" "$WORK/csv.kernels.csv"
for t in kernels copies memsets; do
    cmp "$top_srcdir/tests/golden/stream_overlap.$t.csv" "$WORK/csv.$t.csv" || fail "$t.csv differs from the run's"
done
pass "kprof report -f csv writes the run's kernels, copies and memsets tables"
for t in summary context_init graphs captured allocations devices api calibration; do
    [ -s "$WORK/csv.$t.csv" ] || fail "no $t.csv"
done
expect_eq "$(sed -n 2p "$WORK/csv.summary.csv" | cut -d, -f1)" "$(jq .pid "$WORK/overlap.json")" "summary.csv: the run's pid"
cp "$WORK/overlap.json" "$WORK/base.json"
"$K" report -f csv "$WORK/base.json" 2>"$WORK/csv.err" && [ -s "$WORK/base.kernels.csv" ] || fail "-f csv without -o: no base.kernels.csv"
pass "-f csv without -o: the files are named after the report"
expect_eq "$(cat "$WORK/csv.err")" "kprof: CSV report written to $WORK/base.*.csv (-o names it)" "-f csv without -o: says where"

# A report saved before the context's Start was (a breaker helper read 0 there, as a time measured): "-",
# and null in JSON.
jq 'del(.context_init[].start_ns)' "$WORK/overlap.json" >"$WORK/nostart.json"
"$K" report "$WORK/nostart.json" >"$WORK/nostart.txt" 2>/dev/null || fail "kprof report of a report without start_ns failed"
expect_grep '^ +0 +- +[0-9.]+  cudaMallocHost' "$WORK/nostart.txt" "no start_ns: Start reads -"
expect_eq "$("$K" report -f json "$WORK/nostart.json" | jq -c '[.context_init[].start_ns]')" '[null]' "no start_ns: JSON null"

# Several reports: kprof-merge's summary, in text and JSON.
M=$top_builddir/tools/kprof-merge
for f in text json; do
    "$K" report -f $f "$WORK/overlap.json" "$WORK/idle.json" >"$WORK/merged.$f" || fail "kprof report of two reports ($f) failed"
    "$M" -f $f "$WORK/overlap.json" "$WORK/idle.json" >"$WORK/merge.$f"
    cmp "$WORK/merge.$f" "$WORK/merged.$f" || fail "kprof report of two reports ($f) is not kprof-merge's summary"
    pass "kprof report of two reports ($f): kprof-merge's summary"
done

# Errors: one kprof: line; 2 for a usage error, 1 for a report that cannot be read.
err() {
    want=$1; shift
    rc=0; "$K" report "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
    expect_eq "$rc" "$want" "kprof report $*: exit status $want"
    expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "kprof report $*: one line ($(cat "$WORK/err"))"
    expect_grep '^kprof: ' "$WORK/err" "kprof report $*: a kprof: message"
}
err 2
err 2 -f html "$WORK/overlap.json"
err 2 --top x "$WORK/overlap.json"
err 2 -f csv "$WORK/overlap.json" "$WORK/idle.json"
# --top with several reports: the merged summary's kernels table shows that many (an MPI user's wish).
"$K" report --top 1 "$WORK/overlap.json" "$WORK/idle.json" >"$WORK/top1.txt" || fail "--top 1 with two reports failed"
expect_eq "$(sed -n '/== kprof-merge: kernels ==/,/^Per-process/p' "$WORK/top1.txt" | grep -c '^ *[0-9]')" 1 \
    "--top 1 with two reports: one kernel row"
expect_grep '^  \([0-9]+ more kernels?, [0-9.]+% of kernel time, not shown: --top 1\)$' "$WORK/top1.txt" "and what is left out"
err 1 "$WORK/missing.json"
echo '{"schema_version": 2, "tool": "libkprof"}' >"$WORK/v2.json"
err 1 "$WORK/v2.json"
"$M" -f json "$WORK/overlap.json" >"$WORK/summary.json"
err 1 "$WORK/summary.json"
expect_grep 'kprof-merge summary' "$WORK/err" "a kprof-merge summary is said to be one"
# A text report (a new user's first try: a raw JSON parser error before).
err 1 "$WORK/overlap.txt"
expect_grep 'a libkprof text report, not JSON: .*--save' "$WORK/err" "a text report is said to be one, with how to save JSON"
# A CSV table (a new user's helper read "kprof: s.kernels.csv:1: '[' or '{' expected near 'Time'").
err 1 "$WORK/csv.kernels.csv"
expect_grep 'csv\.kernels\.csv: a libkprof CSV table, not JSON: .*--save' "$WORK/err" "a CSV table is said to be one, with how to save JSON"
cp "$WORK/csv.kernels.csv" "$WORK/UP.CSV"
err 1 "$WORK/UP.CSV"
expect_grep 'UP\.CSV: a libkprof CSV table' "$WORK/err" "a .CSV name too (a breaker helper)"

# kprof report --help, kprof(1)'s KPROF REPORT section and README.md's kprof report paragraph name the same
# options (help and version aside in the README).
"$K" report --help >"$WORK/help" || fail "kprof report --help failed"
sed -n 's/^  \(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\} *\(--[a-z][a-z-]*\).*/\1 \3/p' "$WORK/help" | tr ' ' '\n' | sed '/^$/d' | sort -u >"$WORK/help.opts"
awk '/^\.SH/ {on = ($0 == ".SH \"KPROF REPORT\"")} on' "$top_srcdir/man/kprof.1" >"$WORK/man.sec"
awk 'prev == ".TP" {print} {prev = $0}' "$WORK/man.sec" | sed 's/\\-/-/g' |
    grep -oE '(^|[ "])--?[A-Za-z][a-z-]*' | tr -d ' "' | sort -u >"$WORK/man.opts"
expect_eq "$(cat "$WORK/help.opts" | tr '\n' ' ')" "$(cat "$WORK/man.opts" | tr '\n' ' ')" "kprof report --help and kprof(1)'s KPROF REPORT list the same options"
awk '/^`kprof report / {on = 1} on && /^$/ {exit} on' "$top_srcdir/README.md" >"$WORK/readme"
for o in $(grep -v -e '^-h$' -e '^--help$' -e '^-V$' -e '^--version$' "$WORK/help.opts"); do
    grep -q -- "\`$o[\` /]" "$WORK/readme" || fail "README.md's kprof report paragraph lacks $o"
done
pass "README.md's kprof report paragraph names every option"
