/* kprof.h: libkprof's internal interfaces, shared by the hook, timing, statistics and report layers. */
#ifndef KPROF_KPROF_H
#define KPROF_KPROF_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

/* cuda.h as NVIDIA's own driver build reads it: every exported version of a function (cuMemAlloc_v2,
 * cuLaunchKernel_ptsz, cuGetProcAddress with 4 arguments...) declared under its own name with its own
 * prototype, and no name remapped by a macro.  libkprof always names the exported function it means. */
#define __CUDA_API_VERSION_INTERNAL 1

/* uthash tables never abort the app on out-of-memory: the entry is just not added. */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>
#include "histogram.h"
#include <cuda.h>
#include "cudart_private.h"
#include "calibrate.h"

/* Only interposed CUDA entry points are exported; everything else is hidden (-fvisibility=hidden). */
#define KPROF_EXPORT __attribute__((visibility("default")))
#define KPROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define KPROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Every runtime and driver function of the API table is declared with CUDA's own type. */
#define KPROF_RT(name, proto, cls) extern __typeof__(proto) name;
#include "api.def"

/* ================================================================================= config.c ===== */

#include <regex.h>

enum kprof_format { KPROF_FORMAT_TEXT, KPROF_FORMAT_CSV, KPROF_FORMAT_JSON };
enum kprof_log_level { KPROF_LOG_WARN, KPROF_LOG_INFO, KPROF_LOG_DEBUG };
enum kprof_group { KPROF_GROUP_NAME, KPROF_GROUP_SHAPE };
enum kprof_names { KPROF_NAMES_DEMANGLED, KPROF_NAMES_MANGLED };

/* The effective configuration: defaults, then KPROF_* environment variables (config.c is the only code
 * that reads the environment).  Filled once by kprof_config_load() before any hook runs; read-only after.
 * man/libkprof.7 (ENVIRONMENT) documents each variable. */
struct kprof_config {
    enum kprof_format format;   /* KPROF_FORMAT: text (default), csv or json */
    const char *output;         /* KPROF_OUTPUT: report path pattern; NULL means stderr (csv: kprof.%p) */
    const char *trace;          /* KPROF_TRACE: Chrome trace path pattern; NULL means no trace */
    long trace_limit;           /* KPROF_TRACE_LIMIT: most trace events kept */
    enum kprof_log_level log;   /* KPROF_LOG: warn (default), info, debug */
    int disabled;               /* KPROF_DISABLE=1: every wrapper passes straight through */
    int start_paused;           /* KPROF_START=paused: nothing profiled until cudaProfilerStart */
    int signals;                /* KPROF_SIGNALS=1: write the report on SIGINT/SIGTERM too */
    long exit_timeout_ms;       /* KPROF_EXIT_TIMEOUT: longest wait for pending events at exit, ms */
    long max_events;            /* KPROF_MAX_EVENTS: events per context (two per timed call) */
    enum kprof_group group;     /* KPROF_GROUP: one row per kernel name, or per name and launch shape */
    enum kprof_names names;     /* KPROF_NAMES: show demangled (default) or mangled names */
    long top;                   /* KPROF_TOP: kernels shown in the text table; 0 = all */
    long sample;                /* KPROF_SAMPLE: time 1 launch in N per kernel (the first always); 1 = all */
    int one_event;              /* KPROF_ONE_EVENT: a launch on a busy stream starts at the previous stop */
    int calibrate;              /* KPROF_CALIBRATE: measure and take off each context's event hand-off */
    const char *tool_attached;  /* another tool that counts kernels (CUDA_INJECTION64_PATH...), or NULL */
    int64_t invocation_ns;      /* KPROF_INVOCATION: start of the kprof(1) invocation, ns since the epoch by
                                   the file system's clock; 0 = none.  Reports are never written over a
                                   file modified since (another process of the invocation wrote it) */
    int has_include, has_exclude;
    regex_t include, exclude;   /* KPROF_INCLUDE / KPROF_EXCLUDE: extended regexes on demangled names */
};
extern struct kprof_config kprof_config;

/* Reads the KPROF_* variables into kprof_config, warning once (on stderr) about unknown names and bad
 * values, each of which falls back to its default.  Not thread-safe: called once from the constructor. */
void kprof_config_load(void);

/* Expands a KPROF_OUTPUT/KPROF_TRACE pattern: %p the pid, %h the host name, %q{VAR} the value of the
 * environment variable VAR (empty if unset; its name of any length), %% a percent sign; any other %
 * sequence is kept as it is.
 * Returns a malloc'd string the caller frees, or NULL when out of memory. */
char *kprof_expand_path(const char *pattern);

/* 1 when a kernel of this demangled name is to be profiled (KPROF_INCLUDE / KPROF_EXCLUDE, which never
 * hold back-references: the match is polynomial, but may still take a while on a long name, so call it
 * without libkprof's locks held).  Thread-safe. */
int kprof_name_selected(const char *demangled);

/* ==================================================================================== log.c ===== */

/* Writes "libkprof: <message>\n" to stderr when `level` is enabled by KPROF_LOG, in one write(): control
 * characters in the message are escaped (\n, \r, \t, \xHH), so it stays one line, and a message longer
 * than a line (1024 bytes) is cut in its middle ("..."), so its end, the reason, stays.  Never raises
 * SIGPIPE; keeps errno.  Thread-safe; not async-signal-safe (it may call malloc). */
void kprof_log(enum kprof_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define kprof_warn(...) kprof_log(KPROF_LOG_WARN, __VA_ARGS__)
#define kprof_info(...) kprof_log(KPROF_LOG_INFO, __VA_ARGS__)
#define kprof_debug(...) kprof_log(KPROF_LOG_DEBUG, __VA_ARGS__)

/* SIGPIPE held off the calling thread while libkprof writes to a pipe whose reader may be gone: block
 * saves the mask and whether SIGPIPE was pending; restore consumes a SIGPIPE that became pending since
 * (libkprof's own: sigtimedwait with a zero timeout), then restores the mask.  Per thread; keeps errno. */
struct kprof_sigpipe {
    sigset_t mask;   /* the thread's signal mask before */
    int blocked;     /* 0 when the mask could not be changed (restore does nothing) */
    int was_pending; /* SIGPIPE was pending before: not libkprof's, left alone */
};
void kprof_sigpipe_block(struct kprof_sigpipe *sp);
void kprof_sigpipe_restore(struct kprof_sigpipe *sp);

/* ================================================================================== driver.c ===== */

/* The driver functions libkprof calls itself (KPROF_DRV in api.def), from libcuda.so.1. */
struct kprof_driver {
#define KPROF_DRV(name) __typeof__(name) *name;
#define KPROF_DRVOPT(name) __typeof__(name) *name; /* NULL when the driver lacks it */
#include "api.def"
};
extern struct kprof_driver kprof_drv;

/* The driver functions libkprof wraps (KPROF_DH in api.def): index, exported name, the driver's own
 * function (from libcuda.so.1, NULL if it lacks it) and libkprof's wrapper. */
enum kprof_dh_index {
#define KPROF_DH(name, cls) KPROF_DHI_##name,
#include "api.def"
    KPROF_DH_COUNT
};
extern const char *const kprof_dh_names[KPROF_DH_COUNT];
extern void *kprof_dh_real[KPROF_DH_COUNT];
extern const void *const kprof_dh_wrapper[KPROF_DH_COUNT];

/* The driver's function behind a driver wrapper (loading the driver first if needed). */
#define KPROF_REAL_DRV(name) ((__typeof__(name) *)kprof_dh_real_get(KPROF_DHI_##name))
void *kprof_dh_real_get(int index);

/* Loads libcuda.so.1, every KPROF_DRV function and the real functions behind the KPROF_DH wrappers,
 * once (pthread_once); thread-safe.  Returns 1 when the driver is usable; 0 (after one warning) when it
 * is missing, and libkprof then only passes calls through. */
int kprof_driver_ready(void);

/* Given a driver function's address (as cuGetProcAddress or dlsym found it), returns libkprof's wrapper
 * for it, or NULL when libkprof does not wrap that function.  Matching by address, not by name and
 * version, means a function version libkprof does not know is never replaced by the wrong wrapper. */
const void *kprof_driver_wrapper_for(const void *real);

/* ================================================================================ hook_dlsym.c ===== */

/* glibc's own dlsym, for libkprof's internal lookups (its exported dlsym is the hook).  RTLD_NEXT passed
 * here resolves relative to libkprof. */
void *kprof_real_dlsym(void *handle, const char *name);

/* The next dlsym after libkprof's in the chain of preloaded definitions (glibc's, or another interposer's
 * that then sees the lookup), for the functions behind libkprof's driver wrappers: what the rest of the
 * chain would have handed the program.  Thread-safe; sets dlerror like dlsym. */
void *kprof_next_dlsym(void *handle, const char *name);

/* ==================================================================================== core.c ===== */

/* The real runtime functions: KPROF_RT and KPROF_RTUSE entries of api.def, found lazily with
 * dlsym(RTLD_NEXT) because a program may load libcudart after libkprof (Python does). */
struct kprof_runtime {
#define KPROF_RT(name, proto, cls) __typeof__(proto) *name;
#define KPROF_RTUSE(name) __typeof__(name) *name;
#include "api.def"
};
extern struct kprof_runtime kprof_rt;

/* Looks `name` up with dlsym(RTLD_NEXT) and stores it in *slot; returns it, or NULL (after one warning)
 * when no later library defines it.  Thread-safe and idempotent. */
void *kprof_rt_resolve(void **slot, const char *name);

/* The real function behind a wrapper: one predictable branch once resolved. */
#define KPROF_REAL(name)                                                                           \
    (__atomic_load_n(&kprof_rt.name, __ATOMIC_ACQUIRE)                                             \
         ? kprof_rt.name                                                                           \
         : (__typeof__(kprof_rt.name))kprof_rt_resolve((void **)&kprof_rt.name, #name))

/* 1 when p lies in a copy of libkprof (this one or another file's): the object holding p exports
 * kprof_instance_marker.  Takes the dynamic linker's lock; not for the launch path.  Thread-safe. */
int kprof_is_libkprof(const void *p);

/* Host monotonic clock in ns. */
uint64_t kprof_now_ns(void);
/* The CLOCK_REALTIME time `ms` milliseconds from now, for pthread_*_timedlock and sem_timedwait. */
struct timespec kprof_deadline_ms(long ms);

/* Host clock when libkprof started: the origin of the process timeline. */
extern uint64_t kprof_start_ns;

/* Per-thread re-entrancy depth: > 0 while the thread is inside a libkprof wrapper or in libkprof's own
 * work, so nested CUDA calls are passed through and never counted twice. */
extern __thread int kprof_tls_depth __attribute__((tls_model("initial-exec")));

/* 1 once the report has been written (or libkprof disabled itself): wrappers then pass through.  Read it
 * with kprof_is_finished() (an atomic load: threads may still be launching while another exits). */
extern int kprof_finished;
static inline int kprof_is_finished(void)
{
    return __atomic_load_n(&kprof_finished, __ATOMIC_RELAXED);
}

/* Range control: while paused (KPROF_START=paused until cudaProfilerStart, or after cudaProfilerStop)
 * wrappers pass calls through uncounted.  Thread-safe. */
void kprof_set_paused(int paused);

/* The state a wrapper keeps across the real call. */
struct kprof_call {
    int api;              /* index into the API table (enum kprof_api) */
    CUcontext ctx_before; /* the thread's current context before the call (NULL: none) */
    uint64_t t0_ns;       /* host clock at entry */
    uint64_t ctx_init_ns; /* this thread's context-creation time so far, to leave out of this call's */
};

/* Starts a counted call: returns 0 if the call must pass straight through (libkprof disabled, finished,
 * or re-entered on this thread), else fills *c and raises the guard.  Must be paired with
 * kprof_call_end() when it returns 1. */
int kprof_call_begin(struct kprof_call *c, int api);

/* Ends a counted call: drops the guard, adds the host time to the API table, and, when the call created a
 * CUDA context, moves its host time to the `context init` row instead.  Returns the host time in ns.
 * `ok` is 1 when the real call succeeded. */
uint64_t kprof_call_end(struct kprof_call *c, int ok);

/* Called by the context-creation hooks (cuDevicePrimaryCtxRetain, cuCtxCreate) with the host time of
 * the call that returned ctx: if libkprof had not seen ctx, that time goes to the `context init` row of
 * `device`, attributed to the runtime call in progress on this thread (if any) or to `api`, and is left
 * out of the enclosing call's own host time.  Thread-safe. */
void kprof_context_created(CUcontext ctx, CUdevice device, int api, uint64_t host_ns);

/* 1 once the driver is initialised (a cuInit succeeded, or a context was seen created): before that the
 * driver answers cuCtxGetCurrent with CUDA_ERROR_NOT_INITIALIZED, a failed call in the app's process that
 * libkprof must not make (its context queries are skipped: no context yet).  0 again in a forked child,
 * whose driver starts uninitialised.  Read with kprof_driver_is_initialized(). */
extern int kprof_driver_inited;
static inline int kprof_driver_is_initialized(void)
{
    return __atomic_load_n(&kprof_driver_inited, __ATOMIC_RELAXED);
}

/* Forgets a destroyed context, so that one created later (even at the same address) is seen as new. */
void kprof_context_forget(CUcontext ctx);

/* Leaves ns of libkprof's own work (the hand-off calibration) out of the host time of the counted call in
 * progress on this thread, as context creation is.  Thread-local. */
void kprof_host_time_exclude(uint64_t ns);

/* Called by the cuInit hook with its host time: the first successful driver initialisation is part of
 * creating the first context, so it joins that context's `context init` row and, like it, is left out of
 * the enclosing call's own host time.  Thread-safe. */
void kprof_driver_initialized(uint64_t host_ns);

/* fork(): each module's pthread_atfork handlers.  prepare takes the module's locks in the order the code
 * nests them, waiting a bounded time (a thread may be stuck in the driver, whose own fork handler holds
 * its locks), and returns 0 if it could not; the child then starts afresh, touching none of the parent's
 * CUDA objects, or, if some prepare failed, leaves libkprof's state alone and passes calls through. */
int kprof_events_fork_prepare(void);
void kprof_events_fork_parent(void);
void kprof_events_fork_child(void);
int kprof_stats_fork_prepare(void);
void kprof_stats_fork_parent(void);
void kprof_stats_fork_child(void);
int kprof_graphs_fork_prepare(void);
void kprof_graphs_fork_parent(void);
void kprof_graphs_fork_child(void);

/* 1 in a child made by fork() after libkprof started: its report names get ".<pid>" unless their
 * pattern has %p, so that they never overwrite the parent's. */
extern int kprof_forked_child;

/* The bodies that runtime (cudaError_t, cudaSuccess) and driver (CUresult, CUDA_SUCCESS) wrappers share:
 * `call` is the real call, evaluated once; the wrapper returns exactly its result. */

/* Host time only (synchronisation, stream creation...). */
#define KPROF_WRAP_HOST(api, type, success, call)                                                  \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        type r_ = (call);                                                                          \
        kprof_call_end(&c_, r_ == (success));                                                      \
        return r_;                                                                                 \
    } while (0)

/* A call whose success is recorded afterwards: `record` runs when it succeeded and `cond` holds, with
 * ns_ its host time (context creation left out). */
#define KPROF_WRAP_RECORD(api, type, success, cond, record, call)                                  \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        type r_ = (call);                                                                          \
        uint64_t ns_ = kprof_call_end(&c_, r_ == (success));                                       \
        if (r_ == (success) && (cond))                                                             \
            record;                                                                                \
        (void)ns_;                                                                                 \
        return r_;                                                                                 \
    } while (0)

/* An allocation of `bytes` whose address the call stores at ptrp (kind: enum kprof_mem). */
#define KPROF_WRAP_ALLOC(api, type, success, kind, ptrp, bytes, call)                              \
    KPROF_WRAP_RECORD(api, type, success, (ptrp),                                                  \
                      kprof_alloc_record((kind), (void *)(uintptr_t) * (ptrp), (bytes), ns_), call)

/* A free of ptr: `record` is the statistics call for a successful one (ns_ is its host time). */
#define KPROF_WRAP_FREE(api, type, success, record, ptr, call)                                     \
    KPROF_WRAP_RECORD(api, type, success, (ptr), record, call)

/* Runs the exit sequence once: drains pending events (bounded by KPROF_EXIT_TIMEOUT), writes the report,
 * and turns the wrappers into pass-through.  Safe to call from several places; only the first runs. */
void kprof_finish(void);

/* ================================================================================= preload.c ===== */

/* A kernel handle (CUfunction, CUkernel, or a runtime launch key) and the context it was made ready in. */
struct kprof_loaded_key {
    const void *handle;
    CUcontext ctx;
    unsigned epoch;     /* kprof_preload_epoch when made ready (a module unload makes it stale) */
};
extern unsigned kprof_preload_epoch;
#define KPROF_TLS_READY 16
extern __thread struct kprof_loaded_key kprof_tls_ready[KPROF_TLS_READY] __attribute__((tls_model("initial-exec")));
static inline unsigned kprof_preload_slot(const void *handle)
{
    return (unsigned)(((uintptr_t)handle >> 4) ^ ((uintptr_t)handle >> 12)) % KPROF_TLS_READY;
}

/* The first launch of a kernel in a context loads its module there (lazy loading): host work that would
 * sit between the launch's start event and the kernel.  kprof_preload does that loading before the start
 * event is recorded (cuFuncIsLoaded / cuFuncLoad, after cuKernelGetFunction for a CUkernel), once per
 * handle and context; later launches find the pair in a per-thread cache (two compares).  `runtime`: the
 * handle is a runtime launch key (a cudaKernel_t, or a host function pointer, which is left alone).
 * Needs the CUDA 12.4 driver functions; without them it does nothing.  Thread-safe. */
void kprof_preload_slow(const void *handle, CUcontext ctx, int runtime);
static inline void kprof_preload(const void *handle, CUcontext ctx, int runtime)
{
    const struct kprof_loaded_key *k = &kprof_tls_ready[kprof_preload_slot(handle)];
    if (KPROF_LIKELY(k->handle == handle && k->ctx == ctx &&
                     k->epoch == __atomic_load_n(&kprof_preload_epoch, __ATOMIC_RELAXED)) || !handle || !ctx)
        return;
    kprof_preload_slow(handle, ctx, runtime);
}
/* Notes a handle known to be a CUkernel (from cuLibraryGetKernel or __cudaGetKernel).  Thread-safe. */
void kprof_preload_note_kernel(const void *handle);
int kprof_preload_fork_prepare(void);
void kprof_preload_fork_parent(void);
void kprof_preload_fork_child(void);

/* ================================================================================== events.c ===== */

/* What a completed event pair's duration is added to. */
enum kprof_target_kind {
    KPROF_TARGET_KERNEL,       /* a kernel launch */
    KPROF_TARGET_KERNEL_FIRST, /* a kernel's first launch (lazy module loading makes it slow) */
    KPROF_TARGET_COPY,
};

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
    unsigned char pred;   /* enum kprof_pred: what libkprof last put on the stream before this call */
    unsigned long epoch[3]; /* stream-order counters when the call began (see kprof_chain_break) */
};

/* What kprof_timing_begin is asked for: nothing (KPROF_SAMPLE skips the call), a start and a stop event
 * of the call's own (copies, memsets), or, for kernel and graph launches, either that or, when the
 * stream is still busy with the previous timed call, only a stop event (one-event timing). */
enum kprof_time_want { KPROF_TIME_NONE, KPROF_TIME_PAIR, KPROF_TIME_LAUNCH };

/* Records a start event on `stream` in the current context, from that context's pool.  per_thread is 1
 * for _ptsz/_ptds callers, for whom stream 0 is the per-thread default stream.  Leaves t->pool NULL (the
 * call stays untimed) when `want` is KPROF_TIME_NONE (the capture check still runs), there is no current
 * context, the stream is capturing, or the pool is empty.
 *
 * One-event timing (want KPROF_TIME_LAUNCH, KPROF_ONE_EVENT=1, every launch timed): recording a timing
 * event costs the host about 1.5 us, the bulk of what libkprof adds to a launch.  When the stream's last
 * operation is a timed call whose stop event has not yet completed (cuEventQuery says not ready, 0.26
 * us), this launch cannot start before that stop, and starts right after it: that event serves as this
 * launch's start, and only a stop event is recorded.  Not while any operation libkprof did not time (see
 * kprof_chain_break) or, across the implicit synchronisation of the legacy default stream with blocking
 * streams, a timed call on a stream that can delay this one has been issued since; not while a stream
 * capture is in progress.  The shared event goes back to the pool once both pairs are read.
 * Called with the guard raised.  Never changes the app's CUDA error state. */
void kprof_timing_begin(struct kprof_timing *t, cudaStream_t stream, int per_thread, enum kprof_time_want want);

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

/* Called for every operation put on a stream that is not timed with events (the app's event records,
 * waits on events, host functions, stream memory operations and the other STREAMOP wrappers of api.def,
 * a launch left untimed by KPROF_INCLUDE/EXCLUDE, a pause, a failure to time, a thread's first call),
 * and when a stream is destroyed or a thread that used its per-thread stream exits (their handle or id
 * can come back): no launch issued after it is timed from the stop event of a call issued before it.
 * Lock-free (one relaxed atomic increment); safe from any thread. */
void kprof_chain_break(void);

/* An operation libkprof does not time (a wait, a host function...) was put on `stream` (per_thread: a
 * _ptsz/_ptds caller, for whom stream 0 is the per-thread default stream) in the current context: the
 * next kernel there has it (pred: enum kprof_pred), not libkprof's last timed call, as its predecessor.
 * Thread-safe. */
void kprof_stream_other(CUstream stream, int per_thread, int pred);
/* A stream argument that names no stream to mark (kprof_stream_other is not called). */
#define KPROF_NO_STREAM ((CUstream)(intptr_t)-1)

/* Records the stop event and queues the pair for harvesting; the duration goes to `target` (a struct
 * kprof_kernel * or struct kprof_copy * as `kind` says; `bytes` is a copy's size).  If `ok` is 0 (the
 * call failed) the events go back to the pool instead.  Returns 1 if the pair was queued.
 *
 * Idle-stream correction (kernel launches): on an idle stream the GPU stamps the start event at once,
 * while the kernel reaches the GPU only when the host has submitted it, so the pair also holds that host
 * time (the launch latency, about 5 us on an H200).  If the start event has already completed when the
 * launch returns, the stream was idle: the host time from the start event's record to the launch's
 * return is remembered and taken off the pair's duration when it is read.  Copies are not corrected:
 * a copy call may wait for its own work (pageable memory), and then its host time is the work. */
int kprof_timing_end(struct kprof_timing *t, int ok, enum kprof_target_kind kind, void *target,
                     uint64_t bytes, const unsigned *grid, const unsigned *block);

/* One completed, timed call, as the harvester read it (times in ns). */
struct kprof_sample {
    enum kprof_target_kind kind;
    void *target;            /* struct kprof_kernel * or struct kprof_copy * */
    uint64_t dur_ns;         /* GPU duration, idle-stream latency taken off */
    int has_time;            /* 1 when start_ns is known */
    uint64_t start_ns;       /* on the process timeline: the GPU clock, in ns since libkprof started */
    int device;
    unsigned stream_index;   /* the stream's number in the process (see kprof_stream_named) */
    uint64_t bytes;          /* copies and memsets */
    unsigned grid[3], block[3];
};

/* Before a context is destroyed (cudaDeviceReset, cuCtxDestroy, the last primary-context release):
 * reads that context's pending pairs (ctx NULL: those of every context on `device`), waiting up to
 * timeout_ms.  Thread-safe. */
void kprof_events_context_ending(CUcontext ctx, int device, long timeout_ms);
/* After it was destroyed: drops its event pool (its events died with it), so a context created later,
 * even at the same address, gets a fresh one.  Thread-safe. */
void kprof_events_context_gone(CUcontext ctx, int device);

/* Harvests every completed pair, waiting up to timeout_ms for the rest; stops the harvesting thread.
 * Returns the number of pairs still incomplete.  Thread-safe. */
long kprof_events_drain(long timeout_ms);

/* Counters for the report: pairs dropped because their events failed, calls untimed for lack of events,
 * events created, launches timed with one event (their start shared with the previous call's stop). */
struct kprof_event_counters { long incomplete, failed, pool_exhausted, created, one_event; };
void kprof_events_counters(struct kprof_event_counters *out);
/* Copies the calibration of each context timed so far (at most max, oldest first) to out; returns how
 * many.  Thread-safe. */
size_t kprof_events_calibrations(struct kprof_calibration *out, size_t max);

/* =================================================================================== stats.c ===== */

/* The API table's index for each interposed runtime and driver function. */
enum kprof_api {
#define KPROF_RT(name, proto, cls) KPROF_API_##name,
#define KPROF_DH(name, cls) KPROF_API_##name,
#include "api.def"
    KPROF_API_COUNT
};
extern const char *const kprof_api_names[KPROF_API_COUNT];
extern const char kprof_api_counted[KPROF_API_COUNT]; /* 0 for NAME, PROC and CTX entries */

/* Per-kernel aggregate, one per mangled name; lives until the process exits.  calls is counted on the
 * launching thread; the time fields are updated by the harvester under the statistics lock. */
struct kprof_kernel {
    char *mangled;             /* owned */
    char *name;                /* demangled (or as KPROF_NAMES says), owned */
    int selected;              /* 0 when KPROF_INCLUDE/KPROF_EXCLUDE leave it out: passed through */
    uint64_t calls;            /* successful launches (atomic) */
    uint64_t timed;            /* launches with a completed event pair, the first included */
    uint64_t total_ns;         /* GPU time of every timed launch */
    int first_timed;           /* 1 when the first launch was timed; its time is first_ns */
    uint64_t first_ns;
    uint64_t steady_ns, min_ns, max_ns; /* over the timed launches after the first */
    double mean_ns, m2;        /* Welford running mean and sum of squares, launches after the first */
    struct kprof_hist hist;    /* durations of the launches after the first, for percentiles */
    unsigned grid[3], block[3];/* launch shape: the group's (KPROF_GROUP=shape) or the last one seen */
    struct kprof_kernel *shapes; /* KPROF_GROUP=shape: one entry per launch shape (uthash by shape) */
    struct kprof_kernel *parent;
    unsigned shape_key[6];
    uint64_t captured;         /* launches made while their stream was capturing into a graph (atomic) */
    uint64_t graph_calls;      /* of calls, those run as kernel nodes of graph launches (atomic): timed with
                                * their graph, not here */
    int in_conditional;        /* a kernel node of a conditional graph body: launches there are unknown */
    uint64_t seq;              /* KPROF_SAMPLE: launches offered for timing so far (atomic) */
    int is_graph;              /* a graphs-table row: a graph exec, its launches timed as one pair */
    UT_hash_handle hh;         /* by mangled name, or by shape among a parent's shapes */
};

/* KPROF_GROUP=shape: the entry of kernel k for one launch shape, created on first use.  Thread-safe. */
struct kprof_kernel *kprof_kernel_shaped(struct kprof_kernel *k, const unsigned grid[3], const unsigned block[3]);

/* A kernel's average, minimum and maximum GPU time in ns, over its timed launches after the first, or
 * over the first alone when it is the only one timed.  Returns 0 when no launch was timed. */
static inline int kprof_kernel_steady(const struct kprof_kernel *k, double *avg, uint64_t *min, uint64_t *max)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (n > 0) {
        *avg = (double)k->steady_ns / (double)n;
        *min = k->min_ns;
        *max = k->max_ns;
        return 1;
    }
    if (k->first_timed) {
        *avg = (double)k->first_ns;
        *min = *max = k->first_ns;
        return 1;
    }
    return 0;
}

/* A kernel's mean GPU time so far (ns), from its timed launches; 0 when none was timed.  Lock-free (a racy
 * read of counters the harvester updates: an estimate for decisions, never reported). */
static inline double kprof_kernel_mean_ns(const struct kprof_kernel *k)
{
    uint64_t n = __atomic_load_n(&k->timed, __ATOMIC_RELAXED);
    uint64_t total = __atomic_load_n(&k->total_ns, __ATOMIC_RELAXED);
    return n ? (double)total / (double)n : 0.0;
}

/* Spread of a kernel's launches after the first: percentile q (0-100) from its histogram (relative
 * error at most KPROF_HIST_REL_ERROR) and the sample standard deviation, in ns; the first launch alone
 * when it is the only one timed. */
uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q);
double kprof_kernel_stddev(const struct kprof_kernel *k);

enum kprof_dir { KPROF_HTOH, KPROF_HTOD, KPROF_DTOH, KPROF_DTOD, KPROF_DIR_COUNT };
extern const char *const kprof_dir_names[KPROF_DIR_COUNT];

/* Per-direction copy aggregate. */
struct kprof_copy {
    uint64_t count, bytes;     /* successful copies (atomic) */
    uint64_t timed, timed_bytes, total_ns, min_ns, max_ns;
};

/* Host memory of a copy's host side: page-locked (pinned) or ordinary (pageable); NONE for DtoD. */
enum kprof_host_mem { KPROF_HOST_NONE, KPROF_HOST_PINNED, KPROF_HOST_PAGEABLE, KPROF_HOST_COUNT };
extern const char *const kprof_host_mem_names[KPROF_HOST_COUNT];

/* Finds or creates the aggregate for a kernel launched through `key` (a cudaKernel_t or a host stub).
 * The name comes from registration, then the driver, then cudaFuncGetName.  Thread-safe; the returned
 * pointer stays valid for the life of the process. */
struct kprof_kernel *kprof_kernel_for(const void *key);

/* The same for a kernel launched through the driver API: named by cuFuncGetName/cuKernelGetName (the
 * name copied at once: a module can be unloaded later). */
struct kprof_kernel *kprof_kernel_for_function(CUfunction f);
/* The same for a CUkernel handle known to be one (a graph kernel node's `kern`): named by cuKernelGetName
 * first, so that no cuFuncGetName is asked about it and fails. */
struct kprof_kernel *kprof_kernel_for_kernel(CUkernel k);

/* KPROF_SAMPLE=N: 1 when this launch of k is to be timed (the first, then every Nth).  Lock-free. */
static inline int kprof_sample_this(struct kprof_kernel *k)
{
    if (KPROF_LIKELY(kprof_config.sample <= 1) || !k)
        return 1;
    return __atomic_fetch_add(&k->seq, 1, __ATOMIC_RELAXED) % (uint64_t)kprof_config.sample == 0;
}

/* What a launch of k asks kprof_timing_begin for: KPROF_TIME_LAUNCH, or KPROF_TIME_NONE when KPROF_SAMPLE
 * skips it. */
static inline enum kprof_time_want kprof_launch_want(struct kprof_kernel *k)
{
    return kprof_sample_this(k) ? KPROF_TIME_LAUNCH : KPROF_TIME_NONE;
}

/* A kernel's launches outside graphs: the ones that can be timed one by one. */
static inline uint64_t kprof_kernel_direct(const struct kprof_kernel *k)
{
    return k->calls > k->graph_calls ? k->calls - k->graph_calls : 0;
}

/* A kernel's total GPU time in ns over its launches outside graphs (a graph's kernels are timed with their
 * graph, in the graphs table): measured when every such launch was timed, else (KPROF_SAMPLE) estimated
 * from the timed ones: measured total x direct launches / timed. */
static inline uint64_t kprof_kernel_total(const struct kprof_kernel *k)
{
    uint64_t direct = kprof_kernel_direct(k);
    if (k->timed == 0 || k->timed >= direct)
        return k->total_ns;
    return (uint64_t)((double)k->total_ns * (double)direct / (double)k->timed + 0.5);
}

/* The entry a launch of k with this shape counts in: k itself, or its shape's entry under
 * KPROF_GROUP=shape.  NULL stays NULL. */
static inline struct kprof_kernel *kprof_kernel_select(struct kprof_kernel *k, dim3 grid, dim3 block)
{
    if (!k || kprof_config.group != KPROF_GROUP_SHAPE)
        return k;
    unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };
    return kprof_kernel_shaped(k, g, b);
}

/* Counts one launch made while its stream was capturing (it runs only when the graph is launched).
 * Thread-safe, lock-free. */
void kprof_kernel_captured(struct kprof_kernel *k);

/* ---- graphs.c: CUDA graphs ---- */

/* What libkprof knows of an instantiated graph: its row in the graphs table and its kernel nodes (child
 * graphs included), walked once at instantiation. */
struct kprof_graph {
    struct kprof_kernel *row;       /* the graphs-table aggregate (is_graph = 1) */
    size_t nkernels;
    struct kprof_kernel **kernels;  /* one per kernel node, owned */
    unsigned (*shapes)[6];          /* each node's grid and block, owned */
    size_t ncond;                   /* kernel nodes inside conditional bodies (their launches are unknown) */
};
/* A conditional node (CUDA 12.4+) was added with these body graphs (cuGraphAddNode's phGraph_out): CUDA
 * has no getter for them, so instantiation finds them here (or, for a clone, through
 * cuGraphNodeFindInClone).  Thread-safe; the array is copied. */
void kprof_graph_conditional_added(CUgraphNode node, const CUgraph *bodies, unsigned n);
/* Walks `graph`'s nodes and records the exec made from it.  Thread-safe. */
void kprof_graph_instantiated(CUgraphExec exec, CUgraph graph);
/* The record of exec, or NULL if libkprof did not see it instantiated.  Thread-safe; valid until
 * kprof_graph_destroyed(exec). */
struct kprof_graph *kprof_graph_for(CUgraphExec exec);
void kprof_graph_destroyed(CUgraphExec exec);
/* Counts one replay: the graph row and every kernel node it holds (so kernel counts match what ran). */
void kprof_graph_launched(struct kprof_graph *g);
/* The graphs table for the report: every row ever created (the array is owned by the caller). */
struct kprof_kernel **kprof_graph_rows(size_t *n);

/* ---- stream capture ---- */

/* Number of stream captures in progress in the process: while there is one, libkprof makes none of the
 * calls a global-mode capture forbids (event queries) from the app's threads. */
extern int kprof_captures_active;

/* A module or library was unloaded (cuModuleUnload, cuLibraryUnload): its kernel handles may be reused for
 * other kernels, so the launch keys are forgotten (the kernels' aggregates stay) and named again at their
 * next launch; likewise what was loaded ahead of first launches.  Thread-safe. */
void kprof_names_code_unloaded(void);
void kprof_preload_code_unloaded(void);

/* Name registry fed by __cudaRegisterFunction and __cudaGetKernel.  Thread-safe; strings are copied. */
void kprof_names_register(const void *host_stub, const char *mangled);
void kprof_names_bind(const void *kernel_handle, const void *host_stub);

/* Counts one successful launch of k with its shape; returns 1 if it was the kernel's first.  Thread-safe,
 * lock-free. */
int kprof_kernel_count(struct kprof_kernel *k, dim3 grid, dim3 block);
/* Adds one GPU duration to a kernel (`first`: of its first launch) or copy aggregate.  Thread-safe
 * (statistics lock). */
void kprof_kernel_add_time(struct kprof_kernel *k, uint64_t ns, int first);
void kprof_copy_add_time(struct kprof_copy *c, uint64_t ns, uint64_t bytes);

/* The aggregate of copies in one direction; counts one copy of `bytes`. */
struct kprof_copy *kprof_copy_count(enum kprof_dir dir, enum kprof_host_mem host, size_t bytes);
/* The aggregate of memsets (same shape as a copy's); counts one of `bytes`. */
struct kprof_copy *kprof_memset_count(size_t bytes);

/* Allocation kinds, each with its own row. */
enum kprof_mem { KPROF_MEM_DEVICE, KPROF_MEM_PINNED, KPROF_MEM_MANAGED, KPROF_MEM_COUNT };
extern const char *const kprof_mem_names[KPROF_MEM_COUNT];

/* Allocations: counts one of `bytes` at ptr, or a free of ptr (its size looked up from the allocation).
 * host_ns is the call's host time.  Thread-safe. */
void kprof_alloc_record(enum kprof_mem kind, void *ptr, size_t bytes, uint64_t host_ns);
void kprof_free_record(enum kprof_mem kind, void *ptr, uint64_t host_ns);
/* A free of device or managed memory (cuMemFree frees either). */
void kprof_free_record_device(void *ptr, uint64_t host_ns);

/* Aggregates one completed sample (kernel time and its histogram, copy time, the device's busy time,
 * the trace).  Called by the harvester; thread-safe (statistics lock). */
void kprof_sample_record(const struct kprof_sample *s);

/* Names stream number `index` (on `device`) for the trace; the string is copied.  Thread-safe. */
void kprof_stream_named(unsigned index, int device, const char *name);

/* Host-side API table. */
void kprof_api_record(int api, uint64_t host_ns, int ok);

/* Context creation, attributed to the API call that caused it. */
void kprof_ctx_init_record(int device, int api, uint64_t host_ns);

/* Read-only snapshot for the report writers (taken under the statistics lock, after the drain). */
struct kprof_api_stat { uint64_t calls, errors, total_ns, max_ns; };
struct kprof_ctx_init { int device; int api; uint64_t host_ns; };
struct kprof_alloc_stat { uint64_t count, bytes, frees, freed_bytes, host_ns, in_use, peak; };
/* Per device: the sum of its kernels' GPU times and their union (the time the device was busy with at
 * least one kernel); the two differ when streams overlap. */
struct kprof_device_stat { int device; uint64_t kernel_ns, busy_ns, kernels; };

/* One timed call for the Chrome trace (KPROF_TRACE). */
struct kprof_trace_event {
    uint64_t start_ns, dur_ns;   /* process timeline */
    const void *target;          /* struct kprof_kernel * or struct kprof_copy * */
    uint64_t bytes;
    unsigned grid[3], block[3];
    int device;
    unsigned stream_index;
    unsigned char kind;          /* enum kprof_target_kind */
};
struct kprof_stream_name { int device; char *name; };

/* The direction and host memory of a copy aggregate (an element of the copies table). */
void kprof_copy_describe(const struct kprof_copy *c, enum kprof_dir *dir, enum kprof_host_mem *host);
/* 1 if c is the memset aggregate. */
int kprof_copy_is_memset(const struct kprof_copy *c);

struct kprof_snapshot {
    struct kprof_kernel **kernels;   /* sorted by total_ns, descending; array owned by the snapshot */
    size_t nkernels;
    struct kprof_kernel **graphs;    /* graph rows with launches, sorted likewise; array owned */
    size_t ngraphs;
    struct kprof_kernel **captured;  /* kernels launched while capturing, by count; array owned */
    size_t ncaptured;
    size_t nfiltered;                /* kernels KPROF_INCLUDE/KPROF_EXCLUDE left out */
    uint64_t kernel_total_ns;
    struct kprof_copy copies[KPROF_DIR_COUNT][KPROF_HOST_COUNT];
    struct kprof_copy memsets;
    struct kprof_device_stat *devices; size_t ndevices; /* owned by the snapshot */
    const struct kprof_trace_event *trace; size_t ntrace; /* not owned: valid after the drain */
    uint64_t trace_dropped;
    const struct kprof_stream_name *streams; size_t nstreams;
    struct kprof_alloc_stat alloc[KPROF_MEM_COUNT];
    struct kprof_api_stat api[KPROF_API_COUNT];
    struct kprof_ctx_init *ctx_inits; size_t nctx_inits;
    struct kprof_event_counters events;
    struct kprof_calibration calibs[16]; size_t ncalibs; /* one per context timed (the first 16) */
    uint64_t wall_ns;
    long pid;
    char command[256];
    char host[64];
};
/* Fills *s; release with kprof_snapshot_free().  Returns 0 when CUDA was never used (no report then). */
int kprof_snapshot_take(struct kprof_snapshot *s);
void kprof_snapshot_free(struct kprof_snapshot *s);

/* The CUmemorytype of the memory at p (CU_POINTER_ATTRIBUTE_MEMORY_TYPE), or 0 for memory the driver does
 * not know (pageable host memory) or a NULL p.  Asked with cuPointerGetAttributes, which, unlike
 * cuPointerGetAttribute, succeeds on unknown memory: the query is never an error in the app's process.
 * Thread-safe; the driver must be loaded (kprof_driver_ready). */
unsigned int kprof_memory_type(CUdeviceptr p);
/* A host pointer's memory kind, from the driver: pinned if the driver knows it, else pageable. */
enum kprof_host_mem kprof_host_mem_of(const void *p);
/* The host memory kind of a copy in direction dir (its host side; NONE for DtoD). */
enum kprof_host_mem kprof_copy_host_mem(enum kprof_dir dir, const void *dst, const void *src);

/* Demangles a kernel name with the C++ runtime's __cxa_demangle (looked up at run time); returns a
 * malloc'd string the caller frees (a copy of `mangled` when it is not a C++ name, cannot be demangled or
 * is over 64 KiB), or NULL when out of memory.  Names over 32 bytes are demangled on a short-lived
 * libkprof thread with a 16 MiB stack (the caller waits), so a thread with a small stack never overflows
 * it.  Thread-safe; call it without libkprof's locks held. */
char *kprof_demangle(const char *mangled);

/* ================================================================================== report*.c ===== */

/* Writes the report to the KPROF_OUTPUT destination (stderr by default, or when the path cannot be
 * written) in the KPROF_FORMAT format. */
void kprof_report_write(const struct kprof_snapshot *s);
void kprof_report_text(FILE *f, const struct kprof_snapshot *s);
void kprof_report_json(FILE *f, const struct kprof_snapshot *s);
/* Writes s as a JSON string literal (quoted, escaped); each byte that is not part of a valid UTF-8 sequence
 * (RFC 3629) is written as \ufffd, so the output is always valid UTF-8. */
void kprof_json_string(FILE *f, const char *s);
/* CSV: one file per table, `base` + ".kernels.csv" and so on, each opened with kprof_output_open()
 * (`chosen` as there); returns 0 if any could not be written, with *failed (malloc'd, the caller frees)
 * naming the first such file (NULL when out of memory) and *why the reason (a static string). */
int kprof_report_csv(const char *base, int chosen, const struct kprof_snapshot *s, char **failed, const char **why);

/* Opens `path` for writing a report file, as libkprof(7) NOTES says: never through a link, nor
 * into a file, that another user owns in a folder others can write; never blocking (a FIFO with no
 * reader is refused); an existing regular file is truncated.  With `chosen` (a name libkprof chose
 * itself) the file must not exist and is created with mode 0600.  With KPROF_INVOCATION, a regular file
 * modified since the invocation began (or locked by another process writing it) is refused with
 * *sibling set to 1.  Returns the stream, or NULL with *why set (a static string or strerror()'s).
 * Thread-safe. */
FILE *kprof_output_open(const char *path, int chosen, const char **why, int *sibling);
/* The Chrome trace-event JSON of the snapshot's trace. */
void kprof_report_trace(FILE *f, const struct kprof_snapshot *s);

#endif
