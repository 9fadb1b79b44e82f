#!/bin/sh
# Host threads launching on one stream that they all share (tests/progs/shared_stream.c).  A pair's start,
# its kernel and its stop are three calls: another thread's launch queued between them lands inside the
# pair, which reads that kernel as its own (a break-it run on an H100: 8 threads alternating a long and a
# 1 us kernel on one non-blocking stream read the short one at up to 1.6 ms in 14 to 36 of 40 runs, in
# every mode).  Once a second thread times a call on a stream, libkprof queues each call's start, work and
# stop on it in one go (the stream's turn), and a launch left untimed by KPROF_SAMPLE takes the turn too.
# The fake's slow launches (FAKEGPU_LAUNCH_SLEEP_US) let the other thread's launch come while the first is
# inside its launch call.  On streams that synchronise with the legacy default stream the launches also hold
# their context's order lock (legacy-and-blocking-streams-ordered.sh): a break-it helper found calls that
# held a stream's turn waiting for that lock while its holder waited for them (200 ms each time: "a call
# waited 200 ms" in KPROF_LOG=info), and copies on a shared blocking stream landing inside launches' pairs.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="slow_tiny=1000,slow_big=1000000,big_k=100000,tiny_k=1000"

FAKEGPU_LAUNCH_SLEEP_US="slow=100000" FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/race.json" \
    run_kprof "$PROGS/shared_stream" race >"$WORK/race.out" 2>&1 || fail "shared_stream race failed: $(cat "$WORK/race.out")"
truth_matches "$WORK/race.json" "$WORK/truth"
for k in slow_tiny:1000 slow_big:1000000 big_k:100000 tiny_k:1000; do
    for f in min_ns max_ns; do
        expect_eq "$(kernel_field "$WORK/race.json" "${k%:*}" $f)" "${k#*:}" \
            "race: ${k%:*}'s $f (no pair holds the other thread's kernel)"
    done
done

# A thread's first call finds no current context and stays untimed; it takes its stream's turn all the same.
FAKEGPU_LAUNCH_SLEEP_US="slow=100000" FAKEGPU_TRUTH="$WORK/truth.first" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/first.json" \
    run_kprof "$PROGS/shared_stream" firstcopy >"$WORK/first.out" 2>&1 || fail "shared_stream firstcopy failed: $(cat "$WORK/first.out")"
truth_matches "$WORK/first.json" "$WORK/truth.first"
expect_eq "$(kernel_field "$WORK/first.json" slow_tiny min_ns),$(kernel_field "$WORK/first.json" slow_tiny max_ns)" \
    1000,1000 "firstcopy: a new thread's first call, a copy, not inside slow_tiny's pairs"

# The same for a thread's first call that is a launch KPROF_SAMPLE leaves untimed.
FAKEGPU_LAUNCH_SLEEP_US="slow=100000" KPROF_SAMPLE=4 KPROF_SEED=7 FAKEGPU_TRUTH="$WORK/truth.fu" KPROF_FORMAT=json \
    KPROF_OUTPUT="$WORK/fu.json" run_kprof "$PROGS/shared_stream" firstuntimed >"$WORK/fu.out" 2>&1 ||
    fail "shared_stream firstuntimed failed: $(cat "$WORK/fu.out")"
truth_matches "$WORK/fu.json" "$WORK/truth.fu"
expect_eq "$(kernel_field "$WORK/fu.json" slow_tiny min_ns),$(kernel_field "$WORK/fu.json" slow_tiny max_ns)" \
    1000,1000 "firstuntimed: a new thread's first call, an untimed launch, not inside slow_tiny's pairs"

for mode in every sample2 auto; do
    case $mode in
    every) smp=1 ;;
    sample2) smp=2 ;;
    auto) smp=auto ;;
    esac
    FAKEGPU_TRUTH="$WORK/truth.$mode" KPROF_SAMPLE=$smp KPROF_SEED=7 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$mode.json" \
        run_kprof "$PROGS/shared_stream" alternate >"$WORK/$mode.out" 2>&1 ||
        fail "shared_stream alternate ($mode) failed: $(cat "$WORK/$mode.out")"
    truth_matches "$WORK/$mode.json" "$WORK/truth.$mode"
    for k in big_k:100000 tiny_k:1000; do
        for f in min_ns max_ns; do
            expect_eq "$(kernel_field "$WORK/$mode.json" "${k%:*}" $f)" "${k#*:}" \
                "8 threads alternating, KPROF_SAMPLE=$smp: ${k%:*}'s $f"
        done
    done
done

for mode in newblocking copyblocking firstlaunch; do
    FAKEGPU_KERNEL_NS=tiny_k=1000 FAKEGPU_LAUNCH_SLEEP_US=tiny=50 KPROF_LOG=info FAKEGPU_TRUTH="$WORK/truth.$mode" \
        KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$mode.json" run_kprof "$PROGS/shared_stream" $mode >"$WORK/$mode.out" 2>&1 ||
        fail "shared_stream $mode failed: $(cat "$WORK/$mode.out")"
    truth_matches "$WORK/$mode.json" "$WORK/truth.$mode"
    # (copyblocking: 3 threads take the order lock 300 times each, for a 50 us launch call and the wait for
    # the copy thread's turn; while the lock was a glibc mutex, which is not fair, one launch in an
    # AddressSanitizer build of a parallel make check waited out its 200 ms for it: turnlock.c.)
    expect_no_grep "waited 200 ms" "$WORK/$mode.out" "$mode: no call waited out a turn or the order lock"
    expect_eq "$(kernel_field "$WORK/$mode.json" tiny_k min_ns),$(kernel_field "$WORK/$mode.json" tiny_k max_ns)" \
        1000,1000 "$mode: tiny_k's min and max"
done
expect_eq "$(jq -c '[.copies[] | .count, .min_ns, .max_ns]' "$WORK/copyblocking.json")" '[300,1048576,1048576]' \
    "copyblocking: no launch inside a copy's pair"
