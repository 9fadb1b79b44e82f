/* pool.c: the timing layer's state, per-context event pools (events, private stream, first reference and
 * calibration), context ending, counters and fork; and the events the queues hold outside their rings
 * (a kept stop) and their retirement, so that the launch path (timing.c) and the harvester (harvest.c)
 * both come here for events and neither to the other's file. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda_api.h"
#include "calibrate.h"
#include "log.h"
#include "kprof_config.h"
#include "resolve.h"
#include "clock.h"
#include "call.h"
#include "contexts.h"
#include "module.h"
#include "timing.h"
#include "timing_internal.h"

/* kprof_ev.lock is glibc's adaptive mutex where there is one: a launch that finds it held by the harvester's
 * short queue update spins a while before it sleeps, so neither side pays a futex sleep and wake.  On
 * H100s, `tests/gpu/run-bench.sh` A/B rounds against the plain mutex (thirty-ninth session, three hosts,
 * docs/performance.md): 200k launches every one timed, 4 threads -0.21, -0.69 and -0.32 us a launch, 1
 * stream -0.21, -0.26 and +0.13.  Elsewhere the plain mutex. */
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
#define EV_LOCK_INITIALIZER PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
#define EV_LOCK_TYPE PTHREAD_MUTEX_ADAPTIVE_NP
#else
#define EV_LOCK_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define EV_LOCK_TYPE PTHREAD_MUTEX_DEFAULT
#endif

struct kprof_ev kprof_ev = {
    .lock = EV_LOCK_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
};

__thread struct pool *kprof_ev_tls_pool __attribute__((tls_model("initial-exec")));

/* Anchoring the GPU clock on the host's: ANCHOR_TRIES events recorded one at a time on the idle private
 * stream, each polled with cuEventQuery until the GPU has stamped it.  Through the events' elapsed times
 * every try brackets the first event's stamp: after its record call returned (the GPU cannot stamp what
 * it was not yet given) and before the query saw it.  CUPTI's kernel start times put the stamp at the
 * bracket's early end, so the latest record end is taken (docs/accuracy.md, "Host and queue time": the
 * anchor bracketed).  ANCHOR_POLLS queries at most per try, then cuEventSynchronize. */
#define ANCHOR_TRIES 8
#define ANCHOR_POLLS 100000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Records e on the idle stream s and waits for its stamp: before and after (the record call's start and
 * return) and seen (the host clock once it was seen complete), host ns.  Returns the record's or the
 * wait's result. */
static CUresult anchor_try(CUevent e, CUstream s, uint64_t *before, uint64_t *after, uint64_t *seen)
{
    *before = kprof_now_ns();
    CUresult r = kprof_drv.cuEventRecord(e, s);
    *after = kprof_now_ns();
    for (int i = 0; r == CUDA_SUCCESS && i < ANCHOR_POLLS; i++) {
        r = kprof_drv.cuEventQuery(e);
        if (r == CUDA_ERROR_NOT_READY)
            r = CUDA_SUCCESS;
        else
            break;
        if (i == ANCHOR_POLLS - 1)
            r = kprof_drv.cuEventSynchronize(e);
    }
    *seen = kprof_now_ns();
    return r;
}

/* Sets up a new pool's private stream and first reference; the context is current on this thread. */
static void pool_start_timeline(struct pool *p)
{
    CUdevice dev = -1;
    if (kprof_drv.cuCtxGetDevice(&dev) == CUDA_SUCCESS)
        p->device = (int)dev;
    if (kprof_drv.cuStreamCreate(&p->own, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
        p->own = NULL;
        return;
    }
    CUevent ev[ANCHOR_TRIES] = { NULL };
    uint64_t before[ANCHOR_TRIES], after[ANCHOR_TRIES], seen[ANCHOR_TRIES];
    int n = 0;
    /* Relaxed capture mode around the waits, so that they cannot invalidate a global-mode capture this
     * thread may have in progress on another stream. */
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    kprof_drv.cuThreadExchangeStreamCaptureMode(&mode);
    while (n < ANCHOR_TRIES && kprof_drv.cuEventCreate(&ev[n], CU_EVENT_DEFAULT) == CUDA_SUCCESS) {
        if (anchor_try(ev[n], p->own, &before[n], &after[n], &seen[n]) != CUDA_SUCCESS) {
            kprof_drv.cuEventDestroy_v2(ev[n]);
            break;
        }
        n++;
    }
    kprof_drv.cuThreadExchangeStreamCaptureMode(&mode);
    if (n == 0)
        return;
    /* The first event's stamp on the host clock: the latest record end over the tries, no later than the
     * earliest sighting. */
    double at[ANCHOR_TRIES], lag[ANCHOR_TRIES], early = (double)after[0], late = (double)seen[0];
    at[0] = 0.0;
    for (int i = 1; i < n; i++) {
        float ms = 0.0f;
        at[i] = kprof_drv.cuEventElapsedTime_v2(&ms, ev[0], ev[i]) == CUDA_SUCCESS ? (double)ms * 1e6 : -1.0;
        if (at[i] >= 0.0 && (double)after[i] - at[i] > early)
            early = (double)after[i] - at[i];
        if (at[i] >= 0.0 && (double)seen[i] - at[i] < late)
            late = (double)seen[i] - at[i];
    }
    double stamp = early < late ? early : late;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (at[i] >= 0.0)
            lag[m++] = stamp + at[i] - (double)before[i];
    qsort(lag, (size_t)m, sizeof lag[0], cmp_double);
    p->stamp_lag_ns = lag[m / 2] > 0.0 ? lag[m / 2] : 0.0;
    for (int i = 1; i < n; i++)
        kprof_drv.cuEventDestroy_v2(ev[i]);
    p->refs[0].ev = ev[0];
    p->refs[0].host_done_ns = seen[0];
    p->refs[0].base_ns = stamp - (double)kprof_start_ns;
    p->refs[0].host_ns = p->refs[0].base_ns;
    p->nrefs = 1;
    kprof_debug("device %d: the GPU's clock anchored within %.2f us (the GPU stamps an event %.2f us after its "
                "record call starts, median of %d)", p->device, (late - stamp) / 1e3, p->stamp_lag_ns / 1e3, m);
    /* Before the context's first pair: its hand-offs, then taken off every pair it times.  The host time it
     * takes is left out of the call that started it (as context creation is). */
    kprof_calibrate(&p->calib, p->own);
    kprof_host_time_exclude(p->calib.cost_ns);
    /* For kprof_fills: what the device's SMs hold at once. */
    int sms = 0, threads = 0, blocks = 0;
    if (kprof_drv.cuDeviceGetAttribute && p->device >= 0 &&
        kprof_drv.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, p->device) == CUDA_SUCCESS &&
        kprof_drv.cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, p->device) ==
            CUDA_SUCCESS &&
        kprof_drv.cuDeviceGetAttribute(&blocks, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, p->device) ==
            CUDA_SUCCESS &&
        sms > 0 && threads > 0 && blocks > 0) {
        p->sms = (unsigned)sms;
        p->sm_threads = (unsigned)threads;
        p->sm_blocks = (unsigned)blocks;
    }
    if (p->calib.state == KPROF_CALIB_DONE)
        kprof_info("device %d: event hand-off calibrated in %.1f ms", p->calib.device, (double)p->calib.cost_ns / 1e6);
    __atomic_store_n(&p->last_request_ns, kprof_now_ns(), __ATOMIC_RELAXED);
}

/* The live pool of ctx, or NULL; call with kprof_ev.lock held. */
static struct pool *pool_find(CUcontext ctx)
{
    for (struct pool *p = kprof_ev.pools; p; p = p->next)
        if (p->ctx == ctx && !p->dead)
            return p;
    return NULL;
}

/* Pools are made one at a time: threads that all begin at once would otherwise each calibrate a pool of
 * their own at the same time, and time their kernels behind each other's (docs/accuracy.md, point 6).
 * Held across driver calls, unlike kprof_ev.lock, so it is waited for a bounded time only, and made
 * afresh in a forked child. */
static pthread_mutex_t pool_making = PTHREAD_MUTEX_INITIALIZER;

struct pool *kprof_ev_pool_find(CUcontext ctx)
{
    pthread_mutex_lock(&kprof_ev.lock);
    struct pool *p = pool_find(ctx);
    pthread_mutex_unlock(&kprof_ev.lock);
    return p;
}

/* The pool of ctx (current on this thread), created if needed: its stream, first reference and
 * calibration are made without kprof_ev.lock held.  Returns NULL when out of memory. */
struct pool *kprof_ev_pool_for(CUcontext ctx)
{
    pthread_mutex_lock(&kprof_ev.lock);
    struct pool *p = pool_find(ctx);
    pthread_mutex_unlock(&kprof_ev.lock);
    if (p)
        return p;
    struct timespec until = kprof_deadline_ms(10000);
    int making = pthread_mutex_timedlock(&pool_making, &until) == 0;
    pthread_mutex_lock(&kprof_ev.lock);
    p = pool_find(ctx); /* another thread may have made it meanwhile */
    pthread_mutex_unlock(&kprof_ev.lock);
    struct pool *n = p ? NULL : calloc(1, sizeof *n);
    if (n) {
        n->ctx = ctx;
        n->device = -1;
        pool_start_timeline(n);
        pthread_mutex_lock(&kprof_ev.lock);
        p = pool_find(ctx);
        if (!p) {
            n->next = kprof_ev.pools;
            kprof_ev.pools = p = n;
            n = NULL;
        }
        pthread_mutex_unlock(&kprof_ev.lock);
    }
    if (making)
        pthread_mutex_unlock(&pool_making);
    free(n); /* another thread made it first; its stream and reference are left to the context */
    return p;
}

/* A call goes untimed for lack of events (KPROF_MAX_EVENTS in use, their pairs not read yet): counted
 * (the report's events line), and said once, or a report with blank kernel rows would not say why.
 * Call with kprof_ev.lock held. */
void kprof_ev_pool_exhausted_once(void)
{
    if (kprof_ev.n.pool_exhausted++ == 0)
        kprof_warn("all KPROF_MAX_EVENTS=%ld events of a context are in use: calls go untimed until their "
                   "pairs are read (counted in the report's events line)", (long)kprof_config.max_events);
}

/* Takes one event from p's free list, or reserves the right to create one (returning NULL and setting
 * *create) while p is under KPROF_MAX_EVENTS; at that limit, the stops kept by idle streams' queues for
 * their next launches (queue.h, kept) are taken back first.  Call with kprof_ev.lock held. */
CUevent kprof_ev_pool_take(struct pool *p, int *create)
{
    *create = 0;
    if (p->nfree > 0)
        return p->free[--p->nfree];
    if (p->created >= kprof_config.max_events)
        return p->kept > 0 && kprof_ev_reclaim_kept(p) > 0 && p->nfree > 0 ? p->free[--p->nfree] : NULL;
    p->created++;
    kprof_ev.n.created++;
    *create = 1;
    return NULL;
}

/* Gives back a reservation kprof_ev_pool_take made; call with kprof_ev.lock held. */
void kprof_ev_pool_unreserve(struct pool *p)
{
    p->created--;
    kprof_ev.n.created--;
}

/* Creates a reserved event in the current context (p's), without kprof_ev.lock; NULL (the reservation given
 * back) on failure. */
CUevent kprof_ev_pool_create(struct pool *p)
{
    CUevent e = NULL;
    if (kprof_drv.cuEventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS)
        return e;
    pthread_mutex_lock(&kprof_ev.lock);
    kprof_ev_pool_unreserve(p);
    pthread_mutex_unlock(&kprof_ev.lock);
    return NULL;
}

/* Returns an event to its pool; call with kprof_ev.lock held. */
void kprof_ev_pool_give(struct pool *p, CUevent e)
{
    if (p->nfree == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        CUevent *f = realloc(p->free, cap * sizeof *f);
        if (!f)
            return; /* out of memory: the event is left to its context */
        p->free = f;
        p->cap = cap;
    }
    p->free[p->nfree++] = e;
}

/* 1 if pool p is the context ctx, or (ctx NULL) on device dev. */
int kprof_ev_pool_matches(const struct pool *p, CUcontext ctx, int dev)
{
    return !p->dead && (ctx ? p->ctx == ctx : p->device == dev);
}

void kprof_events_context_gone(CUcontext ctx, int dev)
{
    kprof_contexts_changed();
    pthread_mutex_lock(&kprof_ev.lock);
    for (struct pool *p = kprof_ev.pools; p; p = p->next)
        if (kprof_ev_pool_matches(p, ctx, dev)) {
            __atomic_store_n(&p->dead, 1, __ATOMIC_RELAXED); /* its events died with the context */
            kprof_context_forget(p->ctx);
        }
    pthread_mutex_unlock(&kprof_ev.lock);
}

/* Copies the calibration of each context timed so far (at most max, oldest first) to out; returns how
 * many. */
static size_t calibrations(struct kprof_calibration *out, size_t max)
{
    size_t n = 0, all = 0;
    pthread_mutex_lock(&kprof_ev.lock);
    for (struct pool *p = kprof_ev.pools; p; p = p->next)
        all++;
    /* The list is newest first: skip the newest beyond max, then fill from the end. */
    size_t keep = all < max ? all : max, i = 0;
    for (struct pool *p = kprof_ev.pools; p; p = p->next, i++)
        if (i >= all - keep)
            out[keep - 1 - n++] = p->calib;
    pthread_mutex_unlock(&kprof_ev.lock);
    return n;
}

void kprof_events_snapshot(struct kprof_events_part *p)
{
    pthread_mutex_lock(&kprof_ev.lock);
    p->n = kprof_ev.n;
    pthread_mutex_unlock(&kprof_ev.lock);
    p->ncalibs = calibrations(p->calibs, sizeof p->calibs / sizeof p->calibs[0]);
}

/* fork(): kprof_ev.lock must be free when the child is made.  It is waited for at most 200 ms (never held across
 * a driver call, so only a preempted holder makes anyone wait): returns 0 if it could not be had, and
 * the child then leaves libkprof's state alone.  A harvest pass may be under way in another thread (it
 * can sit in a slow driver call for as long as the driver likes, or wait on the driver's own lock, which
 * the driver's fork handler may hold by now; and under ThreadSanitizer no other thread runs while fork's
 * handlers do): that is not waited for, which once held every fork() up for 0.2 to 0.5 s while other
 * threads launched.  What such a pass changes outside kprof_ev.lock belongs to the pools and the pass's
 * own copies, which the child abandons anyway; what it changes under a lock is whole when the lock is
 * had; glibc's fork() takes malloc's locks itself.  `forking` keeps new passes from starting. */
static int fork_locked;

static int fork_prepare(void)
{
    __atomic_store_n(&kprof_ev.forking, 1, __ATOMIC_SEQ_CST);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's allocator (GCC 12's runtime) is not safe across fork: a child whose parent had
     * a thread inside malloc waited for ever in its leak check at exit (tests/fork-child-and-exec.sh,
     * about one run in 16).  In that build a harvest pass under way is waited for, up to 200 ms. */
    int naps = 0;
    for (; naps < 4000 && __atomic_load_n(&kprof_ev.harvesting, __ATOMIC_SEQ_CST); naps++) {
        struct timespec nap = { 0, 50000 }; /* counted, not clocked: 4000 naps of 50 us at least */
        nanosleep(&nap, NULL);
    }
    if (naps > 0)
        kprof_debug("fork() waited for a harvest pass (%d naps of 50 us; AddressSanitizer build)", naps);
#endif
    struct timespec until = kprof_deadline_ms(200);
    fork_locked = pthread_mutex_timedlock(&kprof_ev.lock, &until) == 0;
    return fork_locked;
}

static void fork_parent(void)
{
    if (fork_locked)
        pthread_mutex_unlock(&kprof_ev.lock);
    __atomic_store_n(&kprof_ev.forking, 0, __ATOMIC_RELEASE);
}

static void fork_child(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, EV_LOCK_TYPE);
    pthread_mutex_init(&kprof_ev.lock, &a); /* the same kind as the parent's (EV_LOCK_INITIALIZER) */
    pthread_mutexattr_destroy(&a);
    pthread_mutex_init(&pool_making, NULL); /* a thread of the parent may have been making a pool */
    pthread_cond_init(&kprof_ev.wake, NULL);
}

/* In the child: no harvesting thread, and none of the parent's CUDA objects may be touched, so every pool
 * is abandoned (its events leak) and every pending pair dropped. */
static void events_reset(void)
{
    kprof_ev.harvesting = kprof_ev.forking = 0;
    for (struct pool *p = kprof_ev.pools; p; p = p->next) {
        __atomic_store_n(&p->dead, 1, __ATOMIC_RELAXED);
        kprof_turnlock_reset(&p->order); /* a parent's thread may have held it */
    }
    for (struct queue *q = kprof_ev.queues; q; q = q->hh.next) {
        kprof_turnlock_reset(&q->turn);
        q->head = q->count = 0;
        q->fills_queued = 0; /* the pools' fill_queued are dead with them */
        q->popped = q->pushed;
        q->idle_streak = q->skip = 0;
        q->last_stop_seq = 0;
    }
    kprof_ev.pending = 0;
    for (int i = 0; i < KPROF_FLIGHT_SHARDS; i++)
        kprof_ev.in_flight[i].n = 0; /* the parent's other threads do not exist here */
    kprof_ev.harvester_started = kprof_ev.harvester_stop = kprof_ev.harvester_sleeping = 0;
    memset(&kprof_ev.n, 0, sizeof kprof_ev.n);
    kprof_ev_tls_pool = NULL;
}

KPROF_MODULE(events, 10, fork_prepare, fork_parent, fork_child, events_reset)

/* ---- queues: kept stops, retirement ---------------------------------------------------------- */

int kprof_ev_queue_keep(struct queue *q, const struct pair *pr)
{
    /* Only where a launch may start at it: one-event timing on, every launch timed (begin_find_pool). */
    if (q->count > 0 || q->gone || pr->kind != KPROF_TARGET_KERNEL || !pr->own_stop || pr->pool->dead ||
        !kprof_hold_sampled() || !kprof_config.one_event || kprof_config.sample != 1)
        return 0;
    kprof_ev_queue_drop_kept(q);
    q->kept = *pr;
    q->kept.own_stop = 1; /* as the caller read it (pr may be a copy taken earlier) */
    pr->pool->kept++;
    return 1;
}

void kprof_ev_queue_drop_kept(struct queue *q)
{
    if (!q->kept.stop)
        return;
    q->kept.pool->kept--;
    if (!q->kept.pool->dead)
        kprof_ev_pool_give(q->kept.pool, q->kept.stop);
    q->kept.stop = NULL;
}

long kprof_ev_reclaim_kept(struct pool *p)
{
    long n = 0;
    for (struct queue *q = kprof_ev.queues; q && p->kept > 0; q = q->hh.next)
        if (q->kept.stop && q->kept.pool == p) {
            kprof_ev_queue_drop_kept(q);
            n++;
        }
    return n;
}

unsigned long kprof_ev_queues_retired;

__thread unsigned kprof_ev_tls_flight __attribute__((tls_model("initial-exec")));

unsigned kprof_ev_flight_assign(void)
{
    static unsigned next;
    unsigned i = 1 + __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) % KPROF_FLIGHT_SHARDS;
    kprof_ev_tls_flight = i;
    return i;
}

int kprof_ev_queue_retire(struct queue *q)
{
    if (!q->gone || q->count > 0)
        return 0;
    kprof_ev_queue_drop_kept(q);
    HASH_DEL(kprof_ev.queues, q);
    __atomic_add_fetch(&kprof_ev_queues_retired, 1, __ATOMIC_SEQ_CST);
    memset(&q->key, 0, sizeof q->key);
    q->next_spare = q->pool->spare;
    q->pool->spare = q;
    return 1;
}
