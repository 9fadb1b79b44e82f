/* turnlock.c: a lock with a deadline that no caller waits for long while others take it again and again
 * (turnlock.h). */
#include <errno.h>
#include <string.h>
#include "clock.h"
#include "turnlock.h"

/* Whether `a` comes before `b`. */
static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Waits on `cond` until `until` (kprof_wait_deadline_ms; NULL: no deadline), l->m held: 0 when woken (or
 * for no reason), else ETIMEDOUT, also for a deadline the wait refuses (EINVAL), which would otherwise be
 * asked again and again with l->m held. */
static int sleep_on(struct kprof_turnlock *l, pthread_cond_t *cond, const struct timespec *until)
{
    int rc = until ? pthread_cond_clockwait(cond, &l->m, CLOCK_MONOTONIC, until) : pthread_cond_wait(cond, &l->m);
    return rc == 0 ? 0 : ETIMEDOUT;
}

/* Takes w out of l's queue; l->m held. */
static void unqueue(struct kprof_turnlock *l, struct kprof_turnlock_waiter *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        l->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        l->tail = w->prev;
    l->waiting--;
}

/* Wakes whoever may take l now that it is free: the queue's head, else the callers asleep outside it (one
 * of them takes it, the others sleep again).  l->m held. */
static void wake_next(struct kprof_turnlock *l)
{
    if (l->head)
        pthread_cond_signal(&l->head->wake);
    else if (l->sleeping)
        pthread_cond_broadcast(&l->c);
}

/* The wait of kprof_turnlock_take once the lock was found taken (l->m held, released on return). */
static int take_slow(struct kprof_turnlock *l, long timeout_ms);

int kprof_turnlock_take(struct kprof_turnlock *l, long timeout_ms)
{
    pthread_mutex_lock(&l->m);
    if (!l->held && !l->head) {
        l->held = 1;
        pthread_mutex_unlock(&l->m);
        return 1;
    }
    /* Condition waits are cancellation points: a thread of the app cancelled while it waited would leave
     * l->m locked (and its queue node on a stack that is gone), and every other caller waiting for ever (a
     * break-it helper: the thread that held the stream's turn hung in its give).  The mutex this replaced
     * was no cancellation point. */
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    int r = take_slow(l, timeout_ms);
    pthread_setcancelstate(cancel, NULL);
    return r;
}

static int take_slow(struct kprof_turnlock *l, long timeout_ms)
{
    /* Out of turn while nobody is queued, KPROF_TURNLOCK_STARVE_MS at most (both from one reading: each is
     * a system call). */
    struct timespec now = kprof_wait_deadline_ms(0);
    struct timespec starve = kprof_timespec_later(now, KPROF_TURNLOCK_STARVE_MS);
    struct timespec deadline = kprof_timespec_later(now, timeout_ms < 0 ? 0 : timeout_ms);
    const struct timespec *until = timeout_ms < 0 ? NULL : &deadline;
    int last = until && before(until, &starve); /* the caller's deadline comes first */
    while (l->held || l->head) {
        l->sleeping++;
        int rc = sleep_on(l, &l->c, last ? until : &starve);
        l->sleeping--;
        if (rc == ETIMEDOUT && (l->held || l->head)) {
            if (last) {
                pthread_mutex_unlock(&l->m);
                return 0;
            }
            goto queue;
        }
    }
    l->held = 1;
    pthread_mutex_unlock(&l->m);
    return 1;
queue:;
    struct kprof_turnlock_waiter me = { NULL, l->tail, PTHREAD_COND_INITIALIZER };
    if (l->tail)
        l->tail->next = &me;
    else
        l->head = &me;
    l->tail = &me;
    l->waiting++;
    while (l->held || l->head != &me) {
        if (sleep_on(l, &me.wake, until) == ETIMEDOUT && (l->held || l->head != &me)) {
            unqueue(l, &me); /* held, or not the head: nobody to wake for it */
            pthread_mutex_unlock(&l->m);
            pthread_cond_destroy(&me.wake);
            return 0;
        }
    }
    unqueue(l, &me);
    l->held = 1;
    pthread_mutex_unlock(&l->m);
    pthread_cond_destroy(&me.wake);
    return 1;
}

void kprof_turnlock_give(struct kprof_turnlock *l)
{
    pthread_mutex_lock(&l->m);
    l->held = 0;
    wake_next(l);
    pthread_mutex_unlock(&l->m);
}

void kprof_turnlock_reset(struct kprof_turnlock *l)
{
    memset(l, 0, sizeof *l);
}
