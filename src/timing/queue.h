/* queue.h: the timing layer's per-stream queues of pairs waiting for their stop events (timing.c queues
 * them, harvest.c reads them; private to src/timing/). */
#ifndef KPROF_TIMING_QUEUE_H
#define KPROF_TIMING_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "timing.h"
#include "turnlock.h"

struct pool;

/* A pair whose hold gave up, its start stamped this much later than its record began (far beyond the
 * anchor's own error: docs/accuracy.md, "Host and queue time"), is read from its stamp, not its record
 * (harvest.c, pair_account). */
#define LATE_STAMP_NS 20000.0

/* A kernel pair whose thread was held up for more than LATE_STAMP_NS between its launch call's return and
 * the end of its stop's record (descheduled, or waiting on a driver lock), and whose stop was stamped
 * after the call returned but no later than an event recorded on an idle stream as the record returned
 * would be (the anchor's error allowed: IDLE_STOP_SLACK_NS), had no work left before its stop: its kernel
 * ended at some time in between, unknown (harvest.c, idle_stop_mean).  A long launch call is no such
 * case: the kernel may be queued at its end, and the idle-stream correction then reads it exactly. */
#define IDLE_STOP_SLACK_NS 1000.0

/* One timed call waiting for its stop event. */
struct pair {
    CUevent start, stop;
    /* late: an event recorded on the pool's idle private stream just after the launch returned, mark_ns
     * after it (host clock), or NULL; the pair holds the time from its start's stamp to the mark */
    CUevent mark;
    uint64_t mark_ns;
    enum kprof_target_kind kind;
    void *target;
    uint64_t bytes;
    uint64_t idle_lag_ns;   /* host time between the start event and the launch's return, idle stream */
    uint64_t start_host_ns; /* host clock before the start event was recorded */
    uint64_t call_ns;       /* kernels: host clock when the launch call began */
    uint64_t launch_ns;     /* kernels: the launch call's host time */
    uint64_t hold_ns;       /* held: host time from the call's return to the hold's release */
    uint64_t stop_host_ns;  /* kernels: host clock once the stop event's record returned */
    uint64_t start_rec_ns;  /* host clock no later than the start event's record returned (shared: the
                               lent stop's stop_host_ns; else before the record; 0: not known) */
    uint64_t start_rec_before_ns; /* shared: host clock before the lent stop's record began (0: not known) */
    unsigned grid[3], block[3];
    float weight;           /* kernels, KPROF_SAMPLE=auto: 1/p (kprof_tls_sample_weight at its launch) */
    float auto_weight;      /* kernels, KPROF_AUTO_CHECK=1: 1/p when auto would have timed it, else 0 */
    struct pool *pool;
    int own_stop;           /* 0 once the next launch took the stop event as its start (it gives it back) */
    int shared;             /* 1: the start is the previous pair's stop (one-event timing) */
    unsigned long epoch[3]; /* stream-order counters when the call began */
    uint64_t seq;           /* its number in its queue */
    uint64_t start_seq;     /* shared: the number of the pair whose stop is its start */
    unsigned char pred;     /* enum kprof_pred: what libkprof put on the stream before it */
    unsigned char late;     /* held, but its start had completed by the launch's return: the hold gave up */
    /* held (not late), but its stop recorded more than kprof_hold's timeout after its start: the hold may
     * have given up while the thread was held up before the stop's record, the pair then holding the
     * stream's idle time after the kernel (read as a stop stamped on an idle stream: harvest.c,
     * idle_stop_mean), and no reference */
    unsigned char overdue;
    /* KPROF_HOLD=N, a start of its own (or, not drawn, an idle stream's last stop: struct kprof_timing's
     * idle_shared): the kind of hold its stream would get (1, 2) when it was not drawn (unheld: read with
     * the offset learned) or drawn (hold_ref: a reference, held or not), else 0 */
    unsigned char unheld, hold_ref;
    unsigned char blind;    /* unheld, read however it reads (KPROF_OFFSET_BLIND): its stream's idleness not
                               asked (timing_end), or its start an idle stream's last stop */
    unsigned char gap;      /* KPROF_HOLD=N behind a short backlog: 1 its start shared, 2 the reference (timing.h) */
    unsigned char early;    /* KPROF_HOLD=N: measured in full as one of its shape's first launches (timing.h) */
    unsigned char thin;     /* KPROF_HOLD=N, drawn: at the rate 1/(N x 2^thin), it stands for 2^thin launches */
    unsigned char check_held; /* KPROF_AUTO_CHECK=1: measured in full only because auto would have timed it */
    unsigned char fills;    /* a kernel that fills its device (kprof_fills; counted in its pool's fill_queued
                               and its queue's fills_queued) */
};

/* Pairs recorded on one stream complete in the order they were recorded, so only a queue's head needs
 * querying.  The per-thread default stream is a different stream on every thread, hence the tid. */
struct qkey {
    CUcontext ctx;
    CUstream stream;
    long tid;
};
struct queue {
    struct qkey key;
    unsigned index; /* this stream's number in the process (the trace's row) */
    struct pair *ring;
    size_t head, count, cap; /* cap: 0 or a power of two (64, then doubled), so slots are masked, not divided */
    uint64_t pushed, popped; /* pairs queued and read so far: pair number n is in the ring while n >= popped */
    long fills_queued;       /* of its pairs, kernels that fill the device (struct pair's fills; kprof_ev.lock,
                                read atomically by harvest.c's fill_first) */
    /* KPROF_HOLD=N: the last pair read when none was left, its stop event not given back (kept.stop; NULL:
     * none), for the next launch on the stream, whose stream is then surely idle, to start at without
     * asking (timing.c, begin_take_events); given back when another pair is queued or the stream goes
     * (kprof_ev.lock). */
    struct pair kept;
    unsigned idle_streak;    /* launches in a row that found the stream idle (kprof_ev.lock) */
    unsigned skip;           /* launches still to time without asking whether the stream is busy (kprof_ev.lock) */
    /* Harvest passes only: where the last pair read stopped, on the timeline before any idle-stream
     * correction, so that the next pair, if it started at that stop, is placed without a driver call. */
    double last_stop_ns;
    double last_shift_ns;    /* the host anchor of the reference it was placed from, less its base_ns */
    uint64_t last_stop_seq;  /* that pair's number + 1; 0: none */
    unsigned derived;        /* starts placed that way in a row (re-anchored on a reference every 256) */
    unsigned char last_pred; /* enum kprof_pred: what libkprof last put on this stream (kprof_ev.lock) */
    unsigned char host_fn;   /* a host function was put on it since libkprof's last timed call (kprof_ev.lock) */
    signed char blocking;    /* 1: it synchronises with the legacy default stream; -1: not known yet (atomic) */
    int priority;            /* the stream's priority (cuStreamGetPriority; lower is higher, 0 the default), asked
                                with `blocking` (atomic) */
    /* Its stream was destroyed, or (a per-thread default stream) its thread exited: the harvester retires
     * it once its last pair is read (kprof_ev.lock); a launch that finds it again (a new stream given the
     * same handle, a new thread the same id) keeps it.  Retired queues wait in their pool's `spare` list
     * for the next stream, so that a program making and dropping streams or threads by the thousand keeps
     * a few queues, and the harvester walks only those. */
    unsigned char gone;
    unsigned later;          /* streams that had this queue after the first (they share its trace row) */
    /* Threads sharing the stream (turns.c, kprof_turn_begin).  `owner`: the first thread to time a call
     * on it (pthread_self; kprof_ev.lock); `threads` 1 once another thread has (atomic, never cleared):
     * from then on every call on the stream, timed or left untimed, takes `turn` from before its start to
     * after its pair is queued, so that no other thread's work lands between its events.  `open`: calls
     * begun on it without the turn whose pairs are not queued yet (atomic), waited for by the first call
     * that takes the turn. */
    unsigned long owner;
    int threads;
    int open;
    struct kprof_turnlock turn; /* turnlock.h: a thread launching in a loop takes no one's turn for long */
    char name[64];           /* the first stream's name (its trace row's) */
    struct pool *pool;       /* the pool it was made in */
    struct queue *next_spare;
    UT_hash_handle hh;
};

/* Pair i of q's ring counted from its head (i < q->cap, q->cap not 0).  The ring's size is a power of two:
 * a mask, where a 64-bit division by it cost 10 to 40 cycles, several times a timed launch. */
static inline struct pair *kprof_ring_at(const struct queue *q, size_t i)
{
    return &q->ring[(q->head + i) & (q->cap - 1)];
}

#endif
