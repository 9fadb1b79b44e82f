#!/bin/sh
# A thread's kernel caches (tls_sets.h: two blocks of 6 KiB, taken at its first launch) are given back at its
# exit, for the next thread to take.  Found by a helper set to break their first form (heap blocks freed at
# thread exit): an app's thread-specific key whose destructor launches and sets itself again runs after
# libkprof's in each of glibc's destructor rounds, and the last round's launch made the blocks anew with
# nothing left to free them: 10,000 such threads one after another peaked at 135 MB of resident memory
# (15 MB before the caches moved to the heap); and a fork child, whose parent's other threads held blocks,
# reported them as leaked in a sanitizer build (its exit status 1).  Now a thread that has given its blocks
# back gets none again (its later launches find their kernels without the cache), the blocks are never
# freed (listed, so reachable), and every launch is counted.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
threads=10000 rounds=16 # the destructor set again in every one of glibc's 4 rounds
[ -z "${SAN_PRELOAD:-}" ] || threads=1000 # a sanitizer build's threads are slow, and its memory its own
case ${SAN_PRELOAD:-} in
*tsan*) rounds=2 ;; # ThreadSanitizer's runtime crashes when a destructor runs in the last round, libkprof or not
esac
(export KPROF_FORMAT=json KPROF_OUTPUT="$WORK/rearm.json" && run_kprof "$PROGS/exit_launches" rearm $threads $rounds) \
    >"$WORK/out" 2>&1 || fail "exit_launches rearm failed: $(cat "$WORK/out")"
# Each thread: one launch, then one in each destructor round it runs in (4 at most); and main's first.
per=$((rounds < 4 ? rounds + 1 : 5))
expect_eq "$(jqr '.kernels[0].calls' "$WORK/rearm.json")" $((threads * per + 1)) "every launch counted, those at thread exit too"
if [ -z "${SAN_PRELOAD:-}" ]; then
    hwm=$(sed -n 's/^hwm_kib=//p' "$WORK/out")
    [ -n "$hwm" ] && [ "$hwm" -lt 60000 ] ||
        fail "peak resident memory $hwm KiB after $threads threads, expected under 60000 (135548 with the caches made anew)"
    pass "peak resident memory $hwm KiB after $threads threads"
fi
(export KPROF_OUTPUT="$WORK/fork.txt" && run_kprof "$PROGS/exit_launches" fork) >"$WORK/out" 2>&1 ||
    fail "exit_launches fork failed: $(cat "$WORK/out")"
expect_eq "$(sed -n 's/^child_exit=//p' "$WORK/out")" 0 "a fork child exits as it chose (no leak reported in a sanitizer build)"
