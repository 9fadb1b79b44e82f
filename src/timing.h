/* timing.h: timing calls on the GPU with event pairs: pools, pending pairs, harvesting (timing/). */
#ifndef KPROF_TIMING_H
#define KPROF_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "sample.h"
#include "calibrate.h"

struct kprof_kernel;

/* A timed call in flight: filled by kprof_timing_begin(), completed by kprof_timing_end(). */
struct kprof_timing {
    CUcontext ctx;
    CUstream stream;      /* as passed to cuEventRecord (CU_STREAM_PER_THREAD for _ptsz callers' 0) */
    CUevent start, stop;
    void *pool;           /* the context's event pool, or NULL when the call is not timed */
    void *queue;          /* the stream's queue of pairs in flight */
    uint64_t start_host_ns; /* host clock when the start event had been recorded */
    uint64_t start_before_ns; /* host clock just before it was recorded */
    int captured;         /* 1 when the stream is capturing into a graph: the call runs nothing now */
    int shared;           /* 1: `start` is the previous call's stop event (one-event timing) */
    int tested;           /* whether the stream was found busy (1) or idle (2) before the call; 0: not asked */
    int broke;            /* 1: the call will run untimed, and kprof_chain_break() was called for it */
    int no_context;       /* 1: the thread had no current context (the call will create or set one) */
    uint64_t lent_seq;    /* then: that call's place in the queue */
    uint64_t lent_host_ns; /* then: host clock once that stop's record returned (0: not known) */
    uint64_t lent_before_ns; /* then: host clock before that stop's record began, its launch's return (0: not
                                known) */
    unsigned char pred;   /* enum kprof_pred: what libkprof last put on the stream before this call */
    unsigned char held;   /* the stream is held until the call is queued (struct kprof_hold): 0 no, 1 after a
                             kernel or a wait (HELD), 2 behind a copy, memset or host function (HELD_KERNEL),
                             3 held but kprof_hold gave up (read as idle) */
    unsigned char beside; /* not held: another stream of the context had timed work in flight */
    unsigned char traced; /* not held: another tool was tracing kernels (kprof_kernels_traced) */
    unsigned char unasked; /* queries left out, the event recorded too recently to have completed (the
                              lent stop's, the backlog's starts, the start's; calibrate.h, seen_ns) */
    unsigned char ordered; /* 1: the pool's order lock is held until the stop is queued (timing/timing.c) */
    void *order_pool;     /* an untimed launch's turn taken in this pool (kprof_order_untimed), else NULL */
    unsigned char unordered; /* 1: counted among the launches in flight that hold no order lock (timing/timing.c) */
    /* The stream's queue when the call holds its turn (turn 2: the stream is shared by threads) or is
     * counted in its `open` calls (turn 1), else NULL and 0 (timing/turns.c, kprof_turn_begin) */
    void *turn_queue;
    unsigned char turn;
    unsigned hold_slot;   /* then: the hold's word and number */
    uint32_t hold_seq;
    /* KPROF_HOLD=N: drawn 2 (among its shape's first), 1 (drawn after), 0 (not: measured the cheap way), -1
     * (no draw); draw_kind the hold its stream would get (1, 2); short_backlog: the work known on its
     * stream may end before its kernel arrives; gap: then, its stream busy, 1 its start shared all the
     * same, 2 a start of its own (the reference) */
    signed char drawn;
    unsigned char draw_kind, short_backlog, gap;
    /* KPROF_HOLD=N, not drawn: started at the last stop of a stream found idle at the last launches,
     * without asking (timing/timing.c, begin_take_events) */
    unsigned char idle_shared;
    unsigned char draw_thin; /* drawn 1: at the rate 1/(N x 2^draw_thin) (kprof_hold_drawn) */
    signed char hold_word;   /* drawn >= 0: its shape's draw word in hold_shapes, or -1 (kprof_hold_drawn) */
    /* KPROF_AUTO_CHECK=1: not drawn, but measured in full (drawn -1) because auto would have timed it */
    unsigned char check_held;
    /* Set by the caller for KPROF_TIME_LAUNCH: KPROF_HOLD=N's draw words and key (kprof_hold_words) */
    uint64_t *hold_shapes;
    unsigned hold_nshapes;
    uint32_t hold_key;
    unsigned long epoch[3]; /* stream-order counters when the call began (see kprof_chain_break) */
    /* Set by the caller before kprof_timing_begin: the host clock (kprof_now_ns) at the call's entry, 0
     * when not read; the periodic reference check reads it instead of the clock (a read costs 26 to 36 ns
     * on the H200 host: docs/performance.md). */
    uint64_t entry_ns;
    /* Set by kprof_timing_end: its last host clock read, once the stop event was recorded (0: none), for
     * the caller's kprof_call's end_ns. */
    uint64_t end_ns;
    /* 1 from kprof_timing_begin's return to kprof_timing_end (KPROF_TIMING_DECLARE sets it to 0). */
    unsigned char open;
};

/* Ends a timed call that kprof_timing_begin began and no kprof_timing_end will: as a failed call (ok 0),
 * giving back what it holds (the stream's turn, the context's order lock, its hold on the stream, its
 * events, its place among the calls in flight).  For KPROF_TIMING_DECLARE's cleanup. */
void kprof_timing_abandon(struct kprof_timing *t);

static inline void kprof_timing_unwound(struct kprof_timing *t)
{
    if (__builtin_expect(t->open, 0))
        kprof_timing_abandon(t);
}

/* Declares `struct kprof_timing name` in a wrapper's body, not begun (open 0).  Should the thread be
 * cancelled inside the real call (pthread_cancel at a cancellation point in the driver), its unwinding
 * ends the timed call (kprof_timing_abandon; libkprof is built with -fexceptions, which runs cleanups when
 * a cancellation unwinds C frames): a cancelled thread kept the stream's turn and the order lock, and each
 * later call on the stream, or ordered launch in the context, waited 200 ms for them (a break-it
 * helper), and its hold was never released.  On every other way out of the scope the call has ended, and
 * the cleanup is a test of `open`. */
#define KPROF_TIMING_DECLARE(name)                                                                 \
    struct kprof_timing name __attribute__((cleanup(kprof_timing_unwound)));                       \
    name.open = 0

/* After kprof_timing_begin(t, NULL, stream, per_thread, KPROF_TIME_NONE) for a kernel launch left untimed
 * by KPROF_SAMPLE that its thread makes with no current context (its first CUDA call, as a rule): the call
 * still takes part in its stream's turns (timing/turns.c), the stream's
 * context asked of the stream (cuStreamGetCtx); nothing for the legacy and per-thread default streams.
 * kprof_timing_end gives back what it took.  Called with the guard raised. */
void kprof_timing_untimed_first_call(struct kprof_timing *t, cudaStream_t stream, int per_thread);

/* What kprof_timing_begin is asked for: nothing (KPROF_SAMPLE skips the call), a start and a stop event
 * of the call's own (copies, memsets), or, for kernel launches (LAUNCH) and graph launches (GRAPH), either
 * that or, when the stream is still busy with the previous timed call, only a stop event (one-event
 * timing).  A kernel launch that gets a start of its own is held (struct kprof_hold). */
enum kprof_time_want { KPROF_TIME_NONE, KPROF_TIME_PAIR, KPROF_TIME_LAUNCH, KPROF_TIME_GRAPH };

/* Records a start event on `stream` in the current context, from that context's pool.  ctx is that
 * context when the caller has just asked the driver for it (kprof_call_begin), else NULL: then it is
 * asked here.  per_thread is 1 for _ptsz/_ptds callers, for whom stream 0 is the per-thread default
 * stream.  Leaves t->pool NULL (the call stays untimed) when `want` is KPROF_TIME_NONE (the capture check
 * still runs), there is no current context, the stream is capturing, or the pool is empty.
 *
 * One-event timing (want KPROF_TIME_LAUNCH, KPROF_ONE_EVENT=1, every launch timed): recording a timing
 * event is the bulk of what libkprof adds to a launch's host time (docs/performance.md, "One-event
 * timing").  When the stream's last operation is a timed call whose stop event has not yet completed
 * (cuEventQuery says not ready), this launch cannot start before that stop, and starts right after it:
 * that event serves as this launch's start, and only a stop event is recorded.  Not while any operation
 * libkprof did not time (see kprof_chain_break) or, across the implicit synchronisation of the legacy
 * default stream with blocking streams, a timed call on a stream that can delay this one has been issued
 * since; not while a stream capture is in progress.  The shared event goes back to the pool once both
 * pairs are read.  Called with the guard raised.  Never changes the app's CUDA error state. */
void kprof_timing_begin(struct kprof_timing *t, CUcontext ctx, cudaStream_t stream, int per_thread,
                        enum kprof_time_want want);

/* A runtime launch made while its thread had no current context (the program's first CUDA call, or a new
 * thread's): cudart creates or sets the context inside the call, then launches through the driver, and
 * that nested driver launch, which the guard would pass through, is timed on the runtime launch's behalf
 * (once).  Set by the runtime launch wrappers around the real call; read by the driver's. */
struct kprof_delegate {
    struct kprof_kernel *k;     /* the kernel's aggregate (never NULL) */
    enum kprof_time_want want;  /* what the runtime wrapper would have asked kprof_timing_begin for */
    int used;                   /* 1 once a driver launch took it */
};
extern __thread struct kprof_delegate *kprof_tls_delegate __attribute__((tls_model("initial-exec")));

/* 1 once some context's timed launches are ordered (both the legacy default stream and a blocking stream
 * timed in it: docs/accuracy.md, point 11); from then on a launch left untimed by KPROF_SAMPLE also goes
 * through kprof_timing_begin, to take its turn (timing/order.c).  Atomic; never cleared. */
extern int kprof_orders_active;

/* 1 once some stream has had calls timed from two threads (timing/turns.c, kprof_turn_begin): from then
 * on a launch left untimed by KPROF_SAMPLE also goes through kprof_timing_begin, to take its stream's turn
 * if its stream is one of those.  Atomic; never cleared. */
extern int kprof_shared_streams_active;

/* 1 once kprof_orders_active or kprof_shared_streams_active is: the one flag the untimed launch path reads
 * to know whether it must go through kprof_timing_begin for a turn.  Atomic; never cleared. */
extern int kprof_untimed_turns;

/* Called for every operation put on a stream that is not timed with events (the app's event records,
 * waits on events, host functions, stream memory operations and the other STREAMOP wrappers of api.def,
 * a launch left untimed by KPROF_INCLUDE/EXCLUDE, a pause, a failure to time, a thread's first call),
 * and when a stream is destroyed or a thread that used its per-thread stream exits (their handle or id
 * can come back): no launch issued after it is timed from the stop event of a call issued before it.
 * Lock-free (one relaxed atomic increment); safe from any thread. */
void kprof_chain_break(void);

/* 1 once KPROF_SAMPLE has left some launch untimed (kprof_sampled_untimed, before that launch is made).
 * Until then a sampled run's timed launches start at their stream's last stop as every-launch timing's do
 * (one event a launch: a PyTorch step whose kernels were all in KPROF_SAMPLE=auto's warm-up recorded two,
 * and auto cost 1.19x against every launch's 1.11x on an H100); after it, none does, since a launch left
 * untimed breaks no chain (kprof_chain_break's shared count would cost each sampled launch an atomic add
 * that every launching thread shares).  Atomic; never cleared. */
extern int kprof_sampled_untimed_seen;
static inline void kprof_sampled_untimed(void)
{
    if (__builtin_expect(!__atomic_load_n(&kprof_sampled_untimed_seen, __ATOMIC_RELAXED), 0))
        __atomic_store_n(&kprof_sampled_untimed_seen, 1, __ATOMIC_SEQ_CST);
}

/* An operation libkprof does not time (a wait, a host function...) was put on `stream` (per_thread: a
 * _ptsz/_ptds caller, for whom stream 0 is the per-thread default stream) in the current context: the
 * next kernel there has it (pred: enum kprof_pred), not libkprof's last timed call, as its predecessor.
 * Thread-safe. */
void kprof_stream_other(CUstream stream, int per_thread, int pred);
/* The `pred` kprof_stream_other takes for a host function: it leaves the predecessor as it was (the
 * hand-off behind a host function is that of the GPU work before it) but makes the next kernel's hold, if
 * any, libkprof's kernel (struct kprof_hold). */
#define KPROF_STREAM_HOST_FUNCTION 0xff
/* The `pred` for a stream destroyed: its handle may be the next stream's (of another kind: blocking or
 * not), so what libkprof knew of it is forgotten; a stream other than the default ones is found in its own
 * context (cuStreamGetCtx, where the driver has it), whichever is current. */
#define KPROF_STREAM_DESTROYED 0xfe
/* A stream argument that names no stream to mark (kprof_stream_other is not called). */
#define KPROF_NO_STREAM ((CUstream)(intptr_t)-1)

/* Records the stop event and queues the pair for harvesting; the duration goes to `target` (a struct
 * kprof_kernel * or struct kprof_copy * as `kind` says; `bytes` is a copy's size).  If `ok` is 0 (the
 * call failed) the events go back to the pool instead.  Returns 1 if the pair was queued.
 *
 * Idle-stream correction (kernel launches): on an idle stream the GPU stamps the start event at once,
 * while the kernel reaches the GPU only when the host has submitted it, so the pair also holds that host
 * time (the launch latency: docs/accuracy.md, "What an event pair holds").  If the start event has
 * already completed when the launch returns, the stream was idle: the host time from the start event's
 * record to the launch's return is remembered and taken off the pair's duration when it is read.  Copies
 * are not corrected: a copy call may wait for its own work (pageable memory), and then its host time is
 * the work. */
int kprof_timing_end(struct kprof_timing *t, int ok, enum kprof_target_kind kind, void *target,
                     uint64_t bytes, const unsigned *grid, const unsigned *block);

/* Before a context is destroyed (cudaDeviceReset, cuCtxDestroy, the last primary-context release):
 * reads that context's pending pairs (ctx NULL: those of every context on `device`), waiting up to
 * timeout_ms.  Thread-safe. */
void kprof_events_context_ending(CUcontext ctx, int device, long timeout_ms);
/* Before a context is destroyed, also once libkprof has finished: waits up to timeout_ms while any thread
 * is inside a timed call (between kprof_timing_begin finding its context's pool and kprof_timing_end), whose
 * hold word and events the destruction would free under it (pinned memory unmapped: a launch made on
 * another thread while the program exits, say).  Returns how many were still inside.  Thread-safe. */
long kprof_events_wait_in_flight(long timeout_ms);
/* Around a context's destruction, before kprof_events_wait_in_flight and until the destruction has
 * returned: while any is in progress, a call that would begin timing stays untimed, so that none begins
 * after the wait and then writes a hold word or records events that the destruction frees under it
 * (ThreadSanitizer saw kprof_hold_release write freed memory: a detached thread's timed launch as the
 * program's exit released the primary context).  Calls on other contexts meanwhile stay untimed too.  Each
 * begin needs its end.  Thread-safe. */
void kprof_events_teardown_begin(void);
void kprof_events_teardown_end(void);
/* How long a context's destruction waits for timed calls in flight, ms (a launch that loads its module
 * can take some hundreds of ms; a call stuck longer is left to its fate). */
#define KPROF_IN_FLIGHT_WAIT_MS 1000
/* After it was destroyed: drops its event pool (its events died with it), so a context created later,
 * even at the same address, gets a fresh one.  Thread-safe. */
void kprof_events_context_gone(CUcontext ctx, int device);

/* Harvests every completed pair, waiting up to timeout_ms for the rest; stops the harvesting thread.
 * Returns the number of pairs still incomplete.  Thread-safe. */
long kprof_events_drain(long timeout_ms);

/* The timing layer's part of the report's snapshot: its counters, and the calibration of each context
 * timed so far (the first 16, oldest first). */
struct kprof_events_part {
    struct kprof_event_counters n;
    struct kprof_calibration calibs[16];
    size_t ncalibs;
};
/* Fills *p.  Thread-safe. */
void kprof_events_snapshot(struct kprof_events_part *p);
/* Releases nothing: the part owns no memory (for the snapshot's list of parts, snapshot.h). */
static inline void kprof_events_part_free(struct kprof_events_part *p)
{
    (void)p;
}

#endif
