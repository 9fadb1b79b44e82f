/* order.c: the ordering of timed launches on streams that wait for each other (docs/accuracy.md, point
 * 11): the legacy default stream and the blocking streams of a context. */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include "clock.h"
#include "log.h"
#include "resolve.h"
#include "timing_internal.h"

int kprof_orders_active;

/* The legacy default stream and the blocking streams of a context wait for each other's work (CUDA
 * Runtime API, "Stream synchronization behavior").  A pair is queued in three calls (four with its hold):
 * work another thread queues between them on a stream that synchronises with this one is waited for by
 * the kernel or by the stop, and the pair reads it as its own (docs/accuracy.md, point 11).  So once both
 * kinds have been timed in the context, such launches are queued one whole pair at a time: another
 * thread's launch comes before the pair (which then waits for it, as its kernel would) or after it.
 * Waited for 200 ms at most (a launch may block in the driver behind work that waits for the app's other
 * threads): then unordered. */
static void order_launch(struct kprof_timing *t, struct pool *p)
{
    if (!kprof_turnlock_take(&p->order, 200)) {
        static int said;
        if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
            kprof_info("a launch waited 200 ms for another thread's timed launch; timed without waiting");
        return;
    }
    t->ordered = 1;
    /* Launches begun before both kinds were seen hold no lock: let them be queued whole first. */
    uint64_t give_up = kprof_now_ns() + 200000000u;
    while (__atomic_load_n(&p->unordered, __ATOMIC_SEQ_CST) > 0 && kprof_now_ns() < give_up)
        sched_yield();
}

/* Whether timed launches on the legacy stream and on blocking streams must be ordered in p. */
static int order_needed(struct pool *p)
{
    int needed = __atomic_load_n(&p->blocking_seen, __ATOMIC_SEQ_CST) && __atomic_load_n(&p->legacy_seen, __ATOMIC_SEQ_CST);
    if (needed && !__atomic_load_n(&kprof_orders_active, __ATOMIC_RELAXED)) {
        __atomic_store_n(&kprof_orders_active, 1, __ATOMIC_SEQ_CST); /* untimed launches take turns too */
        __atomic_store_n(&kprof_untimed_turns, 1, __ATOMIC_SEQ_CST);
    }
    return needed;
}

/* The count comes before the second look at the flags, and a flag is set before its setter looks at the
 * count. */
void kprof_order_begin(struct kprof_timing *t, struct pool *p, int sync)
{
    if (t->unordered) {
        t->unordered = 0;
        __atomic_sub_fetch(&p->unordered, 1, __ATOMIC_SEQ_CST);
    }
    if (sync && order_needed(p)) {
        order_launch(t, p);
        return;
    }
    t->unordered = 1;
    __atomic_add_fetch(&p->unordered, 1, __ATOMIC_SEQ_CST);
    if (sync && order_needed(p)) {
        t->unordered = 0;
        __atomic_sub_fetch(&p->unordered, 1, __ATOMIC_SEQ_CST);
        order_launch(t, p);
    }
}

void kprof_order_end(struct kprof_timing *t, struct pool *p)
{
    if (t->ordered) {
        t->ordered = 0;
        kprof_turnlock_give(&p->order);
    }
    if (t->unordered) {
        t->unordered = 0;
        __atomic_sub_fetch(&p->unordered, 1, __ATOMIC_SEQ_CST);
    }
}

int kprof_stream_blocking(CUstream s)
{
    unsigned flags = 0;
    return !kprof_drv.cuStreamGetFlags || kprof_drv.cuStreamGetFlags(s, &flags) != CUDA_SUCCESS ||
           !(flags & CU_STREAM_NON_BLOCKING);
}

void kprof_order_seen(struct pool *p, int legacy)
{
    __atomic_store_n(legacy ? &p->legacy_seen : &p->blocking_seen, 1, __ATOMIC_SEQ_CST);
    order_needed(p);
}

void kprof_order_untimed(struct kprof_timing *t, CUcontext ctx, CUstream stream, int per_thread)
{
    if (ctx == NULL && kprof_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        return;
    struct pool *p = kprof_ev_tls_pool; /* the thread's last pool: no lock in the common case */
    if (!p || p->ctx != ctx || __atomic_load_n(&p->dead, __ATOMIC_RELAXED))
        p = ctx ? kprof_ev_pool_find(ctx) : NULL;
    if (!p || !order_needed(p))
        return;
    /* The legacy default stream, a per-thread default stream (it synchronises with the legacy stream), or
     * a stream not created non-blocking. */
    int sync = stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD || per_thread;
    if (!sync && !kprof_stream_blocking(stream))
        return;
    kprof_order_begin(t, p, 1);
    if (t->ordered || t->unordered)
        t->order_pool = p;
}
