#!/bin/sh
# On an idle stream the GPU stamps a start event at once, and the kernel arrives a launch latency later
# (FAKEGPU_LAUNCH_LATENCY_NS on the fake); libkprof holds the stream (its kprof_hold kernel spinning on a
# word of pinned memory) until the start event, the kernel and the stop event are queued, so the pair
# holds only the hand-off calibrated behind that hold (a kernel's, "kernel" in FAKEGPU_HANDOFF_NS; never a
# cuStreamWaitValue32, "hold" there, which has no timeout): every launch reads its kernel's length exactly.  Without holds (KPROF_HOLD=0) the
# latency is estimated from the host clock, and no launch comes out exact.  A launch that fails releases
# its hold (the fake aborts a synchronize that would wait for ever on a real GPU).  The legacy default
# stream is held also once a blocking stream (which waits for it) has been timed: by ordered launches.  A stream that stays busy
# is not held (a hold costs the GPU a read of host memory), even behind an operation libkprof does not time.
. "${top_srcdir:-..}/tests/lib.sh"
# Every launch due a hold gets one (KPROF_HOLD=1); the default holds a sample of them
# (sampled-holds-learn-each-shapes-offset.sh).
export KPROF_HOLD=1
need_jq
export FAKEGPU_LAUNCH_LATENCY_NS=7000 FAKEGPU_HANDOFF_NS="kernel=700,hold=300" FAKEGPU_KERNEL_NS="idle_k=3000"
FAKEGPU_REPORT_HOLDS=1 FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" \
    run_kprof "$PROGS/preds" idle >"$WORK/out" 2>"$WORK/err" ||
    fail "preds idle failed (a hold left in place?): $(cat "$WORK/out" "$WORK/err")"
# A hold never released in time (the app's launch itself waiting for the GPU behind it) stalls every
# stream that shares its hardware queue until kprof_hold gives up: 20 ms read one of 240 pairs of
# tests/gpu/accuracy/pipeline_8threads as 20.7 ms on an H200, so the timeout is 1 ms.
expect_grep '^fakegpu: longest kprof_hold timeout: 1000000 ns$' "$WORK/err" "a hold gives up after 1 ms"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_no_grep 'kprof_hold' "$WORK/truth" "libkprof's hold kernel is not counted as the app's"
expect_eq "$(kernel_field "$WORK/r.json" idle_k calls)" 11 "idle_k: 11 launches"
expect_eq "$(kernel_field "$WORK/r.json" idle_k min_ns)-$(kernel_field "$WORK/r.json" idle_k max_ns)" 3000-3000 \
    "idle_k: every launch held reads its own length"
expect_eq "$(kernel_field "$WORK/r.json" idle_k total_ns)" 33000 "idle_k: total of 11 launches"
expect_eq "$(jq -c '.calibration[0] | [.holds, (.handoff_ns.held | round), (.handoff_ns.held_kernel | round)]' "$WORK/r.json")" \
    '[true,700,700]' "the calibration measured the hand-off behind each kind of hold (a kernel's; no wait)"
expect_eq "$(jq -c '[.traceEvents[] | select(.name == "idle_k") | [.args.after, .args.taken_off_ns]] | unique' "$WORK/t.json")" \
    '[["held",700],["held_kernel",700]]' "the trace says which hold each launch had and what was taken off"
# (No assertion on holds_overdue here: it counts host time, and a loaded machine or a sanitizer build may
# take over 1 ms for a launch; the 5 ms launches below are counted for certain.)
# A launch call that outlasts its hold's timeout (here each launch of idle_k sleeps 5 ms before queuing its
# kernel; on a GPU every stream sharing the hold's hardware queue waits meanwhile, up to 1 ms) is counted,
# and the text report says what it may have cost.
FAKEGPU_LAUNCH_SLEEP_US="idle_k=5000" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/slow.json" run_kprof "$PROGS/preds" idle \
    >"$WORK/out" 2>"$WORK/err" || fail "preds idle with 5 ms launches failed: $(cat "$WORK/out" "$WORK/err")"
expect_eq "$(kernel_field "$WORK/slow.json" idle_k calls)" 11 "slow launches: all counted"
expect_eq "$(jqr '.events.held + .events.held_kernel' "$WORK/slow.json")-$(jqr '.events.holds_overdue' "$WORK/slow.json")" \
    11-11 "slow launches: every hold outlasted its timeout"
FAKEGPU_LAUNCH_SLEEP_US="idle_k=5000" KPROF_OUTPUT="$WORK/slow.txt" run_kprof "$PROGS/preds" idle >/dev/null 2>&1
expect_grep '^Held longer than kprof_hold waits \(1 ms\) 11 \(kernels on other streams may read up to that much longer\)' \
    "$WORK/slow.txt" "the text report says so"
# Without holds the launch latency is estimated from the host clock: no launch reads 3 us exactly (the
# test above fails without them).
KPROF_HOLD=0 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/off.json" run_kprof "$PROGS/preds" idle >/dev/null ||
    fail "preds idle failed with KPROF_HOLD=0"
[ "$(kernel_field "$WORK/off.json" idle_k total_ns)" != 33000 ] || fail "KPROF_HOLD=0: idle_k exact all the same"
pass "KPROF_HOLD=0: idle_k keeps an estimate of the launch latency"
expect_eq "$(jqr '.calibration[0].holds' "$WORK/off.json")" false "KPROF_HOLD=0: the report says no holds"
KPROF_HOLD=0 KPROF_OUTPUT="$WORK/off.txt" run_kprof "$PROGS/preds" idle >/dev/null
expect_grep 'streams not held \(KPROF_HOLD\)' "$WORK/off.txt" "the text report says so too"
# The legacy default stream: its 10 launches held (the first, the stream's first timed launch, by
# libkprof's kernel), the 5 after a blocking stream was timed too: they are then ordered with the blocking
# streams' launches (legacy-and-blocking-streams-ordered.sh), so no other thread's launch on a blocking
# stream comes between a hold and its release; the blocking stream's launch held (its first, by the kernel).
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/legacy.json" run_kprof "$PROGS/preds" legacy >/dev/null || fail "preds legacy failed"
expect_eq "$(jq -c '[.events.held, .events.held_kernel]' "$WORK/legacy.json")" '[9,2]' \
    "legacy stream held, also after a blocking stream is timed"
expect_eq "$(kernel_field "$WORK/legacy.json" blocking_k min_ns)" 1000 "blocking_k: held, its own length"
expect_eq "$(kernel_field "$WORK/legacy.json" legacy_k min_ns)-$(kernel_field "$WORK/legacy.json" legacy_k max_ns)" \
    1000-1000 "legacy_k: every launch held reads its own length"
# Busy: every launch behind the app's event record, the stream's work still pending (as libkprof's queries
# see it): only the stream's first launch is held (by libkprof's kernel: nothing known of what came before).
FAKEGPU_EVENT_PENDING_QUERIES=1000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/marks.json" run_kprof "$PROGS/preds" marks \
    >/dev/null || fail "preds marks failed"
expect_eq "$(jq -c '[.events.held, .events.held_kernel, .events.one_event]' "$WORK/marks.json")" '[0,1,0]' \
    "a stream that stays busy is not held"
expect_eq "$(kernel_field "$WORK/marks.json" mark_k total_ns)" 10000 "mark_k: 10 launches of 1 us"
