/* turnlock.h: a lock with a deadline that no caller waits for long while others take it again and again.
 *
 * A stream's turn (turns.c) and a context's order lock (order.c) were glibc mutexes, which are not fair:
 * a thread that gives one back and asks again at once, as a launch loop does, takes it again before a
 * waiter woken by the unlock has run.  A waiter could lose that race for its
 * whole 200 ms deadline (the CI's AddressSanitizer build, 3 threads launching and one copying on a shared
 * blocking stream 300 times each), and then went on without the lock: 200 ms taken from the app, and a
 * pair open to other threads' work.
 *
 * A strict queue would cost a sleeping waiter's wake-up at every hand-over (8 threads taking one in turn
 * on a 2-CPU machine: about 250 us a hand-over, against 4 us for the mutex), so a caller may still take a
 * free lock out of turn, until some caller has waited KPROF_TURNLOCK_STARVE_MS for it: that one draws a
 * ticket, and from then on the lock goes to the tickets in the order drawn, nobody else taking it until
 * no ticket is left (as Go's sync.Mutex turns to its starvation mode).  A ticket whose caller's deadline
 * passes is given up, and the lock passes it over.
 *
 * All zero bytes is a free turnlock (glibc's mutexes and condition variables are all zero bytes when
 * initialised), so one in calloc'ed or memset memory needs no initialisation; kprof_turnlock_reset makes
 * one free again in a forked child, where the parent's other threads are gone.  Thread-safe. */
#ifndef KPROF_TURNLOCK_H
#define KPROF_TURNLOCK_H

#include <pthread.h>
#include <time.h>

/* How long a caller waits for the lock, taken by others in turn, before it draws a ticket (ms). */
#define KPROF_TURNLOCK_STARVE_MS 1
/* Tickets given up and not yet passed over that a turnlock remembers; a caller whose deadline passes while
 * as many are remembered waits on (never seen: as many threads would each have waited out a deadline at
 * once). */
#define KPROF_TURNLOCK_GIVEN_UP 32

struct kprof_turnlock {
    pthread_mutex_t m;     /* guards the fields below (their atomic reads aside) */
    pthread_cond_t c;      /* broadcast when the lock is given back while callers sleep on it */
    unsigned long next;    /* the next ticket to draw */
    unsigned long serving; /* while tickets are out: the one the lock goes to next */
    int held;              /* 1 while someone holds it */
    unsigned waiting;      /* callers holding a ticket */
    unsigned sleeping;     /* callers asleep on c, with a ticket or not */
    unsigned ngiven_up;
    unsigned long given_up[KPROF_TURNLOCK_GIVEN_UP]; /* tickets whose callers stopped waiting */
};

/* Takes l: at once when it is free and no caller holds a ticket; else asleep until it is, for
 * KPROF_TURNLOCK_STARVE_MS at most, then with a ticket, once every ticket drawn before has had it (or
 * been given up).  Returns 1 when taken, 0 when the CLOCK_REALTIME deadline `until` (kprof_deadline_ms;
 * NULL: none) passed first: the caller goes on without it, and l passes its ticket over. */
int kprof_turnlock_take(struct kprof_turnlock *l, const struct timespec *until);

/* Gives l back (its holder only): to the oldest ticket not given up, if any; else to whoever takes it
 * first. */
void kprof_turnlock_give(struct kprof_turnlock *l);

/* Makes l free with nobody waiting: in a forked child only (the parent's other threads, which may have
 * held it or waited on it, do not exist there). */
void kprof_turnlock_reset(struct kprof_turnlock *l);

#endif
