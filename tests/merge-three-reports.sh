#!/bin/sh
# kprof-merge over three ranks' JSON reports: exact sums and per-process min/max/imbalance in JSON, the text
# summary against a golden file, and unreadable or foreign reports warned about and skipped.
. "${top_srcdir:-..}/tests/lib.sh"
MERGE=$top_builddir/tools/kprof-merge
[ -x "$MERGE" ] || skip "kprof-merge not built (configure found no jansson)"
need_jq
D=$top_srcdir/tests/data/merge

# JSON: rank0 and rank1 ran gemm and reduce, rank2 only gemm.
"$MERGE" -f json -o "$WORK/m.json" "$D/rank0.json" "$D/rank1.json" "$D/rank2.json" 2>"$WORK/err"
expect_no_grep . "$WORK/err" "nothing on stderr for good reports"
cat "$WORK/m.json"
expect_eq "$(jqr .schema_version "$WORK/m.json")" 1 "schema_version"
expect_eq "$(jqr .processes "$WORK/m.json")" 3 "processes merged"
expect_eq "$(jqr '.hosts | join(",")' "$WORK/m.json")" "nodeA,nodeB" "distinct hosts"
expect_eq "$(jqr '.wall_ns | "\(.total) \(.min) \(.max) \(.max_process)"' "$WORK/m.json")" \
    "6000000000 1800000000 2200000000 101@nodeA" "wall time total, min, max"
expect_eq "$(jqr '[.kernels[].mangled] | join(",")' "$WORK/m.json")" "_Z4gemmPKfS0_Pfi,_Z6reducePKfPfi" \
    "kernels sorted by total time"
expect_eq "$(kernel_field "$WORK/m.json" gemm processes)" 3 "gemm processes"
expect_eq "$(kernel_field "$WORK/m.json" gemm calls)" 32 "gemm calls summed"
expect_eq "$(kernel_field "$WORK/m.json" gemm total_ns)" 12000000 "gemm total_ns summed"
expect_eq "$(kernel_field "$WORK/m.json" gemm avg_ns)" 375000 "gemm average per call"
expect_eq "$(kernel_field "$WORK/m.json" gemm process_min_ns)" 3000000 "gemm per-process min"
expect_eq "$(kernel_field "$WORK/m.json" gemm process_max_ns)" 6000000 "gemm per-process max"
expect_eq "$(kernel_field "$WORK/m.json" gemm process_mean_ns)" 4000000 "gemm per-process mean"
expect_eq "$(kernel_field "$WORK/m.json" gemm imbalance)" 1.5 "gemm imbalance"
expect_eq "$(kernel_field "$WORK/m.json" gemm max_process)" 101@nodeA "gemm max on rank 1"
# The host versus device split: the launch-weighted median of the medians (launch host time 3, 4 and
# 5 us over 12, 10 and 10 launches: 4 us; queue time 20, 30 and 80 us over 10, 10 and 12: 30 us), and
# the largest p95; null where no process had one.
expect_eq "$(kernel_field "$WORK/m.json" gemm launch_host_ns_med)" 4000 "gemm launch host time, weighted median of medians"
expect_eq "$(kernel_field "$WORK/m.json" gemm launch_host_ns_p95)" 9000 "gemm launch host time, largest p95"
expect_eq "$(kernel_field "$WORK/m.json" gemm queue_ns_med)" 30000 "gemm queue time, weighted median of medians"
expect_eq "$(kernel_field "$WORK/m.json" gemm queue_ns_p95)" 90000 "gemm queue time, largest p95"
expect_eq "$(kernel_field "$WORK/m.json" reduce queue_ns_med)" null "reduce: no queue time reported"
expect_eq "$(kernel_field "$WORK/m.json" reduce processes)" 2 "reduce missing on rank 2"
expect_eq "$(kernel_field "$WORK/m.json" reduce calls)" 10 "reduce calls summed"
expect_eq "$(kernel_field "$WORK/m.json" reduce timed)" 9 "reduce timed summed"
expect_eq "$(kernel_field "$WORK/m.json" reduce total_ns)" 800000 "reduce total_ns summed"
expect_eq "$(kernel_field "$WORK/m.json" reduce avg_ns)" 88889 "reduce average per timed call"
expect_eq "$(kernel_field "$WORK/m.json" reduce process_min_ns)" 300000 "reduce per-process min"
expect_eq "$(kernel_field "$WORK/m.json" reduce process_max_ns)" 500000 "reduce per-process max"
expect_eq "$(kernel_field "$WORK/m.json" reduce imbalance)" 1.25 "reduce imbalance"
expect_eq "$(kernel_field "$WORK/m.json" reduce max_process)" 100@nodeA "reduce max on rank 0"
expect_eq "$(copy_field "$WORK/m.json" HtoD count) $(copy_field "$WORK/m.json" HtoD bytes) $(copy_field "$WORK/m.json" HtoD total_ns)" \
    "8 8388608 4194304" "HtoD count, bytes, time summed"
expect_eq "$(jqr '.copies[] | select(.direction == "HtoD") | .gbps == 2' "$WORK/m.json")" true "HtoD GB/s = 2"
expect_eq "$(jqr '.memsets | "\(.count) \(.bytes) \(.total_ns)"' "$WORK/m.json")" "1 4096 2048" "memsets summed"
expect_eq "$(jqr '.allocations[] | select(.kind == "device") | "\(.count) \(.bytes) \(.peak_bytes) \(.peak_process)"' "$WORK/m.json")" \
    "9 9437184 3145728 101@nodeA" "device allocations summed, peak the largest"
expect_eq "$(jqr '.context_init | "\(.processes) \(.min_ns) \(.max_ns) \(.mean_ns)"' "$WORK/m.json")" \
    "2 20000000 30000000 25000000" "context init per process"

# Text: the same summary, to stdout, against the golden file.
"$MERGE" "$D/rank0.json" "$D/rank1.json" "$D/rank2.json" >"$WORK/m.txt"
diff -u "$D/expected.txt" "$WORK/m.txt" >&2 || fail "text summary differs from tests/data/merge/expected.txt"
pass "text summary matches the golden file"

# A truncated file, a foreign schema_version and a missing file: one warning each, skipped, exit 0.
rc=0
"$MERGE" -f json "$D/rank0.json" "$D/truncated.json" "$D/rank1.json" "$D/schema2.json" "$WORK/missing.json" \
    "$D/rank2.json" >"$WORK/b.json" 2>"$WORK/err" || rc=$?
cat "$WORK/err"
expect_eq "$rc" 0 "exit status with bad files among good ones"
expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 3 "one warning line per bad file"
expect_grep '^kprof-merge: .*truncated\.json.*; skipped$' "$WORK/err" "truncated report warned about"
expect_grep '^kprof-merge: .*schema2\.json: schema_version 2 is not supported \(expected 1\); skipped$' "$WORK/err" \
    "foreign schema_version warned about"
expect_grep '^kprof-merge: .*missing\.json.*; skipped$' "$WORK/err" "missing file warned about"
expect_eq "$(jqr '"\(.processes) \(.skipped)"' "$WORK/b.json")" "3 3" "good reports merged, bad ones skipped"
expect_eq "$(jq -S .kernels "$WORK/b.json")" "$(jq -S .kernels "$WORK/m.json")" "bad files change nothing"

# A text report among them (a new-user helper read only "'[' or '{' expected near '='"): said what it is, as
# kprof report says it; and through kprof report, the messages begin "kprof:" as its others do.
printf '== libkprof: report ==\nProcess: x\n' >"$WORK/rank9.txt"
"$MERGE" -f json "$D/rank0.json" "$WORK/rank9.txt" >/dev/null 2>"$WORK/err" || fail "kprof-merge with a text report failed"
expect_grep "^kprof-merge: .*rank9\.txt: a libkprof text report, not JSON: merge the JSON ones \(save them with kprof --save FILE, or KPROF_SAVE\); skipped\$" \
    "$WORK/err" "a text report: said so"
printf 'Time (%%),Total Time (ns)\n' >"$WORK/rank9.kernels.csv"
"$MERGE" -f json "$D/rank0.json" "$WORK/rank9.kernels.csv" >/dev/null 2>"$WORK/err" || fail "kprof-merge with a CSV table failed"
expect_grep "^kprof-merge: .*rank9\.kernels\.csv: a libkprof CSV table, not JSON: merge the JSON reports \(save them with kprof --save FILE, or KPROF_SAVE\); skipped\$" \
    "$WORK/err" "a CSV table: said so"
if [ -x "$top_builddir/tools/kprof-report" ]; then
    "$top_builddir/tools/kprof-report" -f json "$D/rank0.json" "$WORK/rank9.txt" "$WORK/missing.json" >/dev/null 2>"$WORK/err" ||
        fail "kprof report of several with bad ones failed"
    expect_eq "$(grep -vc '^kprof: ' "$WORK/err")" 0 "kprof report: every message begins kprof: ($(head -n1 "$WORK/err"))"
fi

# A FIFO whose content is no JSON (a breaker helper's: kprof report hung for ever, opening it again to see
# whether it held a text report): an error, at once, from both tools.
if mkfifo "$WORK/fifo" 2>/dev/null; then
    for tool in "$top_builddir/tools/kprof-report" "$MERGE"; do
        [ -x "$tool" ] || continue
        (printf 'xxxxxxxxxx' >"$WORK/fifo" &)
        rc=0; timeout 10 "$tool" "$WORK/fifo" >/dev/null 2>"$WORK/err" || rc=$?
        [ "$rc" != 124 ] || fail "$(basename "$tool") hung on a FIFO"
        expect_grep "fifo:1: '\[' or '\{' expected near 'xxxxxxxxxx'" "$WORK/err" "$(basename "$tool"): a FIFO's bad content said (rc $rc)"
    done
fi

# A kprof-merge summary among the reports (a glob that also matches the summary written before), and a
# report given twice: each would count as one more process, doubling every figure (a new user's finding:
# "Processes: 4 merged" for 3).  Warned about and skipped.
rc=0
"$MERGE" -f json "$D/rank0.json" "$D/rank1.json" "$WORK/m.json" "$D/rank2.json" "$D/rank1.json" \
    >"$WORK/c.json" 2>"$WORK/err" || rc=$?
cat "$WORK/err"
expect_eq "$rc" 0 "exit status with a summary and a repeat among the reports"
expect_grep "^kprof-merge: .*m\.json: a kprof-merge summary, not a libkprof report \(merge the reports it merged\); skipped\$" \
    "$WORK/err" "the summary warned about"
expect_grep "^kprof-merge: .*rank1\.json: process [0-9]+@[^ ]+ again \(its report is .*rank1\.json\); skipped\$" \
    "$WORK/err" "the repeat warned about"
expect_eq "$(jqr '"\(.processes) \(.skipped)"' "$WORK/c.json")" "3 2" "3 processes merged, 2 skipped"
expect_eq "$(jq -S .kernels "$WORK/c.json")" "$(jq -S .kernels "$WORK/m.json")" "the summary and the repeat change nothing"

# A format in any case, as libkprof reads KPROF_FORMAT; kprof report of one report alike.
"$MERGE" -f JSON "$D/rank0.json" "$D/rank1.json" "$D/rank2.json" >"$WORK/upper.json" || fail "-f JSON refused"
expect_eq "$(jq -S .kernels "$WORK/upper.json")" "$(jq -S .kernels "$WORK/m.json")" "-f JSON: the JSON summary"
"$top_builddir/tools/kprof" report -f JSON "$D/rank0.json" >"$WORK/one.json" || fail "kprof report -f JSON refused"
expect_eq "$(jqr .tool "$WORK/one.json")" libkprof "kprof report -f JSON: the report as JSON"

# Nothing merged: exit 1.  Usage errors: exit 2.
rc=0; "$MERGE" "$D/truncated.json" "$D/schema2.json" >/dev/null 2>"$WORK/err" || rc=$?
expect_eq "$rc" 1 "exit status when no report merged"
rc=0; "$MERGE" >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 2 "exit status without reports"
rc=0; "$MERGE" -f xml "$D/rank0.json" >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 2 "exit status for an unknown format"
rc=0; "$MERGE" --top -1 "$D/rank0.json" >/dev/null 2>"$WORK/err" || rc=$?
expect_eq "$rc:$(cat "$WORK/err")" "2:kprof-merge: --top needs a whole number from 0 to 1073741824, not '-1'" "a bad --top"
"$MERGE" --top 1 "$D/rank0.json" "$D/rank1.json" "$D/rank2.json" >"$WORK/top.txt"
expect_eq "$(sed -n '/== kprof-merge: kernels ==/,/^Per-process/p' "$WORK/top.txt" | grep -c '^ *[0-9]')" 1 "--top 1: one kernel row"
expect_grep '^  \(1 more kernel, 6\.25% of kernel time, not shown: --top 1\)$' "$WORK/top.txt" "and the one left out"
expect_eq "$("$MERGE" --version)" "kprof-merge (libkprof) $(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")" \
    "--version"
# An unknown option or one without its value: one line of kprof-merge's own (getopt's two named argv[0]'s
# whole path: a breaker helper); a write error says why.
for args in "--bogus x" "-x" "-f"; do
    rc=0; "$MERGE" $args >/dev/null 2>"$WORK/err" || rc=$?
    expect_eq "$rc:$(wc -l <"$WORK/err" | tr -d ' ')" "2:1" "kprof-merge $args: exit status 2, one line"
    expect_grep '^kprof-merge: (unknown option|-f needs a value)' "$WORK/err" "kprof-merge $args: $(cat "$WORK/err")"
done
if [ -w /dev/full ]; then
    rc=0; "$MERGE" "$D/rank0.json" >/dev/full 2>"$WORK/err" || rc=$?
    expect_eq "$rc:$(cat "$WORK/err")" "1:kprof-merge: error writing stdout: No space left on device" "a write error says why"
fi
# A wall time in ns is written whole, as the tables write ns (a breaker helper read "total 9000.000").
jq '.wall_ns = 4000' "$D/rank0.json" >"$WORK/w1.json"
jq '.wall_ns = 5000 | .pid = 4242' "$D/rank1.json" >"$WORK/w2.json"
"$MERGE" "$WORK/w1.json" "$WORK/w2.json" >"$WORK/wall.txt" 2>&1 || fail "kprof-merge of two short walls failed"
expect_grep '^Wall time \(ns\): total 9000, min 4000 \(.*\), max 5000 \(.*\), mean 4500$' "$WORK/wall.txt" "wall time in whole ns"
