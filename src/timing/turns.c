/* turns.c: streams shared by threads.
 * A pair's start, its work and its stop are three calls: on a stream that several threads launch on,
 * another thread's work queued between them lands inside the pair, which reads it as its own (8 threads
 * alternating a long and a 1 us kernel on one non-blocking stream of an H100: the short one read up to
 * 1.6 ms), and the pairs reach the stream's queue in another order than the stream runs them.  Once a
 * second thread times a call on a stream (struct queue's threads), each call on it takes the stream's turn
 * from before its start until its pair is queued; calls begun before that are counted in q->open, and the
 * first call to take the turn waits for them.  A thread's first pairs on such a stream may still hold
 * another's work (its own first timed call is what tells libkprof the stream is shared).  Launches that
 * hold their context's order lock (order.c) take the turn too, after it; a per-thread default stream is
 * one thread's. */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "clock.h"
#include "contexts.h"
#include "log.h"
#include "resolve.h"
#include "timing.h"
#include "timing_internal.h"

int kprof_shared_streams_active;
int kprof_untimed_turns;

/* The queue whose turn this thread holds (a nested timed call on the same stream does not wait for it). */
static __thread struct queue *tls_turn_held __attribute__((tls_model("initial-exec")));

/* Takes q's turn, then waits for the calls begun on it without the turn to be queued: 200 ms at most each
 * (a launch may block in the driver behind work that waits for the app's other threads; then the call goes
 * on without the turn).  Sets t->turn_queue and t->turn.  Without kprof_ev.lock. */
static void stream_turn_take(struct kprof_timing *t, struct queue *q)
{
    if (tls_turn_held == q)
        return;
    if (!kprof_turnlock_take(&q->turn, 200)) {
        static int said;
        if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
            kprof_info("a call waited 200 ms for another thread's timed call on the same stream; timed without "
                       "waiting");
        return;
    }
    t->turn_queue = q;
    t->turn = 2;
    tls_turn_held = q;
    uint64_t give_up = 0;
    while (__atomic_load_n(&q->open, __ATOMIC_SEQ_CST) > 0) {
        uint64_t now = kprof_now_ns();
        if (!give_up)
            give_up = now + 200000000u;
        else if (now >= give_up)
            break;
        sched_yield();
    }
}

/* A timed call on q (kprof_ev.lock held): counted in q->open while q is one thread's; on a stream another
 * thread has timed calls on, its turn taken (kprof_ev.lock released meanwhile).  Not on a per-thread default
 * stream.  A launch that holds its context's order lock takes the turn too (copies on its stream take no
 * order lock, only the turn): the order lock is always taken first, and a call never waits for it while it
 * holds a turn or is counted in q->open (begin_take_turn gives them back first), since the order lock's
 * holder may wait for a call that waits for the turn (kprof_order_begin waits for the unordered calls). */
void kprof_turn_begin(struct kprof_timing *t, struct queue *q)
{
    if (!q || q->key.stream == CU_STREAM_PER_THREAD)
        return;
    if (KPROF_LIKELY(!__atomic_load_n(&q->threads, __ATOMIC_RELAXED))) {
        unsigned long self = (unsigned long)pthread_self();
        if (q->owner == 0)
            q->owner = self;
        if (q->owner == self) {
            __atomic_add_fetch(&q->open, 1, __ATOMIC_SEQ_CST);
            t->turn_queue = q;
            t->turn = 1;
            return;
        }
        __atomic_store_n(&q->threads, 1, __ATOMIC_SEQ_CST);
        if (!__atomic_load_n(&kprof_shared_streams_active, __ATOMIC_RELAXED)) {
            __atomic_store_n(&kprof_shared_streams_active, 1, __ATOMIC_SEQ_CST);
            __atomic_store_n(&kprof_untimed_turns, 1, __ATOMIC_SEQ_CST);
        }
    }
    pthread_mutex_unlock(&kprof_ev.lock);
    stream_turn_take(t, q);
    pthread_mutex_lock(&kprof_ev.lock);
}

/* The queue this thread's last untimed launch found for its stream, and kprof_ev_queues_retired then: a
 * launch loop finds it again without kprof_ev.lock (queues are never freed, and one not retired since is
 * still its stream's). */
static __thread struct {
    CUcontext ctx;
    CUstream stream;
    unsigned long retired;
    struct queue *q;
} tls_untimed_queue __attribute__((tls_model("initial-exec")));

/* A launch left untimed (KPROF_SAMPLE) once kprof_shared_streams_active: on a stream shared by threads it
 * takes the turn too, so that it does not land inside another thread's pair. */
void kprof_turn_untimed(struct kprof_timing *t, CUcontext ctx, CUstream stream, int per_thread)
{
    if (ctx == NULL && kprof_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        return;
    if (ctx == NULL || (stream == NULL && per_thread) || stream == CU_STREAM_PER_THREAD)
        return;
    CUstream s = stream == NULL ? CU_STREAM_LEGACY : stream;
    unsigned long retired = __atomic_load_n(&kprof_ev_queues_retired, __ATOMIC_SEQ_CST);
    struct queue *q = tls_untimed_queue.q;
    if (!q || tls_untimed_queue.ctx != ctx || tls_untimed_queue.stream != s || tls_untimed_queue.retired != retired) {
        struct qkey key = kprof_queue_key(ctx, s, 0);
        pthread_mutex_lock(&kprof_ev.lock);
        HASH_FIND(hh, kprof_ev.queues, &key, sizeof key, q);
        pthread_mutex_unlock(&kprof_ev.lock);
        if (!q)
            return; /* no call timed on the stream yet: not cached, the next launch asks again */
        tls_untimed_queue.ctx = ctx;
        tls_untimed_queue.stream = s;
        tls_untimed_queue.retired = retired;
        tls_untimed_queue.q = q;
    }
    if (__atomic_load_n(&q->threads, __ATOMIC_RELAXED))
        stream_turn_take(t, q);
}

/* A thread's call made while it has no current context (its first, as a rule: the call will make the
 * context current, and stays untimed): it still takes part in its stream's turns as a timed call does
 * (kprof_turn_begin: the stream's first thread, counted in its open calls, or another, its turn taken),
 * so that its work does not land inside another thread's pair (a break-it helper: a thread's first
 * cudaMemcpyAsync on a blocking stream inside another thread's kernel pair, 1049 us for a 1 us kernel).
 * The stream's context is asked of the stream itself, and only a context libkprof already times in (its
 * pool made) is looked at; the legacy and per-thread default streams are left out (their context is the
 * one the call will make current).  A launch left untimed by KPROF_SAMPLE (`sampled_out`) takes its
 * context's order lock first where launches are ordered (order.c), as a timed one does. */
void kprof_turn_first_call(struct kprof_timing *t, CUstream stream, int sampled_out, int per_thread)
{
    CUcontext ctx = NULL;
    if (stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD || !kprof_drv.cuStreamGetCtx ||
        kprof_drv.cuStreamGetCtx(stream, &ctx) != CUDA_SUCCESS || ctx == NULL)
        return;
    if (sampled_out && KPROF_UNLIKELY(__atomic_load_n(&kprof_orders_active, __ATOMIC_RELAXED)))
        kprof_order_untimed(t, ctx, (cudaStream_t)stream, per_thread); /* the order lock first, then the turn */
    struct pool *p = kprof_ev_pool_find(ctx);
    if (!p || __atomic_load_n(&p->dead, __ATOMIC_RELAXED) || __atomic_load_n(&kprof_ev.teardowns, __ATOMIC_SEQ_CST))
        return;
    t->ctx = ctx;
    t->stream = stream;
    pthread_mutex_lock(&kprof_ev.lock);
    kprof_turn_begin(t, kprof_queue_for(t, p, NULL)); /* never a per-thread stream's */
    pthread_mutex_unlock(&kprof_ev.lock);
}

void kprof_timing_untimed_first_call(struct kprof_timing *t, cudaStream_t stream, int per_thread)
{
    if (!t->turn_queue && !t->order_pool && kprof_driver_is_initialized())
        kprof_turn_first_call(t, (CUstream)stream, 1, per_thread);
}

void kprof_turn_give(struct kprof_timing *t)
{
    struct queue *q = t->turn_queue;
    if (t->turn == 2) {
        tls_turn_held = NULL;
        kprof_turnlock_give(&q->turn);
    } else {
        __atomic_sub_fetch(&q->open, 1, __ATOMIC_SEQ_CST);
    }
    t->turn_queue = NULL;
    t->turn = 0;
}
