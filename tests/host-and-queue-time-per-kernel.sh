#!/bin/sh
# Host versus device time per kernel (launch_host_ns_*, queue_ns_*): the launch call's host time and the
# queue time from the call's start to the kernel's start on the GPU, median and p95 over the timed
# launches.  The fake GPU's clock runs with a virtual host clock (tests/fake/hostclock.c): GPU time = host
# time + FAKEGPU_CLOCK_OFFSET_NS (+ FAKEGPU_CLOCK_DRIFT_PPM), a launch takes FAKEGPU_LAUNCH_HOST_NS of host
# time and its kernel is queued at the call's end, so every figure is known exactly.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export KPROF_CALIBRATE=0 FAKEGPU_CLOCK_OFFSET_NS=123456789
# The histogram's representative of v (histogram.h): exact below 128 ns, else the middle of its bucket.
hist_rep() { awk -v v="$1" 'BEGIN { if (v < 128) { print v; exit } e = int(log(v) / log(2)); while (2 ^ (e + 1) <= v) e++;
    while (2 ^ e > v) e--; w = 2 ^ (e - 6); lo = 2 ^ e + int((v - 2 ^ e) / w) * w; printf "%d\n", lo + w / 2 }'; }

# Busy: a 100 us fill kernel, then ten 10 us launches of 2 us each queued behind it: launch i (from 0) is
# called at 2 us x (i + 1) after the fill's call and starts at 2 us + 100 us + 10 us x i, so its queue time
# is 100 us + 8 us x i.  Median (the 5th of 10, nearest rank) 132 us, read from the histogram; p95 the
# largest, 172 us, exact; every launch call 2 us.
export FAKEGPU_LAUNCH_HOST_NS=2000 FAKEGPU_KERNEL_NS="fill=100000,split_busy=10000"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/busy.json" run_clocked "$PROGS/queue_split" busy 10 || fail "queue_split busy failed"
expect_eq "$(kernel_field "$WORK/busy.json" split_busy timed)" 10 "busy: timed launches"
expect_eq "$(kernel_field "$WORK/busy.json" split_busy launch_host_ns_med)" 2000 "busy: launch call host time, median"
expect_eq "$(kernel_field "$WORK/busy.json" split_busy launch_host_ns_p95)" 2000 "busy: launch call host time, p95"
expect_eq "$(kernel_field "$WORK/busy.json" split_busy queue_ns_med)" "$(hist_rep 132000)" "busy: queue time, median"
expect_eq "$(kernel_field "$WORK/busy.json" split_busy queue_ns_p95)" 172000 "busy: queue time, p95"
expect_eq "$(kernel_field "$WORK/busy.json" fill queue_ns_med)" 0 "busy: the fill kernel found its stream idle (read as queued at once)"

# Timed launches only: with KPROF_SAMPLE=3 launches 0, 3, 6 and 9 are timed (queues 100, 124, 148, 172 us).
KPROF_SAMPLE=3 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/sampled.json" run_clocked "$PROGS/queue_split" busy 10 || fail "queue_split busy (sampled) failed"
expect_eq "$(kernel_field "$WORK/sampled.json" split_busy timed)" 4 "sampled: timed launches"
expect_eq "$(kernel_field "$WORK/sampled.json" split_busy queue_ns_med)" "$(hist_rep 124000)" "sampled: queue time, median of the timed launches"
expect_eq "$(kernel_field "$WORK/sampled.json" split_busy queue_ns_p95)" 172000 "sampled: queue time, p95 of the timed launches"

# Idle: each 5 us launch of 3 us is waited for, so it starts when its call returns: queue time 3 us.  The
# GPU clock runs 100 ppm fast, and the program sleeps 1.5 s (virtual) between two rounds of launches: the
# GPU timeline chained from reference to reference is 150 us off the host clock by then, and only the
# reference events' host anchors keep the queue time right (within 100 ppm of the few us since the
# reference: a few ns).
export FAKEGPU_LAUNCH_HOST_NS=3000 FAKEGPU_KERNEL_NS="split_idle=5000" FAKEGPU_CLOCK_DRIFT_PPM=100 FAKEGPU_EVENT_PENDING_QUERIES=0
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/idle.json" run_clocked "$PROGS/queue_split" idle 4 || fail "queue_split idle failed"
expect_eq "$(kernel_field "$WORK/idle.json" split_idle timed)" 8 "idle: timed launches"
expect_eq "$(kernel_field "$WORK/idle.json" split_idle launch_host_ns_med)" 3000 "idle: launch call host time, median"
expect_eq "$(kernel_field "$WORK/idle.json" split_idle launch_host_ns_p95)" 3000 "idle: launch call host time, p95"
for f in queue_ns_med queue_ns_p95; do
    q=$(kernel_field "$WORK/idle.json" split_idle $f)
    [ "$q" -ge 3000 ] && [ "$q" -le 3010 ] || fail "idle: $f is $q ns, expected 3000 to 3010 (GPU clock drift not re-anchored?)"
    pass "idle: $f $q ns"
done

# libkprof places its reference events on the host clock between the return of their record call (the
# GPU cannot stamp an event before it has it) and the moment a query first sees them complete (4 to 5 us
# later on an H200), taking the early end, which CUPTI's kernel starts confirmed there (an idle launch's
# queue time 8.2 us against CUPTI's 8.2; 13.0 from the late end, 2.1 from the first record call's
# midpoint, which its 10-15 us of host time put early).  Here a record call takes 2 us and a stamp is
# seen 2 us late (less than a launch call's 3 us, so that the launches still find their stream idle): the
# queue time stays 3 us (2 us from the late end, 2 from the first record's midpoint).
FAKEGPU_EVENT_RECORD_HOST_NS=2000 FAKEGPU_EVENT_SEEN_NS=2000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/lat.json" KPROF_LOG=debug \
    run_clocked "$PROGS/queue_split" idle 4 2>"$WORK/lat.err" || fail "queue_split idle (record time, sighting) failed"
expect_grep "the GPU's clock anchored within 2\\.00 us \\(the GPU stamps an event 2\\.00 us after its record call starts" \
    "$WORK/lat.err" "the anchor's bracket and the record's time measured"
for f in queue_ns_med queue_ns_p95; do
    q=$(kernel_field "$WORK/lat.json" split_idle $f)
    [ "$q" -ge 3000 ] && [ "$q" -le 3010 ] || fail "record time and sighting: $f is $q ns, expected 3000 to 3010"
    pass "record time and sighting: $f $q ns"
done

# Every format has the columns; an untimed kernel has none (null, empty, "-").
export FAKEGPU_EVENT_PENDING_QUERIES=1
unset FAKEGPU_CLOCK_DRIFT_PPM
export FAKEGPU_LAUNCH_HOST_NS=2000 FAKEGPU_KERNEL_NS="fill=100000,split_busy=10000"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/busy" run_clocked "$PROGS/queue_split" busy 10 || fail "queue_split busy (csv) failed"
head -1 "$WORK/busy.kernels.csv" | grep -q ',launch_host_ns_med,launch_host_ns_p95,queue_ns_med,queue_ns_p95$' ||
    fail "CSV kernels header lacks the split columns: $(head -1 "$WORK/busy.kernels.csv")"
grep '^[^,]*,[^,]*,10,.*split_busy' "$WORK/busy.kernels.csv" | grep -q ",2000,2000,$(hist_rep 132000),172000\$" ||
    fail "CSV split_busy row: $(grep split_busy "$WORK/busy.kernels.csv")"
pass "CSV: the split columns, last"
KPROF_OUTPUT="$WORK/busy.txt" run_clocked "$PROGS/queue_split" busy 10 || fail "queue_split busy (text) failed"
grep -q 'Host med (us) *Host p95 (us) *Queue med (us) *Queue p95 (us)  Kernel' "$WORK/busy.txt" || fail "text kernels header lacks the split columns"
grep -q ' 2\.000  *2\.000  *132\.096  *172\.000  split_busy' "$WORK/busy.txt" || fail "text split_busy row: $(grep split_busy "$WORK/busy.txt")"
pass "text: the split columns"
KPROF_EXCLUDE=fill KPROF_FORMAT=json KPROF_OUTPUT="$WORK/excluded.json" run_clocked "$PROGS/queue_split" busy 2 || fail "queue_split busy (excluded) failed"
expect_eq "$(jq -r '[.kernels[] | select(.name == "fill")] | length' "$WORK/excluded.json")" 0 "an excluded kernel has no row"
# kprof report renders the saved split as the library does.
"$top_builddir/tools/kprof-report" -f text "$WORK/busy.json" >"$WORK/reread.txt" 2>"$WORK/reread.err" || fail "kprof report failed: $(cat "$WORK/reread.err")"
grep -q ' 2\.000  *2\.000  *132\.096  *172\.000  split_busy' "$WORK/reread.txt" || fail "kprof report: split_busy row: $(grep split_busy "$WORK/reread.txt")"
pass "kprof report renders the split"
