/* queues.c: the timing layer's stream queues (queue.h), found by their key or made on first use, and what
 * libkprof learns of a stream outside its timed calls (kprof_stream_other).  Each thread finds the queue of
 * its last timed call again without hashing (tls_queue).  kprof_ev.lock guards the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "devices.h"
#include "resolve.h"
#include "timing.h"
#include "transfers.h"
#include "timing_internal.h"

/* The key of stream's queue in ctx: NULL is the legacy default stream, or the per-thread one where
 * per_thread; a per-thread default stream's key holds the calling thread's id (each thread its own). */
struct qkey kprof_queue_key(CUcontext ctx, CUstream stream, int per_thread)
{
    struct qkey key;
    memset(&key, 0, sizeof key); /* no padding left unset in the hashed bytes */
    key.ctx = ctx;
    key.stream = stream != NULL ? stream : per_thread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    key.tid = key.stream == CU_STREAM_PER_THREAD ? (long)gettid() : 0;
    return key;
}

/* The queue this thread last timed a call on: launch loops find theirs without hashing the key (queues
 * are never freed; a retired one's key is cleared, so it matches no stream). */
static __thread struct queue *tls_queue __attribute__((tls_model("initial-exec")));

/* A new queue for key in pool p: a spare one of p's if there is one (its ring, trace row and first name
 * kept), else a new one (*fresh set); NULL when out of memory.  kprof_ev.lock held. */
static struct queue *queue_new(struct pool *p, const struct qkey *key, int *fresh)
{
    struct queue *q = p->spare;
    *fresh = q == NULL;
    if (q) {
        p->spare = q->next_spare;
        struct pair *ring = q->ring;
        size_t cap = q->cap;
        unsigned index = q->index, later = q->later;
        char name[sizeof q->name];
        memcpy(name, q->name, sizeof name);
        memset(q, 0, sizeof *q);
        q->ring = ring;
        q->cap = cap;
        q->index = index;
        q->later = later + 1;
        memcpy(q->name, name, sizeof name);
    } else if (!(q = calloc(1, sizeof *q)))
        return NULL;
    q->key = *key;
    q->pool = p;
    q->last_pred = KPROF_PRED_UNKNOWN; /* whatever the app put there before libkprof timed anything */
    q->blocking = key->stream == CU_STREAM_LEGACY ? 0 : key->stream == CU_STREAM_PER_THREAD ? 1 : -1;
    return q;
}

struct queue *kprof_queue_for(const struct kprof_timing *t, struct pool *p, int *looked_up)
{
    struct qkey key = kprof_queue_key(t->ctx, t->stream, 0);
    struct queue *q = tls_queue;
    if (looked_up)
        *looked_up = 0;
    if (q && q->key.ctx == key.ctx && q->key.stream == key.stream && q->key.tid == key.tid) {
        if (KPROF_UNLIKELY(q->gone))
            q->gone = 0; /* a new stream given a destroyed one's handle, or a new thread its id */
        return q;
    }
    HASH_FIND(hh, kprof_ev.queues, &key, sizeof key, q);
    if (q) {
        q->gone = 0;
        if (looked_up)
            *looked_up = 1;
        return tls_queue = q;
    }
    int fresh;
    q = queue_new(p, &key, &fresh);
    if (!q)
        return NULL;
    if (q->blocking == 1)
        kprof_order_seen(p, 0);
    HASH_ADD(hh, kprof_ev.queues, key, sizeof key, q);
    struct queue *found;
    HASH_FIND(hh, kprof_ev.queues, &key, sizeof key, found);
    if (found != q) { /* uthash ran out of memory and did not add it */
        q->next_spare = p->spare; /* its ring may be in use as a spare's; kept */
        p->spare = q;
        return NULL;
    }
    char name[sizeof q->name];
    if (key.stream == CU_STREAM_LEGACY)
        snprintf(name, sizeof name, "legacy default stream");
    else if (key.stream == CU_STREAM_PER_THREAD)
        snprintf(name, sizeof name, "per-thread default stream (thread %ld)", key.tid);
    else
        snprintf(name, sizeof name, "stream %u (%p)", ++p->nstreams, (void *)key.stream);
    if (fresh) {
        q->index = kprof_ev.nqueues++;
        memcpy(q->name, name, sizeof name);
        kprof_stream_named(q->index, p->device, name);
    } else {
        char row[sizeof name * 3];
        snprintf(row, sizeof row, "%s, then %u later stream%s: the last %s", q->name, q->later,
                 q->later == 1 ? "" : "s", name);
        kprof_stream_named(q->index, p->device, row);
    }
    if (looked_up)
        *looked_up = 1;
    return tls_queue = q;
}

void kprof_stream_other(CUstream stream, int per_thread, int pred)
{
    CUcontext ctx = NULL;
    /* A stream destroyed while another context is current, as CUDA allows (a device's context left current
     * by another library): the queue is its own context's, which cuStreamGetCtx gives; the current
     * context's key found none, and a later stream given the handle took the destroyed one's queue as its
     * own (tests/stream-destroyed-under-another-context-retired.sh).  Only then: a driver call more on
     * every other untimed operation would cost each its time. */
    if (pred == KPROF_STREAM_DESTROYED && stream && stream != CU_STREAM_LEGACY && stream != CU_STREAM_PER_THREAD &&
        kprof_drv.cuStreamGetCtx && kprof_drv.cuStreamGetCtx(stream, &ctx) == CUDA_SUCCESS && ctx) {
        /* ctx: the stream's own */
    } else if (kprof_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx)
        return;
    struct qkey key = kprof_queue_key(ctx, stream, per_thread);
    struct queue *q;
    pthread_mutex_lock(&kprof_ev.lock);
    HASH_FIND(hh, kprof_ev.queues, &key, sizeof key, q);
    if (q && pred == KPROF_STREAM_DESTROYED) {
        __atomic_store_n(&q->blocking, (signed char)-1, __ATOMIC_RELAXED); /* asked again at its next launch */
        q->last_pred = KPROF_PRED_UNKNOWN;
        q->host_fn = 0;
        q->gone = 1; /* retired by the harvester once its pairs are read */
        kprof_ev_queue_drop_kept(q);
    } else if (q && pred == KPROF_STREAM_HOST_FUNCTION)
        q->host_fn = 1;
    else if (q)
        q->last_pred = (unsigned char)pred;
    pthread_mutex_unlock(&kprof_ev.lock);
}
