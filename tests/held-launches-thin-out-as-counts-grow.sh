#!/bin/sh
# KPROF_HOLD=8 draws 1 in 8 launches of a kernel and launch shape for a hold only for the shape's first
# 4096 launches (512 x 8); from then on the rate halves each time the count doubles (hold.h), so a long
# run holds some hundreds more launches, not one in eight (a hold costs a kernel launch of host time: on
# an H200's 1-stream empty loop, 25 000 holds in 200 000 launches).  Each drawn launch stands for the
# launches of its rate, and the held launches' mean weighs it so: a kernel whose length changes over the
# run (2 us, then 4 us from its 20 000th launch) is read within a few % (the draw's chance), where equal
# weights read it 21% short (the early, densely drawn launches would dominate the references' mean).
# On the fake GPU with the virtual host clock, every launch on an idle stream arriving 7 us late.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_LAUNCH_HOST_NS=1500 FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_LATENCY_NS=7000 \
    FAKEGPU_KERNEL_NS="kernel_a=2000,kernel_b=3000"
totals() { jq -c '[.kernels[] | [.name, .calls, .total_ns]] | sort' "$1"; }
KPROF_SEED=7 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/thin.json" run_clocked "$PROGS/many_launches" 40000 \
    >"$WORK/out" 2>&1 || fail "many_launches failed: $(cat "$WORK/out")"
expect_eq "$(totals "$WORK/thin.json")" '[["kernel_a(float*)",40000,80000000],["kernel_b(float*)",4000,12000000]]' \
    "40000 and 4000 launches, each read as its kernel's length"
# kernel_a: its first 8, about 511 of its next 4088, then 256 each doubling to 32768 and 56 of the last
# 7232 (1343); kernel_b's 4000: 8 and about 499 (1850 in all; 5500 without the thinning).  A launch whose
# stream's last pair the harvester has not read yet is drawn as behind a short backlog, with counts of its
# own, so a loaded machine holds more: 2325 in a parallel make check (kernel_a's launches split evenly
# between the two situations would hold about 2240, kernel_b's about 500).
held=$(jqr '.events.held + .events.held_kernel' "$WORK/thin.json")
[ "$held" -ge 1500 ] && [ "$held" -le 3000 ] || fail "$held holds, expected about 1850 to 2750 (5500 at 1 in 8)"
pass "$held holds in 44000 launches"
FAKEGPU_KERNEL_LATER="kernel_a=20000:4000" KPROF_SEED=7 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/later.json" \
    run_clocked "$PROGS/many_launches" 40000 >"$WORK/out" 2>&1 || fail "many_launches failed: $(cat "$WORK/out")"
# (Seeds 1 to 5 and 7 read 117.5 to 121.9 ms.)
got=$(kernel_field "$WORK/later.json" kernel_a total_ns)
[ "$got" -ge 114000000 ] && [ "$got" -le 126000000 ] ||
    fail "a length that changes over the run: kernel_a $got ns, expected 120000000 within 5% (equal weights: 94.6 ms)"
pass "a length that changes over the run: kernel_a $got ns (120000000)"
