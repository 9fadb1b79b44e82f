/* turnlock.c: a lock with a deadline that no caller waits for long while others take it again and again
 * (turnlock.h). */
#include <errno.h>
#include <string.h>
#include "turnlock.h"

/* Whether `a` comes before `b`. */
static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Whether ticket `me` may take l now (l->m held). */
static int my_turn(const struct kprof_turnlock *l, unsigned long me)
{
    return !l->held && l->serving == me;
}

/* Waits on l's condition until `until` (NULL: no deadline), l->m held; the answer of the wait. */
static int sleep_on(struct kprof_turnlock *l, const struct timespec *until)
{
    l->sleeping++;
    int rc = until ? pthread_cond_timedwait(&l->c, &l->m, until) : pthread_cond_wait(&l->c, &l->m);
    l->sleeping--;
    return rc;
}

int kprof_turnlock_take(struct kprof_turnlock *l, const struct timespec *until)
{
    pthread_mutex_lock(&l->m);
    if (!l->held && l->waiting == 0) {
        l->held = 1;
        pthread_mutex_unlock(&l->m);
        return 1;
    }
    /* Out of turn while no caller holds a ticket, KPROF_TURNLOCK_STARVE_MS at most. */
    struct timespec starve;
    clock_gettime(CLOCK_REALTIME, &starve);
    starve.tv_nsec += KPROF_TURNLOCK_STARVE_MS * 1000000L;
    if (starve.tv_nsec >= 1000000000L) {
        starve.tv_sec++;
        starve.tv_nsec -= 1000000000L;
    }
    int last = until && before(until, &starve); /* the caller's deadline comes first */
    while (l->held || l->waiting > 0) {
        if (sleep_on(l, last ? until : &starve) == ETIMEDOUT && (l->held || l->waiting > 0)) {
            if (last) {
                pthread_mutex_unlock(&l->m);
                return 0;
            }
            goto ticket;
        }
    }
    l->held = 1;
    pthread_mutex_unlock(&l->m);
    return 1;
ticket:;
    /* With no ticket out, serving == next: the first ticket is served first. */
    unsigned long me = l->next++;
    l->waiting++;
    while (!my_turn(l, me)) {
        int can_give_up = until && l->ngiven_up < KPROF_TURNLOCK_GIVEN_UP;
        if (sleep_on(l, can_give_up ? until : NULL) == ETIMEDOUT && !my_turn(l, me) && can_give_up) {
            l->given_up[l->ngiven_up++] = me; /* passed over when its turn comes (kprof_turnlock_give) */
            l->waiting--;
            pthread_mutex_unlock(&l->m);
            return 0;
        }
    }
    l->held = 1;
    l->serving = me + 1;
    l->waiting--;
    pthread_mutex_unlock(&l->m);
    return 1;
}

void kprof_turnlock_give(struct kprof_turnlock *l)
{
    pthread_mutex_lock(&l->m);
    for (unsigned i = 0; i < l->ngiven_up;) { /* the given-up tickets that come next, in any order */
        if (l->given_up[i] == l->serving) {
            l->given_up[i] = l->given_up[--l->ngiven_up];
            l->serving++;
            i = 0;
        } else {
            i++;
        }
    }
    l->held = 0;
    if (l->sleeping)
        pthread_cond_broadcast(&l->c);
    pthread_mutex_unlock(&l->m);
}

void kprof_turnlock_reset(struct kprof_turnlock *l)
{
    memset(l, 0, sizeof *l);
}
