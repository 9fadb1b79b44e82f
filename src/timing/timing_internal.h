/* timing_internal.h: the timing layer's private structs and shared state (src/timing/'s files only). */
#ifndef KPROF_TIMING_INTERNAL_H
#define KPROF_TIMING_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "calibrate.h"
#include "timing.h"
#include "queue.h"
#include "transfers.h"

/* Reference events: each pair's start is read against a reference event recorded on libkprof's own
 * stream, whose time on the process timeline is known.  cuEventElapsedTime gives float milliseconds, so
 * a new reference is recorded every REF_PERIOD_NS while calls are timed, keeping that float under a
 * second (error < 0.1 us). */
#define REF_PERIOD_NS 500000000ull
#define REF_RING 8
/* HtoD copies of a pool read last, kept to tell whether a kernel started beside one (harvest.c): a kernel
 * pair read after HTOD_RING more such copies of its context have been read misses the one it started
 * beside (the harvester reads pairs within a ms or so of their end; a program that waits for its copies
 * and kernels together may leave hundreds unread) */
#define HTOD_RING 256
/* Only HtoD copies this long count as delaying the kernels beside them: the delay was calibrated beside
 * 8 MiB copies, and 1 MiB copies on 8 streams (pipeline_8threads) delayed kernels far less (on an H200:
 * docs/accuracy.md, "An HtoD copy beside"). */
#define BESIDE_MIN_BYTES (4u << 20)
/* Kernels that filled their device (kprof_fills) read last, kept to tell whether a kernel of another
 * stream started while one ran (harvest.c, past_filling); as HTOD_RING. */
#define FILL_RING 256

struct ref {
    CUevent ev;
    uint64_t host_done_ns; /* host clock once its record had returned */
    double base_ns;        /* its time on the process timeline (ns since libkprof started) */
    double host_ns;        /* the host clock when the GPU stamped it (ns since libkprof started): its
                              record's start plus the pool's stamp_lag_ns; base_ns chains GPU time from
                              reference to reference, this re-anchors each on the host clock, for the
                              queue time (docs/accuracy.md) */
};

/* The kinds of hold KPROF_HOLD=N learns an offset for (timing/offsets.c): the situation of a launch
 * that gets a start of its own, or shares one across a possible gap. */
enum kprof_offset_kind {
    KPROF_OFFSET_NONE,
    KPROF_OFFSET_HELD,        /* a start of its own where the stream's last work was a kernel or a wait */
    KPROF_OFFSET_HELD_KERNEL, /* the same behind a copy, memset or host function */
    KPROF_OFFSET_GAP,         /* a busy stream whose known work may end before the kernel arrives: a
                                 start shared (struct pair's gap 1), or of its own (gap 2, the reference) */
    KPROF_OFFSET_KINDS
};


/* A context's reusable events, its private stream and references.  Pools are never freed: a context's
 * events die with the context. */
struct offset;
struct joint_test;
struct pool {
    CUcontext ctx;
    int device;
    CUevent *free;
    size_t nfree, cap;
    long created;
    long kept;                   /* of its events, the stops kept by queues (queue.h, kept; kprof_ev.lock) */
    CUstream own;                /* libkprof's non-blocking stream for references; NULL if none */
    struct ref refs[REF_RING];   /* refs[0] newest */
    int nrefs;
    CUevent pending_ref;         /* recorded, not yet placed on the timeline (kprof_ev.lock; stored atomically, so
                                    that pair_account may look without it) */
    uint64_t pending_before_ns, pending_host_done_ns, last_request_ns;
    double stamp_lag_ns;         /* host time from the start of an event record on the idle private stream
                                    to the GPU's stamp of it, measured when the pool was made (pool.c) */
    int ref_busy;                /* a thread is recording a reference (kprof_ev.lock) */
    unsigned nstreams;           /* streams of this context seen so far */
    uint64_t holds;              /* holds placed so far (atomic): hold n waits on word 1 + n % (SLOTS - 1)
                                    (word 0 is calibration's) for the number 1 + n / (SLOTS - 1), so that
                                    each hold has a word and number of its own, also when threads launch
                                    on one stream at once (a release never ends another thread's hold) */
    int blocking_seen;           /* a stream that synchronises with the legacy default stream (a blocking
                                    stream, a per-thread default stream) has been timed (atomic) */
    int legacy_seen;             /* the legacy default stream has been timed (atomic) */
    struct kprof_turnlock order; /* once both have been seen: held by a timed launch on the legacy stream or
                                    a blocking one from before its hold to after its stop (see
                                    order_launch); held across driver calls, so waited for a bounded time */
    int unordered;               /* launches in flight on such streams (or on streams of a kind not known
                                    yet) begun before both were seen, so not holding `order` (atomic) */
    struct kprof_calibration calib; /* this context's hand-offs, measured before its first pair */
    struct offset *offsets;      /* KPROF_HOLD=N's learned offsets (offsets.c; harvest passes only) */
    struct offset *offsets_dirty; /* those read from since the last settle (offsets.c) */
    struct joint_test *joints;   /* each kernel and kind's joint test (offsets.c; harvest passes only) */
    long htod_queued;            /* HtoD copies of BESIDE_MIN_BYTES or more queued, not read yet (kprof_ev.lock;
                                    read atomically by harvest.c's beside_htod) */
    /* Harvest passes only: the last HTOD_RING HtoD copies of BESIDE_MIN_BYTES or more read, on the timeline
     * (ns since libkprof started: the start, the end) and their stream's queue number; nhtod counts every
     * one read. */
    struct { double t0, t1; unsigned queue; } htod[HTOD_RING];
    unsigned long nhtod;
    /* The device's SMs, and the most threads and blocks one SM holds at once (0: not known), for
     * kprof_fills; asked when the pool's timeline starts. */
    unsigned sms, sm_threads, sm_blocks;
    long fill_queued;            /* kernels that fill the device queued, not read yet (as htod_queued) */
    /* Harvest passes only: the last FILL_RING kernels that filled the device read, on the timeline (their
     * kernel's start, their stop), their stream's queue number and priority; nfill counts every one read. */
    struct { double t0, t1; unsigned queue; int priority; } fill[FILL_RING];
    unsigned long nfill;
    unsigned fill_queue;         /* the queue of the first one read */
    int fill_queues;             /* another queue's read since: until then a pair of fill_queue has none to
                                    look past (a one-stream program of big kernels skips past_filling) */
    int dead;                    /* its context was destroyed: never used again */
    struct queue *spare;         /* retired queues, for its next streams (kprof_ev.lock; queue.h, gone) */
    struct pool *next;
};

/* Locking: kprof_ev.lock guards the pools' lists, the queues and the counters, and is never held across a
 * driver call (a driver's own fork handlers take its locks, and libkprof's must not wait on them).  One
 * harvest pass runs at a time, claimed with the `harvesting` flag rather than a lock for the same reason. */
/* Shards of kprof_ev.in_flight: threads past this many share them in turn. */
#define KPROF_FLIGHT_SHARDS 8

struct kprof_ev {
    pthread_mutex_t lock;         /* pools, queues and counters */
    pthread_cond_t wake;          /* harvester: work arrived or stop */
    int harvesting;               /* a harvest pass is running (atomic) */
    int forking;                  /* fork() in progress: no new harvest pass (atomic) */
    int settle_all;               /* the next harvest pass settles every learned offset (atomic; offsets.c) */
    struct pool *pools;
    struct queue *queues;         /* uthash by qkey */
    unsigned nqueues;
    long pending;
    /* Contexts being destroyed (atomic; kprof_events_teardown_begin), read by every timed call: on a cache
     * line of its own, written only by a teardown. */
    int teardowns __attribute__((aligned(64)));
    /* Timed calls between begin_find_pool and their end (atomic; timing.c), counted by each thread in a
     * shard of its own (kprof_ev_flight): every timed call adds to one and takes from it, and with one
     * counter threads launching at once moved its cache line between them twice a launch.  Their sum is
     * what kprof_events_wait_in_flight waits for. */
    struct kprof_flight {
        long n;
        char line[64 - sizeof(long)];
    } in_flight[KPROF_FLIGHT_SHARDS] __attribute__((aligned(64)));
    int harvester_started, harvester_stop, harvester_sleeping;
    pthread_t harvester;
    struct kprof_event_counters n;
};
/* The timing layer's one state (defined in pool.c). */
extern struct kprof_ev kprof_ev;

/* This thread's shard of kprof_ev.in_flight (1 + its index; 0 until its first timed call). */
extern __thread unsigned kprof_ev_tls_flight __attribute__((tls_model("initial-exec")));
unsigned kprof_ev_flight_assign(void);
/* This thread's in-flight counter (atomic). */
static inline long *kprof_ev_flight(void)
{
    unsigned i = kprof_ev_tls_flight;
    if (__builtin_expect(i == 0, 0))
        i = kprof_ev_flight_assign();
    return &kprof_ev.in_flight[i - 1].n;
}

/* The pool last used by this thread: most threads use one context, so the list walk is rare (pool.c). */
extern __thread struct pool *kprof_ev_tls_pool __attribute__((tls_model("initial-exec")));

/* ctx's pool if it has one (none is made); NULL otherwise.  Takes kprof_ev.lock. */
struct pool *kprof_ev_pool_find(CUcontext ctx);
/* The pool of ctx (current on this thread), created if needed; NULL when out of memory. */
struct pool *kprof_ev_pool_for(CUcontext ctx);
/* Counts a call left untimed for lack of events, and warns once; kprof_ev.lock held. */
void kprof_ev_pool_exhausted_once(void);
/* Takes a free event of p, or reserves one to create (NULL, *create set); kprof_ev.lock held. */
CUevent kprof_ev_pool_take(struct pool *p, int *create);
/* Gives back a reservation kprof_ev_pool_take made; kprof_ev.lock held. */
void kprof_ev_pool_unreserve(struct pool *p);
/* Creates a reserved event in p's (current) context; NULL (reservation given back) on failure. */
CUevent kprof_ev_pool_create(struct pool *p);
/* Returns an event to its pool; kprof_ev.lock held. */
void kprof_ev_pool_give(struct pool *p, CUevent e);
/* What a timed call of kind and target (struct kprof_kernel or struct kprof_copy) is as the predecessor of
 * the next kernel on its stream: an enum kprof_pred (KERNEL for kernels and graphs). */
static inline unsigned char kprof_pred_of(enum kprof_target_kind kind, const void *target)
{
    if (kind != KPROF_TARGET_COPY)
        return KPROF_PRED_KERNEL;
    if (kprof_copy_is_memset(target))
        return KPROF_PRED_MEMSET;
    enum kprof_dir dir;
    enum kprof_host_mem host;
    kprof_copy_describe(target, &dir, &host);
    return dir == KPROF_HTOD ? KPROF_PRED_HTOD : dir == KPROF_DTOH ? KPROF_PRED_DTOH : KPROF_PRED_DTOD;
}
/* Whether such a call of `bytes` is an HtoD copy long enough to delay the kernels beside it
 * (BESIDE_MIN_BYTES). */
static inline int kprof_big_htod(enum kprof_target_kind kind, const void *target, uint64_t bytes)
{
    return kind == KPROF_TARGET_COPY && bytes >= BESIDE_MIN_BYTES && kprof_pred_of(kind, target) == KPROF_PRED_HTOD;
}
/* Whether a kernel of `grid` blocks of `block` threads fills p's device: at least as many blocks as all
 * its SMs can hold at once by their limits on threads and blocks (fewer where registers or shared memory
 * limit them, which this leaves out: a kernel said to fill it surely does), so that no SM has room for a
 * block of another kernel until its last wave.  0 when the device's limits are not known. */
static inline int kprof_fills(const struct pool *p, const unsigned grid[3], const unsigned block[3])
{
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (!p->sms || !p->sm_threads || !p->sm_blocks || threads == 0)
        return 0;
    uint64_t per_sm = p->sm_threads / threads < p->sm_blocks ? p->sm_threads / threads : p->sm_blocks;
    return per_sm > 0 && (uint64_t)grid[0] * grid[1] * grid[2] >= (uint64_t)p->sms * per_sm;
}
/* 1 if pool p is the context ctx, or (ctx NULL) on device dev. */
int kprof_ev_pool_matches(const struct pool *p, CUcontext ctx, int dev);
/* Retires q if its stream is gone and its last pair has been read (queue.h, gone): out of the table, onto
 * its pool's spare list, never freed (a thread may still hold it as its last queue).  Returns 1 if it did.
 * kprof_ev.lock held; harvest passes only (they walk the table, so no other thread may take a queue out). */
int kprof_ev_queue_retire(struct queue *q);
/* Queues retired so far (atomic): a thread's cached queue of a stream is that stream's while this has not
 * moved (turns.c, kprof_turn_untimed). */
extern unsigned long kprof_ev_queues_retired;
/* KPROF_HOLD=N: the last pair of q, just read (pr: its copy; q->count now 0), keeps its stop event for the
 * next launch on the stream instead of giving it back to the pool (queue.h, kept), if that launch could
 * start there: a kernel's, its stop its own to give.  Returns 1 if kept.  kprof_ev.lock held; harvest
 * passes only. */
int kprof_ev_queue_keep(struct queue *q, const struct pair *pr);
/* Gives a stop kept in q back to its pool (none: nothing to do).  kprof_ev.lock held. */
void kprof_ev_queue_drop_kept(struct queue *q);
/* Gives every stop kept by a queue of pool p back to p (kprof_ev_pool_take, p exhausted: a kept stop
 * must not cost a timed call its events).  Returns how many.  kprof_ev.lock held. */
long kprof_ev_reclaim_kept(struct pool *p);
/* Records a new reference on p's stream when the last was asked for over REF_PERIOD_NS ago. */
void kprof_ev_ref_request(struct pool *p, uint64_t now);
/* Starts the harvesting thread (kprof_ev.harvester_started set on success); kprof_ev.lock held. */
void kprof_ev_start_harvester(void);

/* queues.c: the key of stream's queue in ctx (NULL: the legacy default stream, or the per-thread one where
 * per_thread; a per-thread default stream's key holds the calling thread's id). */
struct qkey kprof_queue_key(CUcontext ctx, CUstream stream, int per_thread);
/* queues.c: the queue of t's stream in t's context (t->ctx, t->stream) in pool p, made (and its name given
 * to the statistics) on first use; NULL when out of memory.  *looked_up (may be NULL): 1 when it was found
 * in the table or made, 0 when it was this thread's last queue.  kprof_ev.lock held. */
struct queue *kprof_queue_for(const struct kprof_timing *t, struct pool *p, int *looked_up);

/* turns.c: streams shared by threads, each call on such a stream queued whole (its start, its work, its
 * stop) while it holds the stream's turn (queue.h: owner, threads, open, turn).
 * kprof_turn_begin: a timed call on q (NULL: none), kprof_ev.lock held (released while it waits): counted
 * in q->open while q is one thread's, else its turn taken; sets t->turn_queue and t->turn.
 * kprof_turn_untimed: a launch left untimed (KPROF_SAMPLE) once kprof_shared_streams_active, on a stream
 * (ctx NULL: the current context's) other threads share: its turn taken.  Without kprof_ev.lock.
 * kprof_turn_first_call: a call made with no current context (a thread's first) on `stream`, whose context
 * is asked of the stream: takes part in the turns as a timed call does; sampled_out: a launch left
 * untimed by KPROF_SAMPLE, which takes its context's order lock first where launches are ordered.
 * kprof_turn_end: gives back what they took, once the call's pair is queued (or it stays untimed). */
void kprof_turn_begin(struct kprof_timing *t, struct queue *q);
void kprof_turn_untimed(struct kprof_timing *t, CUcontext ctx, CUstream stream, int per_thread);
void kprof_turn_first_call(struct kprof_timing *t, CUstream stream, int sampled_out, int per_thread);
void kprof_turn_give(struct kprof_timing *t);
static inline void kprof_turn_end(struct kprof_timing *t)
{
    if (KPROF_UNLIKELY(t->turn_queue != NULL))
        kprof_turn_give(t);
}

/* order.c: a timed launch on a stream that synchronises with the other kind (sync 1: the legacy default
 * stream or a blocking stream), or that may (sync 0: its kind is asked later, then call again with 1):
 * ordered (t->ordered: the pool's order lock taken, waited for 200 ms at most) if both kinds have been
 * timed in pool p, else counted in p->unordered until its stop is queued (so that the launch that finds
 * both seen first waits for it: docs/accuracy.md, point 11).  Undone by kprof_order_end, once the stop is
 * queued or when the launch goes untimed.  Thread-safe. */
void kprof_order_begin(struct kprof_timing *t, struct pool *p, int sync);
void kprof_order_end(struct kprof_timing *t, struct pool *p);
/* A launch left untimed (KPROF_SAMPLE) while kprof_orders_active: on a stream that synchronises with the
 * other kind in a context whose timed launches are ordered, it takes its turn too (t->order_pool set, the
 * turn ended by kprof_timing_end), or another thread's timed pair on a stream of the other kind would
 * wait for its kernel and read it as its own.  ctx NULL: the current context.  Thread-safe. */
void kprof_order_untimed(struct kprof_timing *t, CUcontext ctx, CUstream stream, int per_thread);
/* Sets p's legacy_seen (legacy 1) or blocking_seen (0), and kprof_orders_active once both are, so that
 * untimed launches take turns from then on (an untimed launch begun at that very moment may still come
 * between a pair's events).  Lock-free. */
void kprof_order_seen(struct pool *p, int legacy);
/* Whether stream s (not the legacy or a per-thread default stream) synchronises with the legacy default
 * stream: created without CU_STREAM_NON_BLOCKING, or its flags unknown (cuStreamGetFlags).  Thread-safe. */
int kprof_stream_blocking(CUstream s);

/* KPROF_HOLD=N (offsets.c): what a launch measured the cheap way reads beyond one measured in full, learned
 * per kernel, launch shape, kind (enum kprof_offset_kind) and role in pool p.  For a kernel pair (not
 * its kernel's first launch) read as dur_ns (the idle-stream correction and the hand-off taken off): a
 * reference (measured in full) adds to what the references of its kernel, shape and kind read; another
 * adds to what those of its role read, and the answer is what to take off it: their mean less the
 * references' (so that, over a shape's launches, they read as the references do; it may be below 0), or
 * 0 where that is within chance (for KPROF_OFFSET_CHEAP, unless its kernel's shapes each within chance
 * are beyond it together: offsets.c, offset_of), or 0 with *unlearned set when no
 * reference of its shape has been read yet; *entry is the kernel, shape and
 * kind's entry (NULL when none: kind 0, the draw off, out of memory).  Harvest passes only. */
/* Each kind's launches are split at random by the draw, so that the two groups run alike but for how they
 * are measured: an offset learned from a split after the fact (say, idle streams apart from busy ones)
 * would hold whatever makes launches land in one group or the other (a longer kernel leaving the next
 * launch's stream busy). */
enum kprof_offset_role {
    KPROF_OFFSET_REF,   /* drawn: measured in full (held where a hold was due) */
    KPROF_OFFSET_CHEAP, /* not drawn: unheld, or a gap's shared start */
    KPROF_OFFSET_BLIND, /* not drawn, unheld, its stream's idleness never asked (timing.c, timing_end): its
                           reading holds the launch call's host time when the stream was idle, so its
                           offset is taken off however small against its standard error */
    KPROF_OFFSET_IDLE,  /* not drawn, started at an idle stream's last stop (timing.c, idle_shared): its pair
                           holds the host's time since, and it reads as the references' mean; kept apart
                           from the blind ones, whose offset that time would swell */
    KPROF_OFFSET_ROLES
};
double kprof_offset_learn(struct pool *p, const struct pair *pr, unsigned kind, enum kprof_offset_role role,
                          double dur_ns, int *unlearned, struct offset **entry);
/* The mean of what entry o's references read (ns; those its offset is learned from), -1 when it has none
 * (or o is NULL).  Harvest passes only. */
double kprof_offset_ref_mean(const struct offset *o);
/* What was taken off a pair of role `role` of entry o (kprof_offset_learn's; NULL: none) as it was read
 * (ns; after the clamps). */
void kprof_offset_applied(struct offset *o, enum kprof_offset_role role, double ns);
/* Takes back what kprof_offset_learn counted of pair pr (dur_ns as given to it) and kprof_offset_applied of
 * it (applied_ns), for a pair read otherwise after all (harvest.c, past_filling: its kernel's start is
 * another kernel's end, whatever the offset), so that the entry neither learns from it nor settles its
 * offset on it.  o NULL: nothing.  Harvest passes only. */
void kprof_offset_forget(struct offset *o, const struct pair *pr, enum kprof_offset_role role, double dur_ns,
                         double applied_ns);
/* At the end of a harvest pass: for each kernel, shape and kind read from since the last call (all:
 * every one; also every shape of a kernel and kind whose joint test has changed its answer since they
 * were last settled on it), the
 * difference between the offset as learned now, over all the launches read the cheap way so far, and what
 * was taken off them as they were read (a running offset gives its first launches' noise the most weight)
 * goes to the kernel's total as an adjustment (struct kprof_sample's adjust), so that totals always
 * read as with the latest offset.  Harvest passes only. */
void kprof_offsets_settle(struct pool *p, int all);

#endif
