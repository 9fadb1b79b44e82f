#!/bin/sh
# Under KPROF_SAMPLE a timed launch on a busy stream starts at its stream's last stop (one event, as
# every-launch timing does) until KPROF_SAMPLE first leaves a launch untimed; from then on none does, so
# that no pair holds an untimed launch's kernel.  KPROF_SAMPLE=auto with every kernel inside its warm-up
# (all timed) recorded two events a launch: on an H100 a PyTorch step cost 1.19x under auto against 1.11x
# with every launch timed (events.one_event 0 of 483 against 385).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS='longk=100000,skipme=100000,default=1000' FAKEGPU_EVENT_PENDING_QUERIES=1000
for s in auto 2; do
    r=$WORK/s$s.json
    KPROF_SAMPLE=$s KPROF_EXCLUDE=skipme KPROF_FORMAT=json KPROF_OUTPUT="$r" run_kprof "$PROGS/chain" >"$WORK/out" ||
        fail "chain failed"
    expect_grep '^chain: ok$' "$WORK/out" "KPROF_SAMPLE=$s: the program ran"
    expect_eq "$(kernel_field "$r" busy calls)" 26 "KPROF_SAMPLE=$s: busy, every launch counted"
    expect_eq "$(kernel_field "$r" busy max_ns)" 1000 "KPROF_SAMPLE=$s: busy, each timed launch its own 1 us"
    for k in after_wait after_legacy legacy_after after_skip after_pause after_legacy_record; do
        expect_eq "$(kernel_field "$r" $k max_ns)" 1000 "KPROF_SAMPLE=$s: $k, its own 1 us"
    done
done
expect_eq "$(kernel_field "$WORK/sauto.json" busy timed)" 26 "auto: every busy launch timed (warm-up)"
n=$(jqr '.events.one_event' "$WORK/sauto.json")
[ "$n" -ge 19 ] || fail "auto: only $n launches timed with one event"
pass "auto, every launch in its warm-up: $n launches timed with one event (19 of the 20 back-to-back at least)"
expect_eq "$(kernel_field "$WORK/s2.json" busy timed)" 13 "KPROF_SAMPLE=2: every other busy launch timed"
expect_eq "$(jqr '.events.one_event' "$WORK/s2.json")" 0 "KPROF_SAMPLE=2: none started at the last stop (an untimed launch came first)"
