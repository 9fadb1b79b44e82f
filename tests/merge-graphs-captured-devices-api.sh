#!/bin/sh
# kprof-merge merges the graphs, captured, devices and api tables of fake-stack reports: counts and times
# summed, minimums the least and maximums the largest, devices matched by UUID (every rank's device is 0),
# and the api table's medians merged only as the calls-weighted median of the processes' medians, under a
# key of its own.
. "${top_srcdir:-..}/tests/lib.sh"
MERGE=$top_builddir/tools/kprof-merge
[ -x "$MERGE" ] || skip "kprof-merge not built (configure found no jansson)"
need_jq
[ -x "$FAKE/progs/graphapp" ] || skip "fake graph program not built"
export FAKEGPU_KERNEL_NS="graph_k1=3000,graph_k2=5000,direct=2000"
# Ranks 0 and 2 on one GPU, rank 1 on another; each sees its GPU as device 0.
for r in 0 1 2; do
    FAKEGPU_UUID_BASE=$((r % 2)) KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$r.json" \
        run_kprof "$FAKE/progs/graphapp" mixed >/dev/null || fail "graphapp (rank $r) failed"
done
R="$WORK/r0.json $WORK/r1.json $WORK/r2.json"
"$MERGE" -f json -o "$WORK/m.json" $R 2>"$WORK/err"
expect_no_grep . "$WORK/err" "nothing on stderr"
# ins EXPR: EXPR over the three input reports (jq -s: an array of them).
ins() { jq -s -r "$1" $R; }
m() { jqr "$1" "$WORK/m.json"; }

expect_eq "$(m '.graphs | length')" 1 "one graph row: graph 1 of each rank"
expect_eq "$(m '.graphs[0] | "\(.mangled) \(.processes)"')" "graph 1 3" "graph 1 matched in three processes"
expect_eq "$(m '.graphs[0] | "\(.calls) \(.timed) \(.total_ns)"')" \
    "$(ins '[.[].graphs[0]] | "\(map(.calls) | add) \(map(.timed) | add) \(map(.total_ns) | add)"')" "graph calls, timed, total_ns summed"
expect_eq "$(m '.graphs[0].total_ns')" 570000 "graph total: 3 x 10 replays x 19 us"
expect_eq "$(m '.graphs[0] | "\(.min_ns) \(.max_ns)"')" \
    "$(ins '[.[].graphs[0]] | "\(map(.min_ns) | min) \(map(.max_ns) | max)"')" "graph min of mins, max of maxes"

expect_eq "$(m '[.captured[] | "\(.mangled)=\(.launches)/\(.processes)"] | join(" ")')" \
    "_Z8graph_k1v=9/3 _Z8graph_k2v=6/3" "captured launches summed, most first"

expect_eq "$(m '.devices | length')" 2 "two GPUs, though every rank's device is 0"
U0=GPU-fa4e0000-0000-0000-0000-000000000000 U1=GPU-fa4e0000-0000-0000-0000-000000000001
expect_eq "$(m ".devices[] | select(.uuid == \"$U0\") | \"\(.device) \(.processes) \(.kernels) \(.kernel_ns) \(.busy_ns)\"")" \
    "$(ins ".[0].devices[0] as \$a | .[2].devices[0] as \$b | \"0 2 \(\$a.kernels + \$b.kernels) \(\$a.kernel_ns + \$b.kernel_ns) \(\$a.busy_ns + \$b.busy_ns)\"")" \
    "ranks 0 and 2 share $U0: kernels and times summed"
expect_eq "$(m ".devices[] | select(.uuid == \"$U1\") | \"\(.processes) \(.kernels)\"")" \
    "$(ins '"1 \(.[1].devices[0].kernels)"')" "rank 1 alone on $U1"

# api: per function, sums, min of mins, max of maxes; no exact-looking median_ns.
expect_eq "$(m '[.api[] | "\(.name) \(.processes) \(.calls) \(.errors) \(.total_ns) \(.min_ns) \(.max_ns)"] | sort | join(";")')" \
    "$(ins '[.[].api[]] | group_by(.name) | map("\(.[0].name) \(length) \(map(.calls) | add) \(map(.errors) | add) \(map(.total_ns) | add) \(map(.min_ns) | min) \(map(.max_ns) | max)") | sort | join(";")')" \
    "api: calls, errors, total summed; min of mins; max of maxes"
expect_eq "$(m '[.api[] | select(has("median_ns"))] | length')" 0 "no api row claims an exact median_ns"

# The weighted median of medians, and devices without a UUID, on hand-made reports.
for r in 0 1 2; do
    cat >"$WORK/h$r.json" <<JSON
{"schema_version": 1, "tool": "libkprof", "pid": $r, "host": "node", "command": "/bin/app",
 "devices": [{"device": 0, "kernels": 1, "kernel_ns": 10, "busy_ns": 10}],
 "graphs": [{"name": "graph 1 (2 kernel nodes)", "mangled": "graph 1", "calls": 2, "timed": $((r == 2 ? 0 : 2)),
             "total_ns": 200, "min_ns": $((r * 10 + 90)), "max_ns": $((r * 10 + 110))}],
 "api": [{"name": "cudaMalloc", "calls": $((r == 1 ? 5 : 1)), "errors": 0, "total_ns": 100,
          "max_ns": $((r * 100 + 150)), "median_ns": $((r * 100 + 100)), "min_ns": $((r * 100 + 50))}]}
JSON
done
"$MERGE" -f json -o "$WORK/h.json" "$WORK/h0.json" "$WORK/h1.json" "$WORK/h2.json"
expect_eq "$(jqr '.api[0] | "\(.calls) \(.min_ns) \(.max_ns) \(.median_of_medians_ns)"' "$WORK/h.json")" "7 50 350 200" \
    "medians 100 (1 call), 200 (5 calls), 300 (1 call): weighted median 200"
expect_eq "$(jqr '.graphs[0] | "\(.calls) \(.timed) \(.min_ns) \(.max_ns)"' "$WORK/h.json")" "6 4 90 120" \
    "graph min of mins, max of maxes, over the processes that timed it (rank 2's untimed 110/130 left out)"
expect_eq "$(jqr '[.devices[] | "\(.uuid) \(.process) \(.processes)"] | join(",")' "$WORK/h.json")" \
    "null 0@node 1,null 1@node 1,null 2@node 1" "devices without a UUID are not matched across processes"

# Text: the four sections.
"$MERGE" $R >"$WORK/m.txt"
cat "$WORK/m.txt"
expect_grep '^    3        30 .*  graph 1 \(5 kernel nodes\)$' "$WORK/m.txt" "text: the graph row"
expect_grep '^    3          9  graph_k1\(\)$' "$WORK/m.txt" "text: a captured row"
expect_grep "^    2 .*  $U0\$" "$WORK/m.txt" "text: the shared GPU"
expect_grep '^== kprof-merge: api ==$' "$WORK/m.txt" "text: the api section"
