#!/bin/sh
# A thread's global-mode stream capture forbids "potentially unsafe" calls, event queries among them, on
# every thread whose own mode is global (the default), and such a call invalidates the capture.  libkprof
# queries events on the app's thread around a timed launch, only while no capture is in progress; a capture
# begun by another thread between that check and the query was invalidated (the fake, like CUDA, then
# fails the capture's next launch: seen in 13 runs of 30 of `holds capture`).  Here one thread captures a
# stream 200 times (a kernel launched into it, one on a stream of its own) while another launches 2000
# times on a third stream: every capture ends with its graph, as without libkprof, and every launch is
# counted.  Relaxed-mode captures forbid nothing; the other thread then also synchronizes as it goes.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
run_plain "$PROGS/holds" capture >"$WORK/plain" 2>&1 || fail "holds capture failed without libkprof: $(cat "$WORK/plain")"
for mode in capture capture_relaxed; do
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        rm -f "$WORK/truth"
        FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/holds" "$mode" \
            >"$WORK/out" 2>&1 || fail "$mode, run $i: holds failed: $(cat "$WORK/out")"
        expect_eq "$(head -1 "$WORK/out")" "captures not ended with a graph: 0" "$mode, run $i: every capture ended with its graph" >/dev/null
        truth_matches "$WORK/r.json" "$WORK/truth" >/dev/null
    done
    pass "$mode: 20 runs, every capture ended with its graph and every launch counted"
done
expect_eq "$(kernel_field "$WORK/r.json" side_k calls)" 2001 "side_k: every launch counted"
