#!/bin/sh
# Stream capture and CUDA graphs: launches made while capturing are counted apart and untimed (no event
# goes into the capturing stream, so the app's capture and graph are exactly as without libkprof); each
# graph launch is timed as one row, and every kernel node it holds counts as a launch, so kernel counts
# match what the GPU ran.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/graphapp" ] || skip "fake graph program not built"
export FAKEGPU_KERNEL_NS="graph_k1=3000,graph_k2=5000,direct=2000"
run_plain "$FAKE/progs/graphapp" >"$WORK/plain.out"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/graphapp" >"$WORK/kprof.out"
diff -u "$WORK/plain.out" "$WORK/kprof.out" || fail "the program saw something different under libkprof"
pass "the program's capture, instantiation and replays behave as without libkprof"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" graph_k1 calls)" 30 "graph_k1: 3 nodes x 10 replays"
expect_eq "$(kernel_field "$WORK/r.json" graph_k1 timed)" 0 "graph nodes are not timed one by one"
expect_eq "$(kernel_field "$WORK/r.json" direct timed)" 4 "direct launches timed"
expect_eq "$(jqr '.graphs | length' "$WORK/r.json")" 1 "one graph row"
expect_eq "$(jqr '.graphs[0].name' "$WORK/r.json")" "graph 1 (5 kernel nodes)" "named with its kernel nodes"
expect_eq "$(jqr '.graphs[0].calls' "$WORK/r.json")" 10 "replays"
expect_eq "$(jqr '.graphs[0].timed' "$WORK/r.json")" 10 "each timed"
expect_eq "$(jqr '.graphs[0].avg_ns' "$WORK/r.json")" 19000 "as a whole (3 x 3 us + 2 x 5 us)"
expect_eq "$(jq -c '[.captured[] | [.mangled, .launches]] | sort' "$WORK/r.json")" \
    '[["_Z8graph_k1v",3],["_Z8graph_k2v",2]]' "captured launches counted apart"
expect_eq "$(jqr '.events.failed + .events.incomplete' "$WORK/r.json")" 0 "no pair lost"
# The capture rules themselves (the fake enforces global-mode capture): libkprof must not break them.
run_plain "$FAKE/progs/graphapp" rules >"$WORK/rules.plain"
run_kprof "$FAKE/progs/graphapp" rules >"$WORK/rules.kprof" 2>/dev/null
diff -u "$WORK/rules.plain" "$WORK/rules.kprof" || fail "capture rules behave differently under libkprof"
pass "capture rules as without libkprof"
# A capture begun through the driver's first cuStreamBeginCapture (CUDA 10.0), as an old library would:
# libkprof sees it too, and neither breaks it nor times the captured launches.
run_plain "$FAKE/progs/graphapp" v1 >"$WORK/v1.plain"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/v1.json" run_kprof "$FAKE/progs/graphapp" v1 >"$WORK/v1.kprof" ||
    fail "graphapp v1 failed under libkprof"
diff -u "$WORK/v1.plain" "$WORK/v1.kprof" || fail "a v1 capture behaves differently under libkprof"
expect_eq "$(jq -c '[.captured[] | [.mangled, .launches]] | sort' "$WORK/v1.json")" \
    '[["_Z8graph_k1v",3],["_Z8graph_k2v",2]]' "v1 capture: captured launches counted apart"
expect_eq "$(kernel_field "$WORK/v1.json" graph_k1 calls)" 30 "v1 capture: graph_k1 replayed 30 times"
