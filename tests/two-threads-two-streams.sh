#!/bin/sh
# Two host threads launching on two streams at once: no launch lost or counted twice, every one timed, and
# every launch's pair holding its own kernel alone.  Read from the trace, as each pair's raw length (its
# duration plus what was taken off it), as threads-on-legacy-and-blocking-streams-exact.sh does: a launch
# the harvester found on an idle stream (a thread descheduled between two launches) and did not draw for a
# hold has the host's launch lag taken off, which on the fake (a virtual GPU clock, the host's real one) is
# however long the host thread took, not GPU time.  A loaded -O0 build in CI read kernel_a's total 998000
# of 1000000 ns that way; the pairs themselves stay exact.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="kernel_a=2000,kernel_b=3000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" run_kprof "$PROGS/two_threads"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a calls)" 500 "kernel_a calls"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b calls)" 500 "kernel_b calls"
expect_eq "$(kernel_field "$WORK/r.json" kernel_a timed)" 500 "kernel_a timed"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b timed)" 500 "kernel_b timed"
for k in kernel_a:2000 kernel_b:3000; do
    expect_eq "$(jq -r --arg k "${k%:*}" '[.traceEvents[] | select(.cat == "kernel" and (.name | startswith($k + "("))) |
                   ((.dur * 1000 + .args.taken_off_ns) | round)] | "\(min)-\(max)-\(length)"' "$WORK/t.json")" \
        "${k#*:}-${k#*:}-500" "${k%:*}: every launch's pair holds its own kernel alone"
done
# Without holds drawn (every launch due one held), the totals are exact too.
KPROF_HOLD=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/h.json" run_kprof "$PROGS/two_threads"
expect_eq "$(kernel_field "$WORK/h.json" kernel_a total_ns)" 1000000 "KPROF_HOLD=1: kernel_a total"
expect_eq "$(kernel_field "$WORK/h.json" kernel_b total_ns)" 1500000 "KPROF_HOLD=1: kernel_b total"
expect_eq "$(kernel_field "$WORK/r.json" kernel_b name)" "kernel_b(float*)" "demangled"
