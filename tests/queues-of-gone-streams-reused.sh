#!/bin/sh
# A stream's queue (the pairs waiting to be read, and a row of the trace) outlived its stream: a program that
# made and destroyed 800,000 streams, or ran thousands of short threads launching on their per-thread
# default streams, kept a queue for each (about 200 bytes, a name, and a queue every harvest pass walked):
# 165 MB for a breaker helper's 800,000 streams.  A queue whose stream was destroyed, or whose thread
# exited, is now retired once its last pair is read, and given to the next stream of its context (sharing
# its trace row, named for both).  Here each launch still counts and is timed exactly, and the trace has far
# fewer rows than streams (before: one per stream).  The harvester reads the pairs as they come, so how many
# queues are in use at once varies with its pace: half the streams is far from both sides.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS=kernel_a=1000
check() { # NAME ROUNDS ARGS...: run stream_churn, check the report and the trace
    name=$1 rounds=$2; shift 2
    KPROF_TRACE="$WORK/$name.trace.json" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$name.json" \
        run_kprof "$PROGS/stream_churn" "$rounds" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
        fail "$name: stream_churn failed: $(cat "$WORK/$name.out" "$WORK/$name.err")"
    n=$((rounds * 5))
    expect_eq "$(jq -c '[.kernels[] | [.calls, .timed, .total_ns]]' "$WORK/$name.json")" "[[$n,$n,$((n * 1000))]]" \
        "$name: every launch counted and timed, each 1 us"
    rows=$(jq '[.traceEvents[] | select(.name == "thread_name")] | length' "$WORK/$name.trace.json")
    [ "$rows" -ge 1 ] && [ "$rows" -lt $((rounds / 2)) ] ||
        fail "$name: $rows stream rows in the trace for $rounds streams (a queue kept for each)"
    pass "$name: $rows stream rows for $rounds streams"
}
check threads 2000 threads
expect_grep 'per-thread default stream \(thread [0-9]+\), then [0-9]+ later streams?: the last per-thread default stream' \
    "$WORK/threads.trace.json" "threads: a row reused is named for its first and last streams"
# Every stream a handle never seen before (by default the fake's malloc gives a destroyed stream's memory to
# the next one, whose queue is then found again by its key).
FAKEGPU_REUSE_STREAM_HANDLE=-1 check streams 3000
FAKEGPU_REUSE_STREAM_HANDLE=-1 KPROF_HOLD=8 check streams-hold8 1000
