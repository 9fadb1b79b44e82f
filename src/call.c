/* call.c: the per-thread guard around every wrapped call, call begin and end (host time, the api table),
 * and the contexts libkprof has seen (which call created one). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_api.h"
#include "log.h"
#include "kprof_config.h"
#include "resolve.h"
#include "clock.h"
#include "call.h"
#include "contexts.h"
#include "finish.h"
#include "module.h"
#include "apitable.h"

__thread int kprof_tls_depth __attribute__((tls_model("initial-exec")));
__thread unsigned kprof_tls_host_skip __attribute__((tls_model("initial-exec")));
int kprof_finished;
int kprof_cuda_used;

/* Contexts libkprof has seen, so that the call which creates one can be told apart from a call that
 * merely makes an existing one current on a new thread. */
static struct {
    pthread_mutex_t lock;
    CUcontext seen[256];
    int n, full;
} contexts = { .lock = PTHREAD_MUTEX_INITIALIZER };
static __thread CUcontext tls_ctx __attribute__((tls_model("initial-exec")));
/* tls_ctx is known to be the thread's current context while tls_ctx_known is ctx_epoch + 1 (0: not
 * known): set when a call ended with it current and nothing since can have changed it unseen, so that an
 * untimed launch need not ask the driver (kprof_call_begin_launch).  Another counted call, a call passed
 * through while paused, a context created on the thread or destroyed anywhere (ctx_epoch) unsets it. */
static __thread unsigned tls_ctx_known __attribute__((tls_model("initial-exec")));
static unsigned ctx_epoch;
/* The outermost counted call in progress on this thread (-1: none; a call other than an outer runtime
 * call's inner driver calls raises the guard, so at most two are in progress), and the context-creation
 * time measured inside calls on this thread by the driver hooks. */
static __thread int tls_api __attribute__((tls_model("initial-exec"))) = -1;
static __thread uint64_t tls_ctx_init_ns __attribute__((tls_model("initial-exec")));
/* After a context is created, the next few counted calls register the exit handler again: a static
 * cudart creates its context from inside its first API call and may register its own teardown with
 * atexit() only after that, and handlers run last-registered-first. */
static int reregister_left;

/* The exit handler (kprof_call_start), registered again with atexit() as said above. */
static void (*exit_handler)(void);

/* Notes ctx; returns 1 if libkprof had not seen it before. */
static int context_note(CUcontext ctx)
{
    int is_new = 1;
    pthread_mutex_lock(&contexts.lock);
    for (int i = 0; i < contexts.n; i++)
        if (contexts.seen[i] == ctx)
            is_new = 0;
    if (is_new && contexts.n < (int)(sizeof contexts.seen / sizeof contexts.seen[0]))
        contexts.seen[contexts.n++] = ctx;
    else if (is_new && !contexts.full) {
        contexts.full = 1;
        kprof_warn("more than %d CUDA contexts: later ones are not told apart in the context init rows",
                   contexts.n);
    }
    pthread_mutex_unlock(&contexts.lock);
    if (is_new) {
        __atomic_store_n(&kprof_cuda_used, 1, __ATOMIC_RELEASE); /* after the driver table was filled */
        /* cudart registers its teardown with atexit() during its first call, which created this
         * context; handlers run last-registered-first, so registering again puts the report first. */
        if (exit_handler)
            atexit(exit_handler);
        __atomic_store_n(&reregister_left, 8, __ATOMIC_RELAXED);
    }
    return is_new;
}

/* The first cuInit's host time, until the first context created takes it into its row. */
static uint64_t driver_init_ns;
int kprof_driver_inited;

void kprof_driver_initialized(uint64_t host_ns)
{
    static int once;
    __atomic_store_n(&kprof_driver_inited, 1, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&driver_init_ns, host_ns, __ATOMIC_RELAXED);
    tls_ctx_init_ns += host_ns;
}

void kprof_host_time_exclude(uint64_t ns)
{
    tls_ctx_init_ns += ns;
}

void kprof_context_forget(CUcontext ctx)
{
    pthread_mutex_lock(&contexts.lock);
    for (int i = 0; i < contexts.n; i++)
        if (contexts.seen[i] == ctx) {
            contexts.seen[i] = contexts.seen[--contexts.n];
            break;
        }
    pthread_mutex_unlock(&contexts.lock);
    if (tls_ctx == ctx)
        tls_ctx = NULL;
}

void kprof_contexts_changed(void)
{
    __atomic_add_fetch(&ctx_epoch, 1, __ATOMIC_RELAXED);
    tls_ctx_known = 0;
}

void kprof_context_created(CUcontext ctx, CUdevice device, int api, uint64_t host_ns)
{
    if (!ctx)
        return;
    tls_ctx_known = 0; /* cuCtxCreate makes it current */
    __atomic_store_n(&kprof_driver_inited, 1, __ATOMIC_RELAXED);
    if (!context_note(ctx))
        return;
    tls_ctx_init_ns += host_ns;
    host_ns += __atomic_exchange_n(&driver_init_ns, 0, __ATOMIC_RELAXED);
    kprof_ctx_init_record((int)device, tls_api >= 0 ? tls_api : api, api, host_ns);
}

static int paused;
/* 1 once a call was passed through because profiling was paused; 1 once profiling ran (not started
 * paused, or resumed): for the exit's "nothing profiled" line. */
static int paused_calls, ever_running;
static int without_context; /* calls in flight that began without a current context */

int kprof_call_without_context_in_flight(void)
{
    return __atomic_load_n(&without_context, __ATOMIC_RELAXED);
}

/* Told of every call passed through while paused (kprof_call_on_untimed). */
static void (*untimed_hook)(void);

void kprof_call_on_untimed(void (*fn)(void))
{
    __atomic_store_n(&untimed_hook, fn, __ATOMIC_RELAXED);
}

static void (*first_hook)(void);

void kprof_call_on_first(void (*fn)(void))
{
    __atomic_store_n(&first_hook, fn, __ATOMIC_RELEASE);
}

/* Runs the first-call hook once, on whichever thread gets it first. */
static __attribute__((noinline)) void first_call(void)
{
    void (*fn)(void) = __atomic_exchange_n(&first_hook, NULL, __ATOMIC_ACQ_REL);
    if (fn)
        fn();
}

void kprof_set_paused(int p)
{
    if (!p)
        __atomic_store_n(&ever_running, 1, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&paused, p, __ATOMIC_RELAXED) != p)
        kprof_info("profiling %s", p ? "paused (cudaProfilerStop)" : "running (cudaProfilerStart)");
}

void kprof_call_ctx_ask(struct kprof_call *c)
{
    c->ctx_assumed = 0;
    c->ctx_before = NULL;
    if (KPROF_UNLIKELY(!kprof_driver_is_initialized()) ||
        kprof_drv.cuCtxGetCurrent(&c->ctx_before) != CUDA_SUCCESS)
        c->ctx_before = NULL; /* the driver is not initialised yet: no context */
}

/* kprof_call_begin (guard 1), kprof_call_begin_outer (guard 0) and kprof_call_begin_launch (launch 1);
 * inlined into each with its constants. */
static inline __attribute__((always_inline)) int call_begin(struct kprof_call *c, int api, int guard, int launch)
{
    if (KPROF_UNLIKELY(kprof_is_finished() || kprof_config.disabled || kprof_tls_depth > 0))
        return 0;
    if (!guard && tls_api >= 0)
        return 0; /* cudart calling an exported runtime function of its own: the outer call counts */
    if (KPROF_UNLIKELY(__atomic_load_n(&paused, __ATOMIC_RELAXED))) {
        tls_ctx_known = 0; /* the call may change the thread's context unseen */
        if (!__atomic_load_n(&paused_calls, __ATOMIC_RELAXED))
            __atomic_store_n(&paused_calls, 1, __ATOMIC_RELAXED);
        void (*untimed)(void) = __atomic_load_n(&untimed_hook, __ATOMIC_RELAXED);
        if (untimed)
            untimed(); /* the call's work, if any, is not timed */
        return 0;
    }
    if (KPROF_UNLIKELY(!kprof_driver_ready()))
        return 0;
    if (KPROF_UNLIKELY(__atomic_load_n(&first_hook, __ATOMIC_RELAXED) != NULL))
        first_call();
    if (guard)
        kprof_tls_depth++;
    if (KPROF_UNLIKELY(__atomic_load_n(&reregister_left, __ATOMIC_RELAXED) > 0) &&
        __atomic_sub_fetch(&reregister_left, 1, __ATOMIC_RELAXED) >= 0 && exit_handler)
        atexit(exit_handler);
    c->api = api;
    c->guarded = guard;
    c->outer = tls_api;
    if (tls_api < 0)
        tls_api = api;
    c->ctx_init_ns = tls_ctx_init_ns;
    c->launch = launch;
    c->ctx_epoch = __atomic_load_n(&ctx_epoch, __ATOMIC_RELAXED);
    c->ctx_assumed = launch && tls_ctx_known == c->ctx_epoch + 1;
    if (c->ctx_assumed)
        c->ctx_before = tls_ctx; /* asked by kprof_call_host if the launch is timed */
    else
        kprof_call_ctx_ask(c);
    c->without_ctx = !c->ctx_before;
    if (KPROF_UNLIKELY(c->without_ctx))
        __atomic_add_fetch(&without_context, 1, __ATOMIC_RELAXED); /* call_end takes it back */
    c->host_untimed = 0;
    c->end_ns = 0;
    /* A launch without a current context may create one inside: timed from entry, as other calls. */
    c->t0_ns = launch && c->ctx_before ? 0 : kprof_now_ns();
    return 1;
}

int kprof_call_begin(struct kprof_call *c, int api)
{
    return call_begin(c, api, 1, 0);
}

int kprof_call_begin_outer(struct kprof_call *c, int api)
{
    return call_begin(c, api, 0, 0);
}

int kprof_call_begin_launch(struct kprof_call *c, int api)
{
    return call_begin(c, api, 1, 1);
}

static uint64_t call_end(struct kprof_call *c, int ok);

uint64_t kprof_call_end(struct kprof_call *c, int ok)
{
    if (c->host_untimed == 1 && c->ctx_assumed) {
        /* An untimed launch in the context known current: no time, and the context stays known. */
        tls_api = c->outer;
        kprof_tls_depth--; /* launches raise the guard */
        if (kprof_api_counted[c->api] && c->outer < 0)
            kprof_api_count(c->api, ok);
        return 0;
    }
    return call_end(c, ok);
}

static __attribute__((noinline)) uint64_t call_end(struct kprof_call *c, int ok)
{
    if (KPROF_UNLIKELY(c->without_ctx))
        __atomic_sub_fetch(&without_context, 1, __ATOMIC_RELAXED);
    uint64_t dt = 0;
    if (c->host_untimed != 1) {
        dt = (c->end_ns ? c->end_ns : kprof_now_ns()) - c->t0_ns;
        uint64_t created = tls_ctx_init_ns - c->ctx_init_ns; /* measured by the context-creation hooks */
        dt = dt > created ? dt - created : 0;
    }
    /* A runtime call that succeeded has initialised the driver, though libkprof may not have seen the
     * cuInit: another tool can hand the runtime its driver entry points (Nsight Compute's injection
     * library answers the runtime's dlopen of libcuda.so.1 with itself), and then none of libkprof's
     * driver wrappers is called. */
    if (KPROF_UNLIKELY(!kprof_driver_is_initialized()) && ok && strncmp(kprof_api_names[c->api], "cuda", 4) == 0)
        __atomic_store_n(&kprof_driver_inited, 1, __ATOMIC_RELAXED);
    /* Only look again when the call may have changed the thread's context.  A launch made with a current
     * context leaves it current. */
    int known = c->launch && c->ctx_before && c->ctx_before == tls_ctx;
    if ((c->ctx_before == NULL || c->ctx_before != tls_ctx || c->api == KPROF_API_cudaSetDevice) &&
        kprof_driver_is_initialized()) {
        CUcontext after = NULL;
        if (kprof_drv.cuCtxGetCurrent(&after) == CUDA_SUCCESS && after) {
            known = 1;
            if (after != tls_ctx && context_note(after) && after != c->ctx_before) {
                CUdevice dev = -1;
                if (kprof_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
                    dev = -1;
                /* No creation hook saw it: the driver function is unknown. */
                kprof_ctx_init_record((int)dev, c->outer >= 0 ? c->outer : c->api, -1, dt);
                tls_ctx_init_ns += dt; /* an outer call leaves it out too */
                dt = 0;                /* the call's own statistics leave context creation out */
            }
            tls_ctx = after;
        }
    }
    if (kprof_api_counted[c->api] && c->outer < 0) {
        if (c->host_untimed == 1)
            kprof_api_count(c->api, ok);
        else if (c->host_untimed)
            kprof_api_record_untimed(c->api, dt, ok);
        else
            kprof_api_record(c->api, dt, ok);
    }
    tls_ctx_known = known ? c->ctx_epoch + 1 : 0; /* unknown if a context was destroyed meanwhile */
    tls_api = c->outer;
    if (c->guarded)
        kprof_tls_depth--;
    return dt;
}


void kprof_call_start(void (*on_exit)(void), int start_paused)
{
    exit_handler = on_exit;
    __atomic_store_n(&paused, start_paused, __ATOMIC_RELAXED);
    __atomic_store_n(&ever_running, !start_paused, __ATOMIC_RELAXED);
}

int kprof_call_never_ran(void)
{
    return !__atomic_load_n(&ever_running, __ATOMIC_RELAXED) &&
           (__atomic_load_n(&paused_calls, __ATOMIC_RELAXED) || __atomic_load_n(&kprof_cuda_used, __ATOMIC_RELAXED));
}

/* ---- fork ------------------------------------------------------------------------------------ */

/* contexts.lock is never held across a call: only a preempted holder makes fork wait. */
static int fork_held;

static int fork_prepare(void)
{
    struct timespec t = kprof_deadline_ms(1000);
    fork_held = pthread_mutex_timedlock(&contexts.lock, &t) == 0;
    return fork_held;
}

static void fork_parent(void)
{
    if (fork_held)
        pthread_mutex_unlock(&contexts.lock);
}

static void fork_child(void)
{
    pthread_mutex_init(&contexts.lock, NULL);
}

/* In the child: no context of the parent's can be used; the driver must be initialised afresh. */
static void call_reset(void)
{
    contexts.n = 0;
    __atomic_store_n(&kprof_driver_inited, 0, __ATOMIC_RELAXED);
    tls_ctx = NULL;
    tls_ctx_known = 0;
    tls_ctx_init_ns = 0;
    __atomic_store_n(&kprof_cuda_used, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&paused_calls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&without_context, 0, __ATOMIC_RELAXED);
}

KPROF_MODULE(call, 50, fork_prepare, fork_parent, fork_child, call_reset)
