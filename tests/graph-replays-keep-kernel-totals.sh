#!/bin/sh
# A kernel launched directly and also replayed by a graph: its total is what its own launches measured
# (the replays are timed with their graph, in the graphs table), never an estimate scaled up by the
# replays; every format says how many of its calls ran inside graphs, and the text report marks the row.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/graphapp" ] || skip "fake graph program not built"
export FAKEGPU_KERNEL_NS="graph_k1=3000,graph_k2=5000,direct=2000"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/graphapp" mixed >/dev/null ||
    fail "graphapp mixed failed"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" graph_k1 calls)" 31 "graph_k1: 30 in graphs and 1 direct"
expect_eq "$(kernel_field "$WORK/r.json" graph_k1 graph_calls)" 30 "graph_calls: the 30 inside graphs"
expect_eq "$(kernel_field "$WORK/r.json" graph_k1 timed)" 1 "the direct launch timed"
expect_eq "$(kernel_field "$WORK/r.json" graph_k1 total_ns)" 3000 "total: the direct launch's 3 us, not 31 x 3 us"
expect_eq "$(kernel_field "$WORK/r.json" graph_k2 total_ns)" 0 "graph_k2 (only in graphs): 0 here"
expect_eq "$(kernel_field "$WORK/r.json" graph_k2 graph_calls)" 20 "graph_k2: 20 in graphs"
expect_eq "$(jqr '.graphs[0].total_ns' "$WORK/r.json")" 190000 "the graph row holds the replays' time"
expect_eq "$(kernel_field "$WORK/r.json" direct graph_calls)" 0 "direct: none in graphs"
# The same whatever the grouping (the replays' shapes are the graph's).
KPROF_GROUP=shape KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s.json" run_kprof "$FAKE/progs/graphapp" mixed >/dev/null
expect_eq "$(jq '[.kernels[] | select(.mangled == "_Z8graph_k1v") | .total_ns] | add' "$WORK/s.json")" 3000 \
    "KPROF_GROUP=shape: the same total"
# Text: the row says where the rest of its launches are timed; CSV: a column.
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$FAKE/progs/graphapp" mixed >/dev/null
expect_grep 'graph_k1\(\)  \[30 of the calls in graphs: timed there\]$' "$WORK/r.txt" "text: graph_k1's row is marked"
# Time(%) is of the kernels table's Total: with graphs, a line says their time is in graphs (a new-user
# helper read direct()'s 100.00% as the device's share); without graphs the graph notes are left out.
expect_grep "^Time\(%\) is of this table's Total: the graphs' time is in graphs, below\.$" "$WORK/r.txt" "text: graphs' time is elsewhere"
KPROF_OUTPUT="$WORK/nog.txt" run_kprof "$PROGS/named" kA >/dev/null
expect_no_grep "graphs" "$(sed -n '/== libkprof: kernels ==/,/== libkprof: graphs ==/p' "$WORK/nog.txt" | sed '$d' >"$WORK/nog.kernels"; echo "$WORK/nog.kernels")" \
    "text, no graphs: no graph notes under the kernels table"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$FAKE/progs/graphapp" mixed >/dev/null
expect_eq "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == "graph_calls") c = i; if ($i == "mangled") m = i}}
                      NR > 1 && $m == "_Z8graph_k1v" {print $c}' "$WORK/c.kernels.csv")" \
    30 "csv: graph_calls column"
