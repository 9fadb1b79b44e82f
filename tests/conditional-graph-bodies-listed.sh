#!/bin/sh
# Conditional graph nodes (CUDA 12.4+): CUDA has no getter for their body graphs, so libkprof records them
# where cuGraphAddNode makes them; instantiation walks them, and their kernels are listed, marked as in
# conditional bodies, with no count guessed (how often a body runs is decided on the GPU).  The graph row
# counts them among its kernel nodes; the plain kernel node is counted with every replay.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="node_plain=2000,node_in_body=3000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/preds" cond >/dev/null || fail "preds cond failed"
expect_eq "$(jqr '.graphs[0].name' "$WORK/r.json")" "graph 1 (2 kernel nodes, 1 in conditional bodies)" "graph row"
expect_eq "$(jqr '.graphs[0].avg_ns' "$WORK/r.json")" 11000 "timed as a whole (2 us + 3 x 3 us: a WHILE body run 3 times)"
expect_eq "$(kernel_field "$WORK/r.json" node_in_body in_conditional_bodies)" true "the body's kernel is listed and marked"
expect_eq "$(kernel_field "$WORK/r.json" node_in_body calls)" 0 "its launches there are not guessed"
expect_eq "$(kernel_field "$WORK/r.json" node_plain calls)" 4 "the plain node: one per replay"
expect_eq "$(kernel_field "$WORK/r.json" node_plain in_conditional_bodies)" false "and not marked"
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/preds" cond >/dev/null
expect_grep 'node_in_body  \[also in conditional graph bodies: launches there unknown\]$' "$WORK/r.txt" "text: marked"
