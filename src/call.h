/* call.h: the per-thread guard, counted calls and their host time (call.c). */
#ifndef KPROF_CALL_H
#define KPROF_CALL_H

#include <stdint.h>
#include <time.h>
#include "clock.h"
#include "cuda_api.h"
#include "kprof_config.h"
#include "resolve.h"

/* Per-thread re-entrancy depth: > 0 while the thread is inside a libkprof wrapper or in libkprof's own
 * work, so nested CUDA calls are passed through and never counted twice. */
extern __thread int kprof_tls_depth __attribute__((tls_model("initial-exec")));

/* Range control: while paused (KPROF_START=paused until cudaProfilerStart, or after cudaProfilerStop)
 * wrappers pass calls through uncounted.  Thread-safe. */
void kprof_set_paused(int paused);

/* Called once by the constructor (lifecycle.c) before any call is counted: on_exit is the handler
 * registered again with atexit() after a context is created (so that the report comes before cudart's
 * teardown); start_paused as KPROF_START=paused. */
void kprof_call_start(void (*on_exit)(void), int start_paused);

/* 1 when the program used CUDA (a call passed through while paused, or a context created) but profiling
 * never ran: KPROF_START=paused and no cudaProfilerStart/cuProfilerStart.  Thread-safe. */
int kprof_call_never_ran(void);

/* The number of profiled CUDA calls in flight that began without a current context (the first call of a
 * thread or process, which may be creating one: 200-370 ms on an H200).  For the message a signal gets
 * before there is anything to report (lifecycle.c).  Thread-safe; 0 in a forked child. */
int kprof_call_without_context_in_flight(void);

/* fn is called once, before the first call kprof_call_begin counts (on that call's thread): what waits
 * for the program to use CUDA (KPROF_SIGNALS's handlers, lifecycle.c).  Thread-safe. */
void kprof_call_on_first(void (*fn)(void));

/* fn is called for every call that kprof_call_begin passes through because profiling is paused (its work
 * runs untimed: the timing layer registers kprof_chain_break, from a constructor).  Thread-safe. */
void kprof_call_on_untimed(void (*fn)(void));

/* The state a wrapper keeps across the real call. */
struct kprof_call {
    int api;              /* index into the API table (enum kprof_api) */
    int outer;            /* the runtime call (kprof_call_begin_outer) this one runs inside, -1: none */
    int guarded;          /* 1: the call raised the guard (kprof_call_begin) */
    CUcontext ctx_before; /* the thread's current context before the call (NULL: none) */
    uint64_t t0_ns;       /* host clock at entry (a launch: see kprof_call_begin_launch; 0: not read yet) */
    uint64_t ctx_init_ns; /* this thread's context-creation time so far, to leave out of this call's */
    int host_untimed;     /* a launch left untimed (kprof_call_host): 1 without a host time, 2 with one */
    int launch;           /* begun with kprof_call_begin_launch */
    int ctx_assumed;      /* ctx_before is the context last seen current, not asked (see kprof_call_host) */
    unsigned ctx_epoch;   /* contexts destroyed before the call began (call.c) */
    int without_ctx;      /* begun without a current context (kprof_call_without_context_in_flight) */
    uint64_t end_ns;      /* host clock at the call's end when the wrapper has read it already (a timed
                             call: kprof_timing's end_ns, once its stop was recorded), else 0: read by
                             kprof_call_end.  kprof_call_begin* set it to 0. */
};

/* Asks the driver for the thread's current context into c->ctx_before (NULL: none, or the driver not
 * initialised). */
void kprof_call_ctx_ask(struct kprof_call *c);

/* Starts a counted call: returns 0 if the call must pass straight through (libkprof disabled, finished,
 * or re-entered on this thread), else fills *c and raises the guard.  Must be paired with
 * kprof_call_end() when it returns 1.  Inside a call begun with kprof_call_begin_outer, the call does its
 * work as usual but leaves the API table to that one. */
int kprof_call_begin(struct kprof_call *c, int api);

/* As kprof_call_begin, for a kernel launch (KPROF_WRAP_LAUNCH): when the thread has a current context
 * (the launch cannot create one) the host clock is not read yet, and kprof_call_host must be called
 * once the launch knows whether it is timed.  While nothing can have changed the thread's context since
 * its last counted call ended, the driver is not asked for it (ctx_assumed): kprof_call_host asks for a
 * timed launch, whose kernel must be made ready in the right context (kprof_preload). */
int kprof_call_begin_launch(struct kprof_call *c, int api);

/* After kprof_call_begin_launch: starts the call's host time, unless it was started at entry.  Of the
 * launches KPROF_SAMPLE leaves `untimed`, each thread reads the host time of one in KPROF_HOST_SAMPLE
 * (the first, then every KPROF_HOST_SAMPLE-th); kprof_call_end counts the others without one, saving
 * their two clock reads, and the api table estimates their host time from the ones read.  Per-thread
 * state only. */
extern __thread unsigned kprof_tls_host_skip __attribute__((tls_model("initial-exec")));
static inline void kprof_call_host(struct kprof_call *c, int untimed)
{
    if (!untimed && c->ctx_assumed) {
        kprof_call_ctx_ask(c);
        if (!c->ctx_before)
            c->t0_ns = kprof_now_ns(); /* no context after all: the launch may create one */
    }
    if (c->t0_ns)
        return;
    if (untimed) {
        if (kprof_tls_host_skip > 0) {
            kprof_tls_host_skip--;
            c->host_untimed = 1;
            return;
        }
        kprof_tls_host_skip = KPROF_HOST_SAMPLE - 1;
        c->host_untimed = 2;
    }
    c->t0_ns = kprof_now_ns();
}

/* Starts a runtime call that cudart carries out through driver functions libkprof wraps (class OUTER of
 * api.def: cudaMemsetAsync through cuMemsetD8Async...): as kprof_call_begin, but the guard stays down,
 * so that those driver wrappers still time and book the work; the call is counted once, here, under the
 * runtime's name, and a context created inside it is attributed to it.  Returns 0 (pass through) also
 * inside another counted call.  Must be paired with kprof_call_end() when it returns 1.  Per-thread
 * state only. */
int kprof_call_begin_outer(struct kprof_call *c, int api);

/* Ends a counted call: drops the guard (if raised), adds the host time to the API table (unless the call
 * ran inside an outer runtime call), and, when the call created a CUDA context, moves its host time to the
 * `context init` row instead.  Returns the host time in ns (0 for a call without one: kprof_call_host).
 * `ok` is 1 when the real call succeeded. */
uint64_t kprof_call_end(struct kprof_call *c, int ok);

/* Leaves ns of libkprof's own work (the hand-off calibration) out of the host time of the counted call in
 * progress on this thread, as context creation is.  Thread-local. */
void kprof_host_time_exclude(uint64_t ns);

#endif
