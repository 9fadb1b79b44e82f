#!/bin/sh
# Traces of several processes put into one (MPI ranks, a launcher's workers: one KPROF_TRACE each) keep
# them apart and on one timeline: each process is its own pid, named for its command, pid and host, its
# streams named for their device, and its times on the host's CLOCK_MONOTONIC (microseconds).  Before,
# every trace's pid was the device number (two ranks' device 0 merged into one "GPU 0") and its times
# counted from its own start (both ranks began at 0).
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
for r in 0 1; do
    KPROF_TRACE="$WORK/trace.$r.json" KPROF_OUTPUT=/dev/null run_kprof "$KERNELS/stream_overlap" --no-verify \
        --chunks 4 --chunk-bytes 65536 >/dev/null 2>"$WORK/err.$r" || fail "rank $r failed: $(cat "$WORK/err.$r")"
done
jq -s '{traceEvents: (map(.traceEvents) | add), starts: map(.otherData.start_us), pids: map(.otherData.pid)}' \
    "$WORK/trace.0.json" "$WORK/trace.1.json" >"$WORK/both.json"
expect_eq "$(jq '[.traceEvents[].pid] | unique | length' "$WORK/both.json")" 2 "two processes, two pids"
expect_eq "$(jq '.pids as $p | [.traceEvents[] | select(.ph == "X") | .pid] | unique == ($p | sort)' "$WORK/both.json")" true \
    "the events carry their process's pid"
expect_eq "$(jq '[.traceEvents[] | select(.name == "process_name") | .args.name | test("stream_overlap \\(pid [0-9]+ on .+\\)$")] | [length, all]' -c "$WORK/both.json")" \
    '[2,true]' "each process named for its command, pid and host"
expect_eq "$(jq '[.traceEvents[] | select(.name == "thread_name") | .args.name | test("^GPU 0: stream [0-9]+")] | [length > 0, all]' -c "$WORK/both.json")" \
    '[true,true]' "each stream named for its device"
# One clock: the second process started after the first, and every event lies after its process's start.
expect_eq "$(jq '.starts[1] > .starts[0]' "$WORK/both.json")" true "the second process starts later on the shared clock"
for r in 0 1; do
    expect_eq "$(jq '.otherData.start_us as $s | [.traceEvents[] | select(.ph == "X") | .ts >= $s] | all' "$WORK/trace.$r.json")" true \
        "process $r: its events after its start"
done
