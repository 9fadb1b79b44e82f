#!/bin/sh
# A stream's turn and a context's order lock (src/timing/turnlock.c) on their own
# (tests/progs/turnlock_test.c).  They were glibc mutexes: a thread that gave one back and asked again at
# once took it again before the woken waiter ran, and a waiter could lose that race for its whole 200 ms
# (the CI's AddressSanitizer build: one launch of shared_stream copyblocking waited out 200 ms for the
# order lock, then went on without it).  The mutex form fails "order" in its first rounds.  Now a caller
# that has waited 1 ms joins the lock's queue, and the lock goes to the queue's head; others may take a free
# lock out of turn only while nobody is queued (a strict queue cost a wake-up at each hand-over: 8
# threads, 3000 each, 6.4 s against 0.1 s).  A break-it helper found the first form's array of 32
# given-up tickets written past by 33 waiters giving up at once (a SEGV in the harvester, or a context's
# launches 200 ms each from then on), and a 33rd ask in a row waiting with no deadline: "many", "repeat".
# A second helper: a thread cancelled while it waited left the lock's mutex locked (the holder's give hung
# for ever: condition waits are cancellation points), and a deadline out of range was asked again and
# again with the mutex held: "cancel" (hung before; the deadline is a timeout in ms now, the timespec
# computed inside, so a bad one has no way in).  A third: deadlines and the 1 ms on CLOCK_REALTIME, so a
# clock set back lengthened the waits by as much: "clockstep" (with the clock 10 s back, "order" took over a
# minute); then, read by a system call, a deadline read as 0 where a sandbox refused it: "nosyscall"; a waiter read that clock twice where once does:
# "onesyscall".
. "${top_srcdir:-..}/tests/lib.sh"
timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" "$PROGS/turnlock_test" >"$WORK/out" 2>&1 ||
    fail "turnlock_test (exit $?): $(cat "$WORK/out")"
for part in order giveup crowd reset many repeat cancel clockstep nosyscall onesyscall; do
    expect_grep "^ok: $part:" "$WORK/out" "turnlock_test $part"
done
