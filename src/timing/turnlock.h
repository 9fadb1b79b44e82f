/* turnlock.h: a lock with a deadline that no caller waits for long while others take it again and again.
 *
 * A stream's turn (turns.c) and a context's order lock (order.c) were glibc mutexes, which are not fair:
 * a thread that gives one back and asks again at once, as a launch loop does, takes it again before a
 * waiter woken by the unlock has run.  A waiter could lose that race for its whole 200 ms deadline (the
 * CI's AddressSanitizer build, 3 threads launching and one copying on a shared blocking stream 300 times
 * each), and then went on without the lock: 200 ms taken from the app, and a pair open to other threads'
 * work.
 *
 * A strict queue would cost a sleeping waiter's wake-up at every hand-over (8 threads taking one in turn
 * on a 2-CPU machine: about 250 us a hand-over, against 4 us for the mutex), so a caller may still take a
 * free lock out of turn, until some caller has waited KPROF_TURNLOCK_STARVE_MS for it: that one joins the
 * lock's queue of waiters, and from then on the lock goes to the queue's head, nobody else taking it until
 * the queue is empty (as Go's sync.Mutex turns to its starvation mode).  A waiter whose deadline passes
 * leaves the queue.  Each queued waiter sleeps on a condition of its own, woken when it comes to the head
 * of the queue and the lock is free.
 *
 * The waits are no cancellation points (as pthread_mutex_timedlock's).  Deadlines and the 1 ms are on the
 * kernel's CLOCK_MONOTONIC (kprof_wait_deadline_ms), read only once a caller has to wait: they were on
 * CLOCK_REALTIME, as the mutex's were, and a clock set back lengthened every wait by as much (a break-it
 * helper: a waiter outside the queue, never woken while others are queued, waited up to the whole 3 s
 * run; with the clock 10 s back, 200 hand-overs took over a minute).
 *
 * All zero bytes is a free turnlock (glibc's mutexes and condition variables are all zero bytes when
 * initialised), so one in calloc'ed or memset memory needs no initialisation; kprof_turnlock_reset makes
 * one free again in a forked child, where the parent's other threads are gone.  Thread-safe. */
#ifndef KPROF_TURNLOCK_H
#define KPROF_TURNLOCK_H

#include <pthread.h>
#include <time.h>

/* How long a caller waits for the lock, taken by others in turn, before it joins the queue (ms). */
#define KPROF_TURNLOCK_STARVE_MS 1

/* A queued waiter: on its caller's stack while it waits (kprof_turnlock_take). */
struct kprof_turnlock_waiter {
    struct kprof_turnlock_waiter *next, *prev;
    pthread_cond_t wake; /* signalled when it is the queue's head and the lock is free */
};

struct kprof_turnlock {
    pthread_mutex_t m;  /* guards the fields below */
    pthread_cond_t c;   /* signalled when the lock is given back while callers not in the queue sleep */
    int held;           /* 1 while someone holds it */
    unsigned sleeping;  /* callers not in the queue asleep on c */
    unsigned waiting;   /* callers in the queue */
    struct kprof_turnlock_waiter *head, *tail; /* the queue, oldest first */
};

/* Takes l: at once when it is free and nobody is queued; else asleep until it is, for
 * KPROF_TURNLOCK_STARVE_MS at most, then in l's queue until it is the head and l is free.  Returns 1 when
 * taken, 0 when `timeout_ms` milliseconds (negative: no limit) passed first: the caller goes on without
 * it, out of the queue. */
int kprof_turnlock_take(struct kprof_turnlock *l, long timeout_ms);

/* Gives l back (its holder only): to the head of the queue, if any; else to whoever takes it first. */
void kprof_turnlock_give(struct kprof_turnlock *l);

/* Makes l free with nobody waiting: in a forked child only (the parent's other threads, which may have
 * held it or waited on it, do not exist there). */
void kprof_turnlock_reset(struct kprof_turnlock *l);

#endif
