#!/bin/sh
# KPROF_SAMPLE=N (and auto, below) with several threads launching one kernel: each launching thread counts
# in a counter of its own (up to 8 threads; the ninth shares the first's), so no atomic add is shared
# between them (a shared one cost each launch about 0.1 us with 4 threads on an H100).  The kernel's first
# launch is timed (First), then numbers N, 2N... of each counter: with T threads of L launches each,
# 1 + T x floor((L - 1) / N) timed (a counter's number 0 is not, or every thread that comes and goes would
# time its first: a detached thread's timed launch at exit met the fake's teardown, see
# report-while-detached-threads-launch.sh); every launch is still counted, and the total is estimated from
# the timed ones.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="kernel_a=2000,kernel_b=3000"
for t in 1 2 9 17; do
    KPROF_SAMPLE=16 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s$t.json" run_kprof "$PROGS/many_launches" 1000 $t \
        >/dev/null 2>"$WORK/err" || fail "many_launches with $t threads failed: $(cat "$WORK/err")"
    # kernel_a: 1000 launches a thread, floor(999 / 16) = 62 timed past the first; kernel_b 100, 6.  Nine
    # threads: eight counters, one of them with 2000 launches of kernel_a (124) and 200 of kernel_b (12).
    # Seventeen: one counter of three threads (3000 and 300 launches: 187 and 18), seven of two; threads
    # sharing a counter take its numbers in any order, and a launch numbered below the counter's next
    # multiple of N is left untimed without a division (kernel_sampling.h): the count stays exact.
    case $t in
    9) ta=$((1 + 7 * 62 + 124)) tb=$((1 + 7 * 6 + 12)) ;;
    17) ta=$((1 + 187 + 7 * 124)) tb=$((1 + 18 + 7 * 12)) ;;
    *) ta=$((1 + t * 62)) tb=$((1 + t * 6)) ;;
    esac
    expect_eq "$(jq -c '[.kernels[] | [.name, .calls, .timed, (.first_ns != null), .total_ns]] | sort' "$WORK/s$t.json")" \
        "[[\"kernel_a(float*)\",$((1000 * t)),$ta,true,$((2000 * 1000 * t))],[\"kernel_b(float*)\",$((100 * t)),$tb,true,$((3000 * 100 * t))]]" \
        "KPROF_SAMPLE=16, $t threads: calls, timed launches, First, estimated total"
done

# KPROF_SAMPLE=auto numbers each thread's launches of a kernel apart too (scaled by the threads counting it),
# and counts its untimed launches in the thread's shard: 4 threads of 1000 launches time about as many as
# one thread making 4000 (465 against 466 for kernel_a here when the threads keep pace; up to about 1.7
# times as many were the threads to run one after the other; numbering each thread's from 0, as a first
# try did, gave each thread a warm-up of its own: 1309).  Counts exact, totals exact for a kernel of one
# length.
auto() { # THREADS LAUNCHES_EACH: writes $WORK/a$1.json
    KPROF_SAMPLE=auto KPROF_SEED=7 KPROF_SAMPLE_BUDGET=1000000000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/a$1.json" \
        run_kprof "$PROGS/many_launches" $2 $1 >/dev/null 2>"$WORK/err" ||
        fail "many_launches with $1 threads failed: $(cat "$WORK/err")"
}
auto 1 4000
auto 4 1000
for t in 1 4; do
    expect_eq "$(jq -c '[.kernels[] | [.name, .calls, .total_ns, .total_ci95_ns]] | sort' "$WORK/a$t.json")" \
        '[["kernel_a(float*)",4000,8000000,0],["kernel_b(float*)",400,1200000,0]]' \
        "KPROF_SAMPLE=auto, $t threads: calls, estimated totals and intervals"
done
one=$(kernel_field "$WORK/a1.json" kernel_a timed) four=$(kernel_field "$WORK/a4.json" kernel_a timed)
expect_eq "$(jq -n "$one >= 100 and $four >= 100 and $four < 2 * $one")" true \
    "KPROF_SAMPLE=auto: kernel_a's timed launches, 4 threads ($four) under twice one thread's making them all ($one)"

# An untimed launch notes no launch shape (the kernel's is its last timed launch's), but one whose kernel
# has none yet does: fail_k's first launch (number 0, timed) failed and the next five went untimed under
# KPROF_SAMPLE=10, and the report gave grid and block [0,0,0] (a break-it helper).
KPROF_SAMPLE=10 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/fail.json" run_kprof "$PROGS/preds" failfirst >/dev/null ||
    fail "preds failfirst failed"
expect_eq "$(jq -c '[.kernels[] | [.name, .calls, .timed, .grid, .block]]' "$WORK/fail.json")" \
    '[["fail_k",5,0,[64,1,1],[128,1,1]]]' "KPROF_SAMPLE=10, first launch failed: calls, timed, shape of the launches made"
