#!/bin/sh
# A device's Busy time (the union of its kernels' intervals) is never less than the kernel time of any one
# of its streams: a stream runs its kernels one after another, so their intervals cannot overlap, although
# their starts, read through float milliseconds from a reference event, can land a few ns early.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq

# One stream, 42 kernels of 1 us back to back: the union is their sum.
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/one.json" run_kprof "$KERNELS/reduce" --no-verify >/dev/null
expect_eq "$(jqr '.devices[0].kernel_ns' "$WORK/one.json")" 42000 "kernel sum, one stream"
expect_eq "$(jqr ".devices[0].busy_ns" "$WORK/one.json")" 42000 "busy, one stream"
KPROF_OUTPUT="$WORK/one.txt" run_kprof "$KERNELS/reduce" --no-verify >/dev/null
awk '/^== libkprof: devices ==/ { d = 1; next } d && /^ +0 / { print $3, $4; exit }' "$WORK/one.txt" >"$WORK/one.cells"
[ -s "$WORK/one.cells" ] || { cat "$WORK/one.txt" >&2; fail "no device row in the text report"; }
read -r sum busy <"$WORK/one.cells"
expect_eq "$busy" "$sum" "text: Busy reads the kernel sum"

# Many streams at once: the union is at least each stream's own kernel time (from the trace, per stream).
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/many.json" KPROF_TRACE="$WORK/many.trace.json" run_kprof "$KERNELS/threads_streams" >/dev/null
busy=$(jqr '.devices[0].busy_ns' "$WORK/many.json")
most=$(jq '[.traceEvents[] | select(.ph == "X" and (.name | startswith("memcpy") | not) and (.name | startswith("memset") | not))]
           | group_by(.tid) | map(map(.dur * 1000 | round) | add) | max' "$WORK/many.trace.json")
[ "$busy" -ge "$most" ] || fail "busy $busy ns below one stream's kernel time $most ns"
pass "busy $busy ns >= the busiest stream's kernel time $most ns"
