#!/bin/sh
# One-event timing: a launch on a busy stream is timed from the stop event of the stream's last timed call
# (reported as events.one_event), and never when something else can come between them: a wait on another
# stream's event, the legacy default stream's implicit synchronisation (both ways), an untimed launch
# (KPROF_EXCLUDE), a launch while profiling is stopped, the app's own event record (which takes the GPU
# some time: FAKEGPU_EVENT_NS).  Each "after" kernel waits behind a 100 us kernel
# it must not be charged for.  KPROF_ONE_EVENT=0 gives the same times with two events per launch.
# Under KPROF_SAMPLE the same, until a launch is first left untimed, and after it no launch starts at the
# last stop (KPROF_SAMPLE=2: with chains left on a timed launch read the untimed one before it too, 2000 ns
# for 1000).  KPROF_SAMPLE=auto with every kernel in its warm-up (all timed) used to record two events a
# launch: on an H100 a PyTorch step cost 1.19x under auto against 1.11x with every launch timed
# (events.one_event 0 of 483 against 385).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS='longk=100000,skipme=100000,default=1000' FAKEGPU_EVENT_PENDING_QUERIES=1000
for mode in KPROF_ONE_EVENT=1 KPROF_HOLD=1 KPROF_ONE_EVENT=0 KPROF_SAMPLE=auto KPROF_SAMPLE=2; do
    r=$WORK/$mode.json
    (export "$mode"; KPROF_EXCLUDE=skipme KPROF_FORMAT=json KPROF_OUTPUT="$r" run_kprof "$PROGS/chain" >"$WORK/out") ||
        fail "chain failed ($mode)"
    expect_grep '^chain: ok$' "$WORK/out" "$mode: the program ran"
    timed=26; [ "$mode" = KPROF_SAMPLE=2 ] && timed=13
    expect_eq "$(kernel_field "$r" busy calls)" 26 "$mode: busy, every launch counted"
    expect_eq "$(kernel_field "$r" busy timed)" $timed "and $timed timed"
    expect_eq "$(kernel_field "$r" busy max_ns)" 1000 "busy: each exactly 1 us"
    expect_eq "$(kernel_field "$r" longk calls)" 4 "longk: the one launched while stopped not counted"
    expect_eq "$(kernel_field "$r" longk avg_ns)" 100000 "longk: 100 us"
    for k in after_wait after_legacy legacy_after after_skip after_pause after_legacy_record; do
        expect_eq "$(kernel_field "$r" $k max_ns)" 1000 "$k: its own 1 us, not the long kernel it waited for"
    done
    expect_eq "$(kernel_field "$r" skipme calls)" null "skipme: excluded"
done
# With no draws (every launch measured in full, KPROF_HOLD=1; auto) a kernel not yet timed counts as long
# enough to share behind; the default's drawn launches do not (below, from the trace).
for mode in KPROF_HOLD=1 KPROF_SAMPLE=auto; do
    n=$(jqr '.events.one_event' "$WORK/$mode.json")
    [ "$n" -ge 19 ] || fail "$mode: only $n launches timed with one event"
    pass "$mode: $n launches timed with one event (19 of the 20 back-to-back launches at least)"
done
expect_eq "$(jqr '.events.one_event' "$WORK/KPROF_SAMPLE=2.json")" 0 \
    "KPROF_SAMPLE=2: none (an untimed launch came before them)"
expect_eq "$(jqr '.events.one_event' "$WORK/KPROF_ONE_EVENT=0.json")" 0 "KPROF_ONE_EVENT=0: none"
# On the timeline the 20 back-to-back launches follow one another 1 us apart (the starts of those timed
# with one event are placed from the previous pair's stop, without a driver call).
KPROF_SEED=7 KPROF_EXCLUDE=skipme KPROF_TRACE="$WORK/trace.json" KPROF_OUTPUT=/dev/null run_kprof "$PROGS/chain" >/dev/null
gaps=$(jq -r '[.traceEvents[] | select(.ph == "X" and .name == "busy()")] | group_by(.tid) | max_by(length)
              | sort_by(.ts) | .[0:20]
              | [range(1; length) as $i | ((.[$i].ts - .[$i - 1].ts) * 1000 | round)] | unique | map(tostring) | join(",")' \
       "$WORK/trace.json")
expect_eq "$gaps" 1000 "back-to-back launches 1000 ns apart on the timeline"
# The default (KPROF_HOLD=8): a launch not drawn starts at the previous stop; one drawn as a reference (a
# shape's first launches, then 1 in 8) gets a start of its own and a hold while the lengths of the work
# ahead of it are unknown (busy's, here: the fake's events stay pending), since a reference read across
# a gap would teach that gap (timing.c, choose_lent).
afters=$(jq -c '[.traceEvents[] | select(.ph == "X" and .name == "busy()")] | group_by(.tid) | max_by(length)
                | sort_by(.ts) | .[1:20] | map(.args.after) | group_by(.) | map([.[0], length])' "$WORK/trace.json")
case $afters in
'[["held",'*'],["kernel (one event)",'*']]') pass "the default: the 19 after the first one event or held: $afters" ;;
*) fail "the default: the 19 launches after the first read $afters, expected held or one event" ;;
esac
n=$(echo "$afters" | jq '.[1][1]')
[ "$n" -ge 8 ] || fail "the default: only $n of the 19 started at the previous stop"
# The app's own event record between two launches: with records taking 500 ns of GPU time, every pair
# holds its own events' 500 ns, which the hand-off calibration measures and takes off (both modes alike),
# and never the app's record too.
for one in 1 0; do
    FAKEGPU_EVENT_NS=500 KPROF_ONE_EVENT=$one KPROF_FORMAT=json KPROF_OUTPUT="$WORK/rec$one.json" \
        run_kprof "$PROGS/chain" record >/dev/null || fail "chain record failed"
    expect_eq "$(kernel_field "$WORK/rec$one.json" after_record calls)" 5 "KPROF_ONE_EVENT=$one: after_record counted"
    expect_eq "$(kernel_field "$WORK/rec$one.json" after_record max_ns)" 1000 \
        "after_record: its own 1 us, not its events' 500 ns nor the app's record before it"
done
# A thread whose first call launches on a busy stream (untimed: no context yet on that thread); a stream
# destroyed while busy whose handle a new stream gets; a thread id reused after a thread that used its
# per-thread default stream exited.
for case in thread:after_thread tid:after_tid reuse:after_reuse; do
    KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$case.json" run_kprof "$PROGS/chain" "${case%%:*}" >"$WORK/$case.out" ||
        fail "chain ${case%%:*} failed"
    expect_eq "$(kernel_field "$WORK/$case.json" "${case#*:}" max_ns)" 1000 "${case%%:*}: ${case#*:} is its own 1 us"
done
case $SAN_PRELOAD in
*asan*) echo "note: under AddressSanitizer freed memory is quarantined, so no stream handle comes back" ;;
*) expect_grep 'handle reused' "$WORK/reuse:after_reuse.out" "(the fake did give the new stream a destroyed one's handle)" ;;
esac
# A graph launch KPROF_SAMPLE=N leaves untimed ends the chains too: a one-node graph of a 1 ms kernel
# launched twice (the second untimed under KPROF_SAMPLE=4), then a 10 us kernel; it read 1010 us, from the
# first graph launch's stop (a break-it helper).
FAKEGPU_KERNEL_NS="graph_k=1000000,short_k=10000" KPROF_SAMPLE=4 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/graph.json" \
    run_kprof "$PROGS/preds" graphthen >/dev/null || fail "preds graphthen failed"
expect_eq "$(kernel_field "$WORK/graph.json" short_k first_ns)" 10000 "KPROF_SAMPLE=4: short_k its own 10 us after an untimed graph launch"
