/* hold.c: placing and releasing holds, and the watchdog thread that releases overdue ones (hold.h). */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include "hold.h"
#include "clock.h"
#include "driver.h"
#include "fork.h"
#include "log.h"

/* The contexts' holds the watchdog looks at (pushed at the head, never removed: a context's holds live as
 * long as the process), and the thread's state. */
static struct kprof_hold *watched;
static pthread_mutex_t dog_lock = PTHREAD_MUTEX_INITIALIZER; /* starting the thread, and its sleep */
static pthread_cond_t dog_wake = PTHREAD_COND_INITIALIZER;
static int dog_state;  /* 0 not started, 1 running, -1 could not be started */
static int dog_asleep; /* waiting on dog_wake, no hold pending */
static long pending;   /* holds placed and not yet released */
static long overdue;   /* holds the watchdog released */

/* Takes slot's pending hold (placed at `placed`) from whoever else would release it; 1 if this caller
 * got it. */
static int claim(struct kprof_hold *h, unsigned slot, uint64_t placed)
{
    return placed && __atomic_compare_exchange_n(&h->placed_ns[slot], &placed, 0, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_RELAXED);
}

static void word_reach(struct kprof_hold *h, unsigned slot, uint32_t seq)
{
    uint32_t *w = &h->words[slot];
    uint32_t cur = __atomic_load_n(w, __ATOMIC_RELAXED);
    while ((int32_t)(cur - seq) < 0 &&
           !__atomic_compare_exchange_n(w, &cur, seq, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

int kprof_hold_place(struct kprof_hold *h, CUstream s, unsigned slot, uint32_t seq, int kernel)
{
    CUdeviceptr word = h->dwords + (CUdeviceptr)slot * sizeof(uint32_t);
    __atomic_store_n(&h->seq[slot], seq, __ATOMIC_RELAXED);
    __atomic_store_n(&h->placed_ns[slot], kprof_now_ns() | 1, __ATOMIC_RELEASE); /* never 0 */
    if (__atomic_fetch_add(&pending, 1, __ATOMIC_ACQ_REL) == 0 && __atomic_load_n(&dog_asleep, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&dog_lock);
        pthread_cond_signal(&dog_wake);
        pthread_mutex_unlock(&dog_lock);
    }
    CUresult r;
    if (!kernel && h->waits) {
        r = kprof_drv.cuStreamWaitValue32_v2(s, word, seq, CU_STREAM_WAIT_VALUE_GEQ);
    } else {
        unsigned long long w = (unsigned long long)word, timeout = KPROF_HOLD_TIMEOUT_NS;
        unsigned int n = seq;
        void *params[] = { &w, &n, &timeout };
        r = kprof_drv.cuLaunchKernel(h->gate, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
    }
    if (r != CUDA_SUCCESS) {
        kprof_hold_release(h, slot, seq);
        return 0;
    }
    return 1;
}

int kprof_hold_release(struct kprof_hold *h, unsigned slot, uint32_t seq)
{
    word_reach(h, slot, seq);
    uint64_t placed = __atomic_load_n(&h->placed_ns[slot], __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&h->seq[slot], __ATOMIC_RELAXED) != seq || !claim(h, slot, placed))
        return 0; /* the watchdog took it (or a later hold of the slot is pending: never so in practice) */
    __atomic_sub_fetch(&pending, 1, __ATOMIC_ACQ_REL);
    return 1;
}

/* One look at every watched slot: releases the holds placed before `before`. */
static void dog_pass(uint64_t before)
{
    for (struct kprof_hold *h = __atomic_load_n(&watched, __ATOMIC_ACQUIRE); h; h = h->next_watched)
        for (unsigned i = 0; i < KPROF_HOLD_SLOTS; i++) {
            uint64_t placed = __atomic_load_n(&h->placed_ns[i], __ATOMIC_ACQUIRE);
            if (!placed || placed >= before)
                continue;
            uint32_t seq = __atomic_load_n(&h->seq[i], __ATOMIC_RELAXED);
            if (claim(h, i, placed)) {
                word_reach(h, i, seq);
                __atomic_sub_fetch(&pending, 1, __ATOMIC_ACQ_REL);
                __atomic_add_fetch(&overdue, 1, __ATOMIC_RELAXED);
            }
        }
}

/* The watchdog: every KPROF_HOLD_OVERDUE_NS / 2 while holds are pending, asleep otherwise.  No driver
 * call, no lock but its own (hold.h). */
static void *dog_main(void *arg)
{
    (void)arg;
    for (;;) {
        if (__atomic_load_n(&pending, __ATOMIC_ACQUIRE) == 0) {
            pthread_mutex_lock(&dog_lock);
            __atomic_store_n(&dog_asleep, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&pending, __ATOMIC_SEQ_CST) == 0)
                pthread_cond_wait(&dog_wake, &dog_lock);
            __atomic_store_n(&dog_asleep, 0, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&dog_lock);
        }
        struct timespec nap = { 0, (long)(KPROF_HOLD_OVERDUE_NS / 2) };
        nanosleep(&nap, NULL);
        uint64_t now = kprof_now_ns();
        dog_pass(now > KPROF_HOLD_OVERDUE_NS ? now - KPROF_HOLD_OVERDUE_NS : 0);
    }
    return NULL;
}

/* Starts the watchdog thread once (signals blocked in it, as in the harvester); dog_lock held. */
static void dog_start(void)
{
    if (dog_state)
        return;
    pthread_t t;
    pthread_attr_t attr;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int ok = pthread_attr_init(&attr) == 0;
    if (ok) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        ok = pthread_create(&t, &attr, dog_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    dog_state = ok ? 1 : -1;
    if (!ok)
        kprof_warn("cannot start the holds' watchdog thread; streams are held by libkprof's kernel only");
}

void kprof_hold_watch(struct kprof_hold *h)
{
    pthread_mutex_lock(&dog_lock);
    dog_start();
    h->waits = dog_state == 1 && kprof_drv.cuStreamWaitValue32_v2 != NULL;
    h->next_watched = watched;
    __atomic_store_n(&watched, h, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&dog_lock);
}

long kprof_holds_overdue(void)
{
    return __atomic_load_n(&overdue, __ATOMIC_RELAXED);
}

/* fork(): the child has no watchdog thread and abandons the parent's contexts (timing/pool.c); its own
 * contexts' holds start a new one.  dog_lock is only ever held for a few instructions, never across a
 * driver call: not waited for. */
static int fork_prepare(void)
{
    return 1;
}

static void fork_parent(void)
{
}

static void fork_child(void)
{
    pthread_mutex_init(&dog_lock, NULL);
    pthread_cond_init(&dog_wake, NULL);
    watched = NULL;
    dog_state = dog_asleep = 0;
    pending = overdue = 0;
}

KPROF_FORK_MODULE(holds, 20, fork_prepare, fork_parent, fork_child)
