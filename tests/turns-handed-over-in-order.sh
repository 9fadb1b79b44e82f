#!/bin/sh
# A stream's turn and a context's order lock (src/timing/turnlock.c) on their own
# (tests/progs/turnlock_test.c).  They were glibc mutexes: a thread that gave one back and asked again at
# once took it again before the woken waiter ran, and a waiter could lose that race for its whole 200 ms
# (the CI's AddressSanitizer build: one launch of shared_stream copyblocking waited out 200 ms for the
# order lock, then went on without it).  The mutex form fails "order" in its first rounds.  Now a caller
# that has waited 1 ms draws a ticket, and the lock goes to the tickets in order; others may take a free
# lock out of turn only while no ticket is out (a strict queue cost a wake-up at each hand-over: 8
# threads, 3000 each, 6.4 s against 0.1 s).
. "${top_srcdir:-..}/tests/lib.sh"
"$PROGS/turnlock_test" >"$WORK/out" 2>&1 || fail "turnlock_test: $(cat "$WORK/out")"
for part in order giveup crowd reset; do
    expect_grep "^ok: $part:" "$WORK/out" "turnlock_test $part"
done
