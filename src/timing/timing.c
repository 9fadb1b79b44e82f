/* timing.c: timing a call with a driver event pair: kprof_timing_begin and kprof_timing_end, the pairs
 * put on their stream's queue, one-event chains (a launch starting at its stream's last stop) and holds;
 * finding or making a stream's queue is queues.c's, threads sharing a stream take turns in turns.c, the
 * ordering of launches on streams that wait for each other is order.c's, a queue's kept stop and its
 * retirement pool.c's. */
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "calibrate.h"
#include "log.h"
#include "kprof_config.h"
#include "resolve.h"
#include "clock.h"
#include "call.h"
#include "contexts.h"
#include "preload.h"
#include "timing.h"
#include "kernel.h"
#include "transfers.h"
#include "devices.h"
#include "graphs.h"
#include "timing_internal.h"
#include "probe_seg.h"

/* Stream-order counters for one-event timing (relaxed atomics): operations libkprof did not time, and
 * timed calls begun on a legacy default stream and on any other stream that synchronises with it.  A
 * launch may start at the stop of its stream's last timed call only if no untimed operation, and no timed
 * call on a stream it waits for implicitly (the legacy default stream waits for blocking streams, they
 * wait for it), came since. */
enum { EPOCH_BREAK, EPOCH_LEGACY, EPOCH_OTHER };
/* Launches on a stream found idle twice in a row before it is asked again (lend_last_stop; timing_end).
 * Between the questions, a launch not drawn starts at the last stop as it would if asked (and found idle)
 * and a drawn one is held without asking; the question only finds the stream busy again sooner, for a
 * query of the last stop (0.2 to 2 us of the launching thread's time).  7 until the forty-second session:
 * the eager decode loop's "start chosen" 359 ns a launch, 126 with 31 (docs/performance.md). */
#define IDLE_SKIP 31
static unsigned long epochs[3];
int kprof_sampled_untimed_seen;

__thread struct kprof_delegate *kprof_tls_delegate __attribute__((tls_model("initial-exec")));

static struct queue *queue_for(const struct kprof_timing *t, struct pool *p);

void kprof_chain_break(void)
{
    __atomic_add_fetch(&epochs[EPOCH_BREAK], 1, __ATOMIC_RELAXED);
}

/* A call passed through while paused runs untimed work. */
__attribute__((constructor(101))) static void chain_break_on_untimed_calls(void)
{
    kprof_call_on_untimed(kprof_chain_break);
}

/* A thread's per-thread default stream has a queue keyed by its thread id, which the kernel gives to a
 * later thread once this one has exited: the thread's exit ends every chain (so the newcomer's first
 * launch is not timed from the dead thread's last stop).  Watched from a thread's first launch on its
 * per-thread stream, with a thread-specific key's destructor. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;
static int exit_unwatched;
static __thread int exit_watched __attribute__((tls_model("initial-exec")));

/* The per-thread default streams' queues this thread timed on (one per context; kprof_ev.lock): marked gone
 * at its exit, so that the harvester retires them (queue.h). */
#define THREAD_QUEUES 4
static __thread struct queue *tls_own_queues[THREAD_QUEUES] __attribute__((tls_model("initial-exec")));

static void on_thread_exit(void *v)
{
    (void)v;
    kprof_chain_break();
    long tid = kprof_queue_key(NULL, CU_STREAM_PER_THREAD, 0).tid; /* its per-thread stream's key */
    pthread_mutex_lock(&kprof_ev.lock);
    for (int i = 0; i < THREAD_QUEUES; i++) {
        struct queue *q = tls_own_queues[i];
        if (q && q->key.stream == CU_STREAM_PER_THREAD && q->key.tid == tid) {
            q->gone = 1;
            kprof_ev_queue_drop_kept(q);
        }
        tls_own_queues[i] = NULL;
    }
    pthread_mutex_unlock(&kprof_ev.lock);
}

static void exit_key_create(void)
{
    exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

/* 1 once this thread's exit is watched; 0 if it cannot be (no thread-specific key left): then no
 * per-thread stream is timed with one event any more (exit_unwatched). */
static int watch_thread_exit(void)
{
    if (KPROF_LIKELY(exit_watched))
        return 1;
    pthread_once(&exit_key_once, exit_key_create);
    exit_watched = exit_key_ok && pthread_setspecific(exit_key, (void *)1) == 0;
    return exit_watched;
}

/* Takes an event from p, creating one if p may grow; NULL (counted) when p is exhausted or creation
 * failed.  Without kprof_ev.lock. */
static CUevent event_get(struct pool *p)
{
    int create;
    pthread_mutex_lock(&kprof_ev.lock);
    CUevent e = kprof_ev_pool_take(p, &create);
    if (!e && !create)
        kprof_ev_pool_exhausted_once();
    pthread_mutex_unlock(&kprof_ev.lock);
    return create ? kprof_ev_pool_create(p) : e;
}

/* A launch whose hold gave up: its start was stamped when the hold let go, some time into the launch call.
 * Records a mark on p's private stream, which is idle (references only), just after the stop event, so
 * that the harvester reads the time from that stamp to the launch's return on the GPU's clock alone
 * (harvest.c, pair_account); sets *after_ns to the host time from the return (`returned`, host clock) to
 * the mark's record.  NULL when p has no private stream or no event to spare (not counted as an untimed
 * call: the launch is timed all the same), or the record failed (then the anchor places the stamp).
 * Without kprof_ev.lock; p's context current, no capture in progress (the start's query succeeded). */
static CUevent late_mark(struct pool *p, uint64_t returned, uint64_t *after_ns)
{
    if (!p->own)
        return NULL;
    int create; /* not event_get: a pool without a spare event loses the mark, not a timed call */
    pthread_mutex_lock(&kprof_ev.lock);
    CUevent e = kprof_ev_pool_take(p, &create);
    pthread_mutex_unlock(&kprof_ev.lock);
    if (create)
        e = kprof_ev_pool_create(p);
    if (!e)
        return NULL;
    uint64_t before = kprof_now_ns();
    if (kprof_drv.cuEventRecord(e, p->own) != CUDA_SUCCESS) {
        pthread_mutex_lock(&kprof_ev.lock);
        kprof_ev_pool_give(p, e);
        pthread_mutex_unlock(&kprof_ev.lock);
        return NULL;
    }
    *after_ns = before - returned;
    return e;
}

/* Gives back a stop event lent to the next launch that did not use it after all: to its pair if that is
 * still queued, else (its pair was read) to the pool.  kprof_ev.lock held. */
static void unlend(struct queue *q, struct pool *p, CUevent e, uint64_t seq)
{
    if (seq >= q->popped && seq - q->popped < q->count)
        kprof_ring_at(q, seq - q->popped)->own_stop = 1;
    else if (!p->dead)
        kprof_ev_pool_give(p, e);
}

/* 1 when nothing can have come between the pair `last` and a launch on a stream (legacy: the legacy
 * default stream) that begins now; see kprof_timing_begin in timing.h. */
static int chain_intact(const struct pair *last, int legacy)
{
    return last->epoch[EPOCH_BREAK] == __atomic_load_n(&epochs[EPOCH_BREAK], __ATOMIC_RELAXED) &&
           last->epoch[legacy ? EPOCH_OTHER : EPOCH_LEGACY] ==
               __atomic_load_n(&epochs[legacy ? EPOCH_OTHER : EPOCH_LEGACY], __ATOMIC_RELAXED);
}

/* What a launch that may share its start knows of the work still ahead of it on the stream: the start
 * events of the last pairs queued there and the GPU time each is expected to take (its kernel's mean so
 * far plus the kernel hand-off; 0 when unknown). */
#define BACKLOG 2
struct backlog {
    int n;
    CUevent start[BACKLOG];
    uint64_t start_ns[BACKLOG]; /* host clock once each start's record returned (0: not known) */
    double expect_ns[BACKLOG];
    CUevent last_stop;      /* the stop event of the last pair */
    uint64_t last_stop_ns;  /* host clock once its record returned (0: not known) */
};

/* The host time a launch takes on this thread (ns, a moving average over its timed launches). */
static __thread double tls_launch_ns __attribute__((tls_model("initial-exec")));

/* The GPU work that must still be ahead of a launch when it begins for its kernel to reach a stream that
 * is still busy: twice the host's launch time (a launch now and then takes longer), plus 1 us. */
static double backlog_needed_ns(void)
{
    return 2.0 * (tls_launch_ns > 0.0 ? tls_launch_ns : 5000.0) + 1000.0;
}

/* Fills bl with the last pairs queued on q (q->count > 0) and answers the most GPU time they can still
 * take: -1 when unknown (a kernel not timed yet).  kprof_ev.lock held. */
static double backlog_collect(const struct queue *q, const struct pool *p, struct backlog *bl)
{
    bl->n = 0;
    const struct pair *last = kprof_ring_at(q, q->count - 1);
    bl->last_stop = last->stop;
    bl->last_stop_ns = last->stop_host_ns;
    for (size_t i = 0; i < BACKLOG && i < q->count; i++) {
        const struct pair *pr = kprof_ring_at(q, q->count - 1 - i);
        double mean = pr->kind == KPROF_TARGET_COPY ? 0.0 : kprof_kernel_mean_ns(pr->target);
        bl->start_ns[bl->n] = pr->start_rec_ns; /* not the pair before it's stop: threads may interleave */
        bl->start[bl->n] = pr->start;
        bl->expect_ns[bl->n++] =
            pr->kind != KPROF_TARGET_COPY && mean == 0.0
                ? -1.0 /* a kernel not timed yet: its length is unknown */
                : mean + kprof_calibration_handoff(&p->calib, pr->shared, KPROF_PRED_KERNEL);
    }
    double most = 0.0;
    for (int i = 0; i < bl->n && most >= 0.0; i++)
        most = bl->expect_ns[i] < 0.0 ? -1.0 : most + bl->expect_ns[i];
    return most;
}

/* Other streams asked at most per held launch (their last stops), and queues looked at for them. */
#define BESIDE_ASKED 4
#define BESIDE_SCANNED 64

/* Fills out[] with the last stop events of other streams of context ctx that have pairs not read yet
 * (at most BESIDE_ASKED, looking at BESIDE_SCANNED queues at most), for the caller to ask, without
 * kprof_ev.lock, whether they are still running: then a hold on q's stream could stall them (their kernels
 * queue behind it on a shared hardware queue: docs/accuracy.md, point 12).  Returns the number of events.
 * kprof_ev.lock held. */
static int beside_collect(const struct queue *q, CUcontext ctx, CUevent *out)
{
    int n = 0, looked = 0;
    for (const struct queue *o = kprof_ev.queues; o && n < BESIDE_ASKED && looked < BESIDE_SCANNED;
         o = o->hh.next, looked++)
        if (o != q && o->key.ctx == ctx && o->count > 0)
            out[n++] = kprof_ring_at(o, o->count - 1)->stop;
    return n;
}

/* q's last pair if a launch on q's stream that begins now may start at its stop (nothing came between,
 * and its pair still gives the stop back), else NULL; with `kept`, once it has been read, the stop kept
 * (queue.h).  Never behind a copy: the hand-off behind one varies by launch; such a launch is held
 * instead.  kprof_ev.lock held. */
static struct pair *lendable(struct queue *q, const struct pool *p, int legacy, int kept)
{
    if (q->count == 0 && !(kept && q->kept.stop))
        return NULL;
    struct pair *last = q->count ? kprof_ring_at(q, q->count - 1) : &q->kept;
    if (!last->own_stop || last->pool != p || p->dead || !chain_intact(last, legacy) ||
        last->kind == KPROF_TARGET_COPY)
        return NULL;
    return last;
}

/* Lends the stop of q's last pair `last` (lendable) to the launch t begins: its pair no longer gives it
 * back, the launch's does.  Returns the stop; *stop_host_ns gets the host clock once its record returned.
 * kprof_ev.lock held. */
static CUevent lend(struct queue *q, struct kprof_timing *t, struct pair *last, uint64_t *stop_host_ns)
{
    CUevent stop = last->stop;
    last->own_stop = 0;
    if (last == &q->kept) {
        q->kept.stop = NULL; /* the launch's now (unlend gives it to the pool) */
        q->kept.pool->kept--;
    }
    t->lent_seq = q->pushed - 1;
    t->start_before_ns = last->start_host_ns; /* a reference older than the lent event */
    *stop_host_ns = last->stop_host_ns;
    t->lent_before_ns = last->call_ns ? last->call_ns + last->launch_ns : 0;
    return stop;
}

/* The stop event of q's last pair, lent to the launch t begins on q's stream if that launch may start
 * there (lendable), or NULL; *bl gets the backlog behind it.  A stream found idle at the last launches is
 * not asked (q->skip), nor one whose last pairs could not outlast the launch even if none had started
 * (short kernels: two events, and no query spent).  kprof_ev.lock held. */
static CUevent lend_last_stop(struct queue *q, struct pool *p, int legacy, struct kprof_timing *t, struct backlog *bl,
                              uint64_t *stop_host_ns)
{
    if (q->skip > 0) {
        q->skip--;
        return NULL;
    }
    struct pair *last = lendable(q, p, legacy, 0);
    if (!last)
        return NULL;
    double most = backlog_collect(q, p, bl);
    t->short_backlog = most >= 0.0 && most < backlog_needed_ns();
    if (t->short_backlog && t->drawn < 0)
        return NULL;
    /* KPROF_HOLD=N: lent all the same, to ask whether the stream is busy (begin_choose_start) */
    return lend(q, t, last, stop_host_ns);
}

/* KPROF_HOLD=N: whether t's launch, not drawn, due t's kind of hold, reads blind: its shape's references'
 * mean known closely (struct kprof_kernel's hold_sure, by its draw word), or that of every shape of its
 * kernel (blind_ok: also a shape past the kernel's draw words).  Per kernel only until the forty-fourth
 * session: a kernel whose grid follows a growing length (the eager decode loop's gemv, 20 shapes) was
 * never blind while its newest shape had too few references.  t->hold_shapes, when set, are the kernel's
 * own words (kprof_hold_words). */
static int blind_ok(const struct kprof_timing *t)
{
    if (!t->hold_shapes || (t->draw_kind != 1 && t->draw_kind != 2))
        return 0;
    const struct kprof_kernel *k =
        (const struct kprof_kernel *)(const void *)((const char *)t->hold_shapes -
                                                    offsetof(struct kprof_kernel, hold_shapes));
    if (__atomic_load_n(&k->blind_ok[t->draw_kind - 1], __ATOMIC_RELAXED))
        return 1;
    return t->hold_word >= 0 && t->hold_word < KPROF_KERNEL_HOLD_SHAPES &&
           __atomic_load_n(&k->hold_sure[t->hold_word], __ATOMIC_RELAXED);
}

/* 1 when the stream will still be busy when this launch's kernel reaches the GPU, so that the previous
 * stop is a true start: the launch takes about tls_launch_ns of host time, during which the GPU must not
 * run out of work, or the pair would hold the idle gap before the kernel (docs/accuracy.md, point 4).
 * Asks whether the last queued pairs have started (a query each, newest first, but for a start recorded
 * too recently to have completed: calibrate.h, seen_ns; counted in t->unasked) and adds up what is left
 * of those that have not (a kernel not yet timed counts as long enough, unless `known`: then as too short,
 * for a launch whose reading must be exact).  *now: the host clock read since the last driver call, or 0;
 * read here when needed, and 0 again after a query (struct begin's now_ns). */
static int backlog_outlasts_launch(const struct backlog *bl, const struct pool *p, struct kprof_timing *t,
                                   uint64_t *now, int known)
{
    double need = backlog_needed_ns(), ahead = 0.0;
    for (int i = 0; i < bl->n; i++) {
        if (bl->start_ns[i] && !*now)
            *now = kprof_now_ns();
        int surely = bl->start_ns[i] && kprof_calibration_surely_pending(&p->calib, bl->start_ns[i], *now);
        t->unasked += (unsigned char)surely;
        if (!surely)
            *now = 0; /* a query: what was read is stale after it */
        if (!surely && kprof_event_query_uncaptured(bl->start[i]) != CUDA_ERROR_NOT_READY)
            return 0; /* that pair has started: what is left of it is unknown, assume it is short */
        if (bl->expect_ns[i] < 0.0)
            return !known; /* a kernel of unknown length that has not started: the first launches of a kernel */
        ahead += bl->expect_ns[i];
        if (ahead >= need)
            return 1;
    }
    return 0;
}

/* The call t begins will run untimed: no launch after it may start at an earlier stop.  Said again when
 * the call has been made (kprof_timing_end), for a launch another thread began in between. */
static void untimed(struct kprof_timing *t)
{
    kprof_chain_break();
    t->broke = 1;
}

/* kprof_timing_begin's one way out for a call that stays untimed: gives back what the call took (its start
 * event, or the stop lent to it as its start; a lent stop not used; its stop event, or the reservation of
 * one), releases a hold placed, ends its turn (order_end) and counts it untimed.  Takes kprof_ev.lock unless
 * `locked` says the caller holds it; returns with it released. */
static void begin_undo(struct kprof_timing *t, struct pool *p, struct queue *q, CUevent a, CUevent b, CUevent lent,
                       int b_reserved, int locked)
{
    if (!locked)
        pthread_mutex_lock(&kprof_ev.lock);
    if (a && t->shared)
        unlend(q, p, a, t->lent_seq);
    else if (a)
        kprof_ev_pool_give(p, a);
    if (lent)
        unlend(q, p, lent, t->lent_seq);
    if (b)
        kprof_ev_pool_give(p, b);
    else if (b_reserved)
        kprof_ev_pool_unreserve(p);
    pthread_mutex_unlock(&kprof_ev.lock);
    if (t->held)
        kprof_hold_release(&p->calib.hold, t->hold_slot, t->hold_seq);
    t->held = 0;
    kprof_order_end(t, p);
    untimed(t);
    __atomic_sub_fetch(kprof_ev_flight(), 1, __ATOMIC_RELEASE); /* counted by begin_find_pool */
}

/* What kprof_timing_begin learns about a call on its way to the start event, step by step. */
struct begin {
    struct pool *p;
    struct queue *q;        /* the stream's queue (NULL: out of memory) */
    CUstream s;
    int capturing;          /* some stream capture is in progress */
    int legacy;             /* s is the legacy default stream */
    int chains;             /* one-event timing is on */
    int may_share;          /* this launch may start at its stream's last stop */
    int ordering;           /* a launch: ordered if its stream synchronises with the other kind */
    CUevent lent, a, b;     /* the stop lent as a start; the start and stop events */
    int ca, cb;             /* a, b reserved: created once kprof_ev.lock is released */
    struct backlog *bl;     /* the backlog behind the lent stop (n -1: not collected) */
    uint64_t lent_host_ns;  /* host clock once the lent stop's record returned (0: not known) */
    /* The host clock as read by a step since the launch's last driver call or wait (0: none), which
     * those after it use for "now" instead of reading it again (26 to 36 ns a read on the H200 host). */
    uint64_t now_ns;
    int hold;               /* 1 HELD, 2 HELD_KERNEL; negative when the stream stays busy */
    int blocking;           /* q->blocking as read (-1: the stream's kind not asked yet) */
    int ask_busy;           /* ask whether the stream stays busy (its backlog in busy) */
    struct backlog *busy;
    int nbeside;            /* other streams' last stops (beside), asked before holding */
    CUevent *beside;
};

/* The call's context, stream and pool, and whether its start may be shared; 0 when it stays untimed. */
static int begin_find_pool(struct kprof_timing *t, struct begin *g, CUcontext ctx, cudaStream_t stream, int per_thread,
                      enum kprof_time_want want)
{
    if (ctx == NULL && (KPROF_UNLIKELY(!kprof_driver_is_initialized()) ||
                        kprof_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == NULL)) {
        /* The call will make the context current (creating it, maybe: timed on the host as context
         * init), and its work goes untimed onto a stream that other threads may be timing (unless the
         * nested driver launch times it: see struct kprof_delegate). */
        t->no_context = 1;
        untimed(t);
        /* Not for a kernel launch: the runtime's, made without a context, is timed by its nested driver
         * launch (struct kprof_delegate), which takes the order lock and then the turn; a turn taken here
         * first would be held while that launch waits for the order lock (a break-it helper: 200 ms
         * twice, in 41 to 51 of 100 rounds of a new thread's first launch on a blocking stream). */
        if (KPROF_LIKELY(kprof_driver_is_initialized()) && (want == KPROF_TIME_PAIR || want == KPROF_TIME_GRAPH))
            kprof_turn_first_call(t, (CUstream)stream, 0, per_thread);
        return 0;
    }
    CUstream s = (CUstream)stream;
    if (s == NULL && per_thread)
        s = CU_STREAM_PER_THREAD;
    /* An event recorded into a capturing stream would become a node of the app's graph.  Only asked while
     * some capture is in progress (libkprof sees every capture begin and end). */
    if (g->capturing) {
        CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
        CUresult rc = kprof_drv.cuStreamIsCapturing(s, &cs);
        if (rc != CUDA_SUCCESS || cs != CU_STREAM_CAPTURE_STATUS_NONE) {
            /* Capturing (or invalidated, or the legacy stream during another stream's capture): the
             * call only adds a node to a graph, which runs when the graph is launched. */
            t->captured = rc == CUDA_SUCCESS || rc == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
            return 0;
        }
    }
    if (want == KPROF_TIME_NONE)
        return 0;
    __atomic_add_fetch(kprof_ev_flight(), 1, __ATOMIC_SEQ_CST); /* until begin_undo or kprof_timing_end */
    struct pool *p = NULL;
    /* A context being destroyed (kprof_events_teardown_begin, then a wait for in_flight to fall to 0):
     * either the destruction sees this call in flight and waits, or this call sees it and stays untimed. */
    if (KPROF_LIKELY(__atomic_load_n(&kprof_ev.teardowns, __ATOMIC_SEQ_CST) == 0)) {
        p = kprof_ev_tls_pool;
        if (!p || p->ctx != ctx || __atomic_load_n(&p->dead, __ATOMIC_RELAXED))
            p = kprof_ev_tls_pool = kprof_ev_pool_for(ctx);
    }
    if (!p) {
        __atomic_sub_fetch(kprof_ev_flight(), 1, __ATOMIC_RELEASE);
        untimed(t);
        return 0;
    }
    SEG(12);
    kprof_ev_ref_request(p, t->entry_ns ? t->entry_ns : kprof_now_ns());
    SEG(13);
    t->ctx = ctx;
    t->stream = s;
    t->shared = 0;
    t->lent_host_ns = 0;
    t->lent_before_ns = 0;
    g->p = p;
    g->s = s;
    g->legacy = s == NULL || s == CU_STREAM_LEGACY;
    g->chains = kprof_config.one_event &&
                (kprof_config.sample == 1 || !__atomic_load_n(&kprof_sampled_untimed_seen, __ATOMIC_SEQ_CST));
    if (g->chains && s == CU_STREAM_PER_THREAD && !watch_thread_exit())
        __atomic_store_n(&exit_unwatched, 1, __ATOMIC_RELAXED);
    g->may_share = g->chains && (want == KPROF_TIME_LAUNCH || want == KPROF_TIME_GRAPH) && !g->capturing &&
                   (s != CU_STREAM_PER_THREAD || !__atomic_load_n(&exit_unwatched, __ATOMIC_RELAXED));
    return 1;
}

/* The stream's queue, the launch ordered first (order_begin) if its stream synchronises with the other
 * kind, so that no other thread's launch comes between.  Returns with kprof_ev.lock held. */
static void begin_find_queue(struct kprof_timing *t, struct begin *g, enum kprof_time_want want)
{
    struct pool *p = g->p;
    g->ordering = want == KPROF_TIME_LAUNCH || want == KPROF_TIME_GRAPH;
    if (g->legacy && !__atomic_load_n(&p->legacy_seen, __ATOMIC_RELAXED))
        kprof_order_seen(p, 1);
    if (g->ordering && g->legacy)
        kprof_order_begin(t, p, 1);
    SEG_LOCK(&kprof_ev.lock, 0);
    g->q = queue_for(t, p);
    if (g->ordering && !g->legacy && g->q && __atomic_load_n(&g->q->blocking, __ATOMIC_RELAXED) != 0) {
        pthread_mutex_unlock(&kprof_ev.lock); /* never waited for under kprof_ev.lock */
        kprof_order_begin(t, p, __atomic_load_n(&g->q->blocking, __ATOMIC_RELAXED) > 0);
        pthread_mutex_lock(&kprof_ev.lock);
        g->q = queue_for(t, p);
    }
    kprof_turn_begin(t, g->q);
}

/* The hold a launch on q would get: 1 (HELD) where its last work was a kernel or a wait, 2 (HELD_KERNEL)
 * behind a copy or memset (even one long finished: the kernel also waits for another engine's hand-off)
 * or a host function: calibrated apart.  kprof_ev.lock held. */
static int hold_kind(const struct queue *q)
{
    return q->host_fn || (q->last_pred != KPROF_PRED_KERNEL && q->last_pred != KPROF_PRED_OTHER) ? 2 : 1;
}

/* The call's events, taken from the pool or reserved: its stop, and its start unless the last pair's
 * stop is lent to it (its pair no longer gives it back).  kprof_ev.lock held. */
static void begin_take_events(struct kprof_timing *t, struct begin *g, enum kprof_time_want want)
{
    struct queue *q = g->q;
    int ca = 0, cb = 0; /* not g's: g stays out of memory */
    g->lent = g->a = g->b = NULL;
    g->lent_host_ns = 0;
    g->bl->n = -1; /* not collected (lend_last_stop may collect it) */
    t->tested = 0;
    t->beside = 0;
    t->pred = q ? q->last_pred : KPROF_PRED_UNKNOWN;
    /* KPROF_HOLD=N: whether this launch is measured in full (hold.h; struct kprof_timing's drawn), drawn
     * by situation too, so that each kind of hold, and the gap behind a short backlog, has references. */
    int draws = q && want == KPROF_TIME_LAUNCH && kprof_hold_sampled() && t->hold_shapes && !t->ordered &&
                g->p->calib.hold.ok;
    t->drawn = draws ? 0 : -1; /* lend_last_stop: lends behind a short backlog too */
    t->draw_thin = 0;
    t->hold_word = -1;
    t->check_held = 0;
    t->short_backlog = 0;
    /* The stream found idle at the last launches (lend_last_stop does not lend then), or its last pair
     * read (complete) with its stop kept (queue.h). */
    int idle_known = q && g->may_share && (q->skip > 0 || (q->count == 0 && q->kept.stop));
    if (q && g->may_share)
        g->lent = lend_last_stop(q, g->p, g->legacy, t, g->bl, &g->lent_host_ns);
    if (draws) {
        t->draw_kind = (unsigned char)hold_kind(q);
        uint32_t key = t->hold_key ^ (t->short_backlog ? KPROF_HOLD_GAP_KEY : 0) ^
                       (t->draw_kind == 2 ? KPROF_HOLD_COPY_KEY : 0);
        int word;
        t->drawn = (signed char)kprof_hold_drawn(t->hold_shapes, t->hold_nshapes, key, &t->draw_thin, &word);
        t->hold_word = (signed char)word;
        /* KPROF_AUTO_CHECK=1: a launch KPROF_SAMPLE=auto would time is measured as auto measures it, in
         * full (held where a hold is due) and read from its own pair, never with a learned offset: the
         * check's estimate is made of readings like an auto run's (offset-read, the weighed launches of the
         * H200's torch_decode spread so that auto's intervals read 5 to 75% wide). */
        if (KPROF_UNLIKELY(kprof_config.auto_check) && t->drawn == 0 && kprof_tls_sample_weight >= 1.0f) {
            t->drawn = -1;
            t->check_held = 1;
        }
    }
    /* KPROF_HOLD=N, a launch not drawn on a stream found idle at the last launches or with its last stop
     * kept, its kernel read blind (blind_ok): it starts at that stop, asking nothing and recording no
     * start of its own.  Its pair then holds the host's time since that stop as well: it reads as its
     * kernel and shape's references' mean (harvest.c, KPROF_OFFSET_IDLE), as such launches' total does.
     * Those drawn get a start of their own and a hold, as before. */
    if (idle_known && !g->lent && t->drawn == 0 && blind_ok(t)) {
        struct pair *last = lendable(q, g->p, g->legacy, 1);
        if (last) {
            g->lent = lend(q, t, last, &g->lent_host_ns);
            t->idle_shared = 1;
        }
    }
    if (q) {
        g->b = kprof_ev_pool_take(g->p, &cb);
        if (!g->lent && (g->b || cb))
            g->a = kprof_ev_pool_take(g->p, &ca);
    }
    g->ca = ca;
    g->cb = cb;
}

/* Whether a kernel launch that may get a start of its own is held (struct kprof_hold), and what to ask
 * first: whether its stream stays busy, whether other streams have work in flight.  kprof_ev.lock held. */
static void begin_decide_hold(struct kprof_timing *t, struct begin *g, enum kprof_time_want want)
{
    struct pool *p = g->p;
    struct queue *q = g->q;
    g->hold = 0;
    g->blocking = q ? __atomic_load_n(&q->blocking, __ATOMIC_RELAXED) : 0;
    g->ask_busy = 0;
    int may_hold = q && want == KPROF_TIME_LAUNCH && p->calib.hold.ok;
    /* Not while another tool records kernels through CUPTI: kprof_hold would be in its trace. */
    if (may_hold && __atomic_load_n(&kprof_kernels_traced, __ATOMIC_RELAXED))
        t->traced = 1;
    else if (may_hold && !kprof_tls_may_load.handle &&
        (!g->legacy || t->ordered || !__atomic_load_n(&p->blocking_seen, __ATOMIC_RELAXED))) {
        /* Not when the launch may load its kernel (kprof_tls_may_load): the loading may wait for the
         * context's work, the hold included (up to its timeout).
         * The kind of hold as hold_kind says.  Once a blocking stream has been timed in the context, the
         * legacy default stream is held only by an ordered launch (kprof_order_begin): other threads' launches
         * on blocking streams wait for the hold, and their pairs held it when they came in between
         * (docs/accuracy.md, point 9). */
        g->hold = hold_kind(q);
        /* KPROF_HOLD=N: held only when drawn (hold.h), the others read with their shape's learned offset
         * (timing/offsets.c); an ordered launch always (unheld, the legacy stream's kernels read long:
         * docs/accuracy.md, point 12).  Unheld, nothing below needs asking. */
        if (t->drawn == 0)
            g->hold = 0;
        /* A launch that could not share its start (an operation libkprof does not time came between)
         * on a stream that may stay busy: asked below.  A hold costs the GPU a read of host memory
         * even when it does not wait (docs/accuracy.md, point 9). */
        /* Sampled (KPROF_SAMPLE other than 1), no start is ever shared, but a stream that stays busy behind
         * the timed work known on it (a lower bound: untimed launches come between) needs no hold either:
         * held, every sampled launch of a busy loop cost a kernel launch more (docs/performance.md,
         * "Sampled modes"). */
        int sampled = kprof_config.sample != 1 && !g->capturing;
        if (g->hold == 1 && !g->lent && (g->may_share || sampled) && q->count > 0 && q->skip == 0) {
            if (g->bl->n >= 0) {
                g->ask_busy = 0; /* lend_last_stop found it too short to lend on, under the same kprof_ev.lock */
            } else {
                double most = backlog_collect(q, p, g->busy);
                g->ask_busy = most < 0.0 || most >= backlog_needed_ns();
            }
        }
    }
    /* A hold stalls every stream that shares its hardware queue, and libkprof cannot see which do: held
     * only when no other stream of the context has timed work in flight (its last stop asked below).
     * Not asked by an ordered launch (the legacy stream and blocking streams wait for each other's work
     * anyway, and their launches take turns: kprof_order_begin): unheld, the legacy stream's kernels read long
     * (docs/accuracy.md, point 12). */
    g->nbeside = g->hold > 0 && q && !t->ordered ? beside_collect(q, t->ctx, g->beside) : 0;
}

/* A stream's first timed call: whether it waits for the legacy stream (q->blocking), and its priority.
 * Without the lock. */
static void begin_ask_stream_kind(struct begin *g)
{
    if (KPROF_UNLIKELY(g->blocking < 0)) {
        int prio = 0;
        if (kprof_drv.cuStreamGetPriority && kprof_drv.cuStreamGetPriority(g->s, &prio) == CUDA_SUCCESS)
            __atomic_store_n(&g->q->priority, prio, __ATOMIC_RELAXED);
        g->blocking = kprof_stream_blocking(g->s);
        __atomic_store_n(&g->q->blocking, (signed char)g->blocking, __ATOMIC_RELAXED);
        if (g->blocking)
            kprof_order_seen(g->p, 0);
    }
}

/* The lent stop as the launch's start (its pair shares it). */
static void start_at_lent(struct kprof_timing *t, struct begin *g)
{
    g->a = g->lent;
    t->shared = 1;
    t->lent_host_ns = g->lent_host_ns;
}

/* begin_choose_start for a launch not started at an idle stream's stop: the lent stop as its start while
 * its stream stays busy, else a start of its own. */
static void choose_lent(struct kprof_timing *t, struct begin *g)
{
    struct pool *p = g->p;
    /* The lent event still pending: the stream is busy, and this launch starts where that call stopped,
     * if the stream stays busy until its kernel arrives.  KPROF_HOLD=N: a launch not drawn starts there
     * all the same (gap 1: its shape's learned offset takes the gap off, timing/offsets.c); a drawn one
     * is the reference it learns from (gap 2).  A stop recorded too recently to have been
     * seen complete is pending without a query (calibrate.h, seen_ns). */
    g->now_ns = g->lent ? kprof_now_ns() : 0;
    int unasked = g->lent && kprof_calibration_surely_pending(&p->calib, g->lent_host_ns, g->now_ns);
    if (g->lent && !unasked)
        g->now_ns = 0; /* the query below */
    int pending = g->lent && (unasked || kprof_event_query_uncaptured(g->lent) == CUDA_ERROR_NOT_READY);
    t->unasked = (unsigned char)unasked;
    /* KPROF_HOLD=N: a launch not drawn starts at the lent stop without asking whether the backlog outlasts
     * it (a query of its newest start, 0.2 to 0.6 us by host): its gap offset, learned from the drawn
     * launches among the same ones (gap 2), is their mean gap, 0 where the backlog outlasted them.  A drawn
     * one asks: it shares the start where the backlog's known lengths outlast it (its reading exact, as
     * before), and gets a start of its own otherwise, behind a kernel not yet timed too: a reference read
     * across a gap would teach that gap as the kernel's (docs/performance.md, thirty-sixth session). */
    int outlasts = pending && !t->short_backlog && t->drawn != 0 &&
                   backlog_outlasts_launch(g->bl, p, t, &g->now_ns, t->drawn > 0);
    t->gap = pending && t->drawn >= 0 ? (t->drawn ? 2 : 1) : 0;
    if (outlasts || t->gap == 1) {
        start_at_lent(t, g);
        t->tested = 1;
    } else if (g->lent && !pending && t->drawn == 0 && g->b && blind_ok(t)) {
        /* The stream found idle, a launch not drawn whose kernel reads blind: it starts at the lent stop,
         * as those between the questions do (begin_take_events), with no start of its own (1.3 to 1.5 us
         * of this thread's time on an H100, for a reading taken blind all the same: KPROF_OFFSET_IDLE). */
        start_at_lent(t, g);
        t->idle_shared = 1;
        t->tested = 2;
    } else if (g->lent) {
        t->tested = pending ? 1 : 2;
        pthread_mutex_lock(&kprof_ev.lock);
        unlend(g->q, p, g->lent, t->lent_seq);
        pthread_mutex_unlock(&kprof_ev.lock);
        if (g->b)
            g->a = event_get(p);
    }
}

/* The reserved events created, and the start chosen: the lent stop while its stream stays busy, else an
 * event of the call's own.  0 when the call stays untimed (begin_undo done). */
static int begin_choose_start(struct kprof_timing *t, struct begin *g)
{
    struct pool *p = g->p;
    g->now_ns = 0;
    if (g->cb)
        g->b = kprof_ev_pool_create(p);
    if (g->ca)
        g->a = kprof_ev_pool_create(p);

    if (t->idle_shared) /* begin_take_events: starts there, blind */
        start_at_lent(t, g);
    else
        choose_lent(t, g);
    if (!g->a || !g->b) { /* an event that could not be created (a lent stop goes back) */
        begin_undo(t, p, g->q, g->a, g->b, NULL, 0, 0);
        return 0;
    }
    return 1;
}

/* The launch's turn taken or given up, now that its stream's kind is known. */
static void begin_take_turn(struct kprof_timing *t, struct begin *g)
{
    if (t->unordered && g->blocking > 0) {
        /* A stream's first timed launch, found blocking only now: its stream's turn (or its place among the
         * stream's open calls) given back while it waits for the order lock, then taken again in that
         * order (kprof_turn_begin).  Its start is not chosen yet at a stream's first launch (nothing to
         * lend), so nothing lands between. */
        int turn = t->turn_queue != NULL;
        kprof_turn_end(t);
        kprof_order_begin(t, g->p, 1);
        if (turn) {
            pthread_mutex_lock(&kprof_ev.lock);
            kprof_turn_begin(t, g->q);
            pthread_mutex_unlock(&kprof_ev.lock);
        }
        g->now_ns = 0; /* it may have waited for its turn */
    } else if (t->unordered && !g->legacy && g->blocking == 0) {
        kprof_order_end(t, g->p); /* found non-blocking */
    }
}

/* The hold placed as decided, unless the stream stays busy or another stream has work in flight. */
static void begin_place_hold(struct kprof_timing *t, struct begin *g)
{
    struct pool *p = g->p;
    uint64_t now = g->ask_busy && !t->shared ? kprof_now_ns() : 0; /* for backlog_outlasts_launch too */
    int surely = now && kprof_calibration_surely_pending(&p->calib, g->busy->last_stop_ns, now);
    if (!surely)
        now = 0; /* asked below */
    t->unasked += (unsigned char)surely;
    if (g->ask_busy && !t->shared &&
        (surely || kprof_event_query_uncaptured(g->busy->last_stop) == CUDA_ERROR_NOT_READY) &&
        backlog_outlasts_launch(g->busy, p, t, &now, 0))
        g->hold = -g->hold; /* the stream stays busy: the pair starts behind its last work, no hold needed */
    for (int i = 0; i < g->nbeside && g->hold > 0 && !t->shared; i++)
        if (kprof_event_query_uncaptured(g->beside[i]) == CUDA_ERROR_NOT_READY) {
            g->hold = 0;
            t->beside = 1;
        }
    if (g->hold > 0 && !t->shared) { /* a word and number of its own (struct pool's holds) */
        uint64_t n = __atomic_fetch_add(&p->holds, 1, __ATOMIC_RELAXED);
        t->hold_slot = 1 + (unsigned)(n % (KPROF_HOLD_SLOTS - 1));
        t->hold_seq = (uint32_t)(1 + n / (KPROF_HOLD_SLOTS - 1));
        if (kprof_hold_place(&p->calib.hold, g->s, t->hold_slot, t->hold_seq))
            t->held = (unsigned char)g->hold;
    }
}

/* The start event recorded (unless shared), and the call's place in stream order kept in t. */
static void begin_record_start(struct kprof_timing *t, struct begin *g)
{
    if (!t->shared) {
        uint64_t before = kprof_now_ns();
        if (kprof_drv.cuEventRecord(g->a, g->s) != CUDA_SUCCESS) {
            begin_undo(t, g->p, g->q, g->a, g->b, NULL, 0, 0);
            return;
        }
        t->start_before_ns = before;
        t->start_host_ns = kprof_now_ns();
    } else {
        t->start_host_ns = g->now_ns ? g->now_ns : kprof_now_ns(); /* no driver call since g->now_ns */
    }
    if (g->chains) { /* this call's place in stream order, for the next launch's check */
        t->epoch[EPOCH_BREAK] = __atomic_load_n(&epochs[EPOCH_BREAK], __ATOMIC_RELAXED);
        t->epoch[EPOCH_LEGACY] = g->legacy ? __atomic_add_fetch(&epochs[EPOCH_LEGACY], 1, __ATOMIC_RELAXED)
                                           : __atomic_load_n(&epochs[EPOCH_LEGACY], __ATOMIC_RELAXED);
        /* Only a stream that synchronises with the legacy stream (blocking, or of a kind not known) moves
         * EPOCH_OTHER: a non-blocking stream's work never delays the legacy stream's, and threads launching
         * at once on their own non-blocking streams would move the counters' cache line between them. */
        t->epoch[EPOCH_OTHER] = g->legacy || g->blocking == 0
                                    ? __atomic_load_n(&epochs[EPOCH_OTHER], __ATOMIC_RELAXED)
                                    : __atomic_add_fetch(&epochs[EPOCH_OTHER], 1, __ATOMIC_RELAXED);
    } else {
        memset(t->epoch, 0, sizeof t->epoch); /* never read: no launch shares without chains */
    }
    t->start = g->a;
    t->stop = g->b;
    t->queue = g->q;
    t->pool = g->p;
}

static void timing_begin(struct kprof_timing *t, CUcontext ctx, cudaStream_t stream, int per_thread,
                         enum kprof_time_want want);

void kprof_timing_begin(struct kprof_timing *t, CUcontext ctx, cudaStream_t stream, int per_thread,
                        enum kprof_time_want want)
{
    timing_begin(t, ctx, stream, per_thread, want);
    /* Only now: a thread cancelled inside the begin's own driver calls leaves what it took (as before the
     * cleanup), where ending the call from fields not yet set would give the pool an event it never had. */
    t->open = 1;
}

static inline __attribute__((always_inline)) void timing_begin(struct kprof_timing *t, CUcontext ctx,
                                                               cudaStream_t stream, int per_thread,
                                                               enum kprof_time_want want)
{
    t->pool = NULL;
    t->captured = 0;
    t->broke = 0;
    t->no_context = 0;
    t->held = 0;
    t->beside = 0;
    t->traced = 0;
    t->unasked = 0;
    t->ordered = 0;
    t->unordered = 0;
    t->draw_kind = 0;
    t->gap = 0;
    t->idle_shared = 0;
    t->order_pool = NULL;
    t->turn_queue = NULL;
    t->turn = 0;
    int capturing = __atomic_load_n(&kprof_captures_active, __ATOMIC_RELAXED) > 0;
    if (want == KPROF_TIME_NONE && KPROF_UNLIKELY(__atomic_load_n(&kprof_orders_active, __ATOMIC_RELAXED)))
        kprof_order_untimed(t, ctx, stream, per_thread); /* its turn, as the timed launches take theirs */
    if (want == KPROF_TIME_NONE && KPROF_UNLIKELY(__atomic_load_n(&kprof_shared_streams_active, __ATOMIC_RELAXED)))
        kprof_turn_untimed(t, ctx, (CUstream)stream, per_thread); /* the stream's turn, if threads share it */
    if (want == KPROF_TIME_NONE && !capturing)
        return; /* KPROF_SAMPLE skips this launch, and no stream can be capturing: nothing to ask */
    struct backlog bl, busy; /* apart from g, whose fields then stay in registers */
    CUevent beside[BESIDE_ASKED];
    struct begin g;
    g.capturing = capturing;
    g.bl = &bl;
    g.busy = &busy;
    g.beside = beside;
    if (!begin_find_pool(t, &g, ctx, stream, per_thread, want))
        return;
    SEG(1);
    begin_find_queue(t, &g, want); /* kprof_ev.lock taken */
    begin_take_events(t, &g, want);
    begin_decide_hold(t, &g, want);
    if (!g.q || (!g.b && !g.cb) || (!g.lent && !g.a && !g.ca)) {
        /* Out of memory, or the pool is exhausted: this call stays untimed (no start was taken). */
        if (g.q)
            kprof_ev_pool_exhausted_once();
        begin_undo(t, g.p, g.q, NULL, g.b, g.lent, g.cb, 1);
        return;
    }
    pthread_mutex_unlock(&kprof_ev.lock);
    SEG(2);
    begin_ask_stream_kind(&g);
    if (!begin_choose_start(t, &g))
        return;
    SEG(3);
    begin_take_turn(t, &g);
    begin_place_hold(t, &g);
    SEG(4);
    begin_record_start(t, &g);
    SEG(5);
}

/* Notes q as a per-thread default stream's queue of this thread (watched for the thread's exit). */
static void queue_own(struct queue *q)
{
    int free_slot = -1;
    for (int i = 0; i < THREAD_QUEUES; i++) {
        if (tls_own_queues[i] == q)
            return;
        if (!tls_own_queues[i] || tls_own_queues[i]->key.tid != q->key.tid ||
            tls_own_queues[i]->key.stream != CU_STREAM_PER_THREAD)
            free_slot = free_slot < 0 ? i : free_slot;
    }
    if (free_slot >= 0 && watch_thread_exit())
        tls_own_queues[free_slot] = q;
}

/* The queue of t's stream (kprof_queue_for), a per-thread default stream's noted as this thread's when it
 * was looked up (not the thread's last).  kprof_ev.lock held. */
static struct queue *queue_for(const struct kprof_timing *t, struct pool *p)
{
    int looked_up;
    struct queue *q = kprof_queue_for(t, p, &looked_up);
    if (q && looked_up && q->key.stream == CU_STREAM_PER_THREAD)
        queue_own(q);
    return q;
}

/* Gives back the events of a call that will not be queued (the shared start to its first pair). */
static void timing_drop(struct kprof_timing *t)
{
    struct pool *p = t->pool;
    pthread_mutex_lock(&kprof_ev.lock);
    if (t->shared)
        unlend(t->queue, p, t->start, t->lent_seq);
    else
        kprof_ev_pool_give(p, t->start);
    kprof_ev_pool_give(p, t->stop);
    pthread_mutex_unlock(&kprof_ev.lock);
}

static int timing_end(struct kprof_timing *t, int ok, enum kprof_target_kind kind, void *target, uint64_t bytes,
                      const unsigned *grid, const unsigned *block);

int kprof_timing_end(struct kprof_timing *t, int ok, enum kprof_target_kind kind, void *target,
                     uint64_t bytes, const unsigned *grid, const unsigned *block)
{
    int counted = t->pool != NULL; /* in flight since begin_find_pool */
    t->open = 0;
    t->end_ns = 0;
    int r = timing_end(t, ok, kind, target, bytes, grid, block);
    kprof_turn_end(t); /* once the pair is queued: the stream's next call comes after it */
    if (counted)
        __atomic_sub_fetch(kprof_ev_flight(), 1, __ATOMIC_RELEASE);
    return r;
}

void kprof_timing_abandon(struct kprof_timing *t)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        kprof_info("a thread was cancelled inside a timed CUDA call: the call is left out of the report");
    /* A runtime launch's delegate (wrap_launch.h) lay in the frame the unwinding leaves: a launch from the
     * app's own cleanup (a C++ destructor) on this thread would have used it (a SEGV, a break-it helper). */
    kprof_tls_delegate = NULL;
    kprof_timing_end(t, 0, KPROF_TARGET_KERNEL, NULL, 0, NULL, NULL);
}

/* kprof_timing_end, but for the in-flight count. */
static int timing_end(struct kprof_timing *t, int ok, enum kprof_target_kind kind, void *target, uint64_t bytes,
                      const unsigned *grid, const unsigned *block)
{
    struct pool *p = t->pool;
    if (!p) {
        if (KPROF_UNLIKELY(t->order_pool != NULL)) { /* an untimed launch's turn (kprof_order_untimed) */
            kprof_order_end(t, t->order_pool);
            t->order_pool = NULL;
        }
        if (t->broke)
            kprof_chain_break();
        return 0;
    }
    /* Kernel launches only: a copy or memset call may itself wait for its work (pageable memory), and
     * then the host time is the work, not the latency before it.  A shared start means a busy stream.
     * No query while any stream capture is in progress: a global-mode capture forbids it. */
    uint64_t lag = 0, now = 0, mark_ns = 0;
    CUevent mark = NULL;
    int unasked_held = 0, unasked_cheap = 0, blind = 0; /* the idle question left out, and why */
    if (ok && kind != KPROF_TARGET_COPY) {
        now = kprof_now_ns(); /* also the launch call's end (struct pair's launch_ns) */
        /* Held, the start has completed only if kprof_hold gave up waiting (a host descheduled for longer
         * than its timeout): then as on an idle stream.  It cannot have given up before its timeout, which
         * runs from when the GPU began it, after it was placed: not asked until half of that has passed.
         * (A cuEventQuery costs the launching thread 1.3 to 2 us on an H200, as much as a record.) */
        int surely = !t->shared && kprof_calibration_surely_pending(&p->calib, t->start_before_ns, now);
        t->unasked += (unsigned char)surely;
        unasked_held = !t->shared && !surely && t->held && now - t->start_before_ns < KPROF_HOLD_TIMEOUT_NS / 2;
        surely |= unasked_held;
        /* KPROF_HOLD=N, a launch not drawn: read with its shape's learned offset (timing/offsets.c), which
         * brings the mean of such launches to that of the drawn ones whatever each was read as, so whether
         * its stream was idle only spreads its own reading: not asked (the pair is blind, and its offset
         * always taken off: KPROF_OFFSET_BLIND) once the references' mean is known closely for every shape
         * of its kernel with that kind of hold (struct kprof_kernel's blind_ok); until then asked, and the
         * offset left off while within its standard error of 0, the launches counting as they read (a
         * kernel whose lengths spread widely reads exactly).  (Until the twentieth session asked unless
         * the timed work known on the stream surely ran on past the launch's return: in the eager decode
         * loop nearly every launch asked, 1.5 to 1.7 us on an H200; docs/performance.md.) */
        int idle = 0;
        blind = !t->shared && !surely && !t->held && t->drawn == 0 && t->queue && kind == KPROF_TARGET_KERNEL &&
                blind_ok(t);
        if (blind)
            unasked_cheap = 1;
        else if (!t->shared && !surely)
            idle = kprof_event_query_uncaptured(t->start) == CUDA_SUCCESS;
        if (idle) {
            lag = now - t->start_host_ns; /* the stream was idle: see timing.h */
            if (t->held)
                t->held = 3;
        }
        SEG(7);
        double took = (double)(now - t->start_host_ns);
        tls_launch_ns = tls_launch_ns > 0.0 ? tls_launch_ns + (took - tls_launch_ns) / 8.0 : took;
    }
    int stopped = ok && kprof_drv.cuEventRecord(t->stop, t->stream) == CUDA_SUCCESS;
    uint64_t stop_ns = stopped && now ? kprof_now_ns() : 0; /* kernels: struct pair's stop_host_ns */
    t->end_ns = stop_ns;
    SEG(8);
    if (stopped && t->held == 3) /* after the stop, which it would otherwise delay past a short kernel */
        mark = late_mark(p, now, &mark_ns);
    uint64_t hold_ns = 0;
    int overdue = 0;
    if (t->held) { /* the start, the kernel and the stop are queued: let the GPU run them */
        uint64_t released = stop_ns ? stop_ns : kprof_now_ns();
        if (now && t->held != 3)
            hold_ns = released - now; /* the kernel waited for this, which it would not unheld */
        /* Placed just before the start was recorded: held longer than kprof_hold waits (hold.h). */
        overdue = released - t->start_before_ns > KPROF_HOLD_TIMEOUT_NS;
        kprof_hold_release(&p->calib.hold, t->hold_slot, t->hold_seq);
    }
    kprof_order_end(t, p);
    if (!stopped) {
        timing_drop(t);
        if (overdue) {
            pthread_mutex_lock(&kprof_ev.lock);
            kprof_ev.n.holds_overdue++;
            pthread_mutex_unlock(&kprof_ev.lock);
        }
        kprof_chain_break(); /* the call may have run, untimed */
        return 0;
    }

    SEG(9);
    SEG_LOCK(&kprof_ev.lock, 1);
    struct queue *q = t->queue;
    if (q->count == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        struct pair *r = malloc(cap * sizeof *r);
        if (r) {
            for (size_t i = 0; i < q->count; i++)
                r[i] = *kprof_ring_at(q, i);
            free(q->ring);
            q->ring = r;
            q->head = 0;
            q->cap = cap;
        }
    }
    if (q->count == q->cap) {
        /* Out of memory: the call stays untimed; the stop event may still be pending, so keep both
         * events out of the pool rather than risk re-recording one in flight. */
        kprof_ev.n.failed++;
        pthread_mutex_unlock(&kprof_ev.lock);
        kprof_chain_break();
        return 0;
    }
    kprof_ev_queue_drop_kept(q); /* not this launch's start (lend took it): the stream's last stop is now pr's */
    struct pair *pr = kprof_ring_at(q, q->count);
    pr->start = t->start;
    pr->stop = t->stop;
    pr->mark = mark;
    pr->mark_ns = mark_ns;
    pr->kind = kind;
    pr->target = target;
    pr->weight = kind != KPROF_TARGET_COPY && kprof_config.sample == 0 ? kprof_tls_sample_weight : 1.0f;
    pr->auto_weight = kind != KPROF_TARGET_COPY && kprof_config.auto_check ? kprof_tls_sample_weight : 0.0f;
    pr->bytes = bytes;
    pr->idle_lag_ns = lag;
    pr->start_host_ns = t->start_before_ns;
    pr->call_ns = t->start_host_ns;
    pr->launch_ns = now ? now - t->start_host_ns : 0;
    pr->hold_ns = hold_ns;
    pr->stop_host_ns = stop_ns;
    pr->start_rec_ns = t->shared ? t->lent_host_ns : t->start_before_ns;
    pr->start_rec_before_ns = t->shared ? t->lent_before_ns : 0;
    for (int i = 0; i < 3; i++) {
        pr->grid[i] = grid ? grid[i] : 0;
        pr->block[i] = block ? block[i] : 0;
        pr->epoch[i] = t->epoch[i];
    }
    pr->pool = p;
    pr->own_stop = 1;
    pr->shared = t->shared;
    pr->late = t->held == 3;
    pr->overdue = overdue && t->held != 3;
    /* KPROF_HOLD=N, a start of its own: drawn, a reference for its kind (not when its hold gave up, in the
     * launch call or before the stop's record); not drawn, read with the offset learned from those (a
     * shared start: the gap's, below). */
    pr->unheld = t->drawn == 0 && (!t->shared || t->idle_shared) ? t->draw_kind : 0;
    pr->blind = (unsigned char)(blind || t->idle_shared);
    pr->hold_ref = t->drawn > 0 && !t->shared && t->held != 3 && !overdue ? t->draw_kind : 0;
    pr->gap = t->gap;
    pr->early = t->drawn == 2; /* a reference among its shape's first launches */
    pr->thin = t->drawn == 1 ? t->draw_thin : 0;
    pr->check_held = t->check_held;
    pr->pred = t->held == 1   ? KPROF_PRED_HELD
               : t->held == 2 ? KPROF_PRED_HELD_KERNEL
                              : t->pred; /* 3: kprof_hold gave up, lag is set and the pair is read as idle */
    q->last_pred = kprof_pred_of(kind, target);
    if (q->last_pred == KPROF_PRED_HTOD && bytes >= BESIDE_MIN_BYTES) /* kprof_big_htod: harvest.c looks */
        __atomic_store_n(&p->htod_queued, p->htod_queued + 1, __ATOMIC_RELAXED);
    pr->fills = kind != KPROF_TARGET_COPY && grid && block && kprof_fills(p, pr->grid, pr->block);
    if (pr->fills) { /* harvest.c, past_filling */
        __atomic_store_n(&p->fill_queued, p->fill_queued + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&q->fills_queued, q->fills_queued + 1, __ATOMIC_RELAXED);
    }
    q->host_fn = 0;
    pr->seq = q->pushed;
    pr->start_seq = t->lent_seq;
    q->count++;
    q->pushed++;
    /* A stream found idle twice in a row is asked again only every IDLE_SKIP + 1 launches: on an idle
     * stream the question costs a query and an extra lock for nothing. */
    if (t->tested == 1) {
        q->idle_streak = 0;
    } else if (t->tested == 2 && ++q->idle_streak >= 2) {
        q->skip = IDLE_SKIP;
    }
    kprof_ev.pending++;
    kprof_ev.n.one_event += t->shared;
    kprof_ev.n.held += t->held == 1;
    kprof_ev.n.held_kernel += t->held == 2;
    kprof_ev.n.beside_busy += t->beside;
    kprof_ev.n.not_held_traced += t->traced;
    kprof_ev.n.unheld_drawn += pr->unheld != 0;
    kprof_ev.n.gap_shared += t->gap == 1;
    kprof_ev.n.unasked += t->unasked;
    kprof_ev.n.unasked_held += unasked_held;
    kprof_ev.n.unasked_cheap += unasked_cheap;
    kprof_ev.n.holds_overdue += overdue;
    if (!kprof_ev.harvester_started && !kprof_ev.harvester_stop)
        kprof_ev_start_harvester();
    else if (kprof_ev.harvester_sleeping)
        pthread_cond_signal(&kprof_ev.wake);
    pthread_mutex_unlock(&kprof_ev.lock);
    SEG(10);
    return 1;
}
