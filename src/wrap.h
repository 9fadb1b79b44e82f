/* wrap.h: the KPROF_WRAP_* bodies that hook_runtime.c's and hook_driver.c's wrappers share. */
#ifndef KPROF_WRAP_H
#define KPROF_WRAP_H

#include <stdint.h>
#include "call.h"
#include "driver.h"
#include "graphs.h"
#include "kernels.h"
#include "preload.h"
#include "stats.h"
#include "timing.h"

/* The bodies that runtime (cudaError_t, cudaSuccess) and driver (CUresult, CUDA_SUCCESS) wrappers share:
 * `type` and `success` are the wrapper's return type and success code; `call` is the real call, evaluated
 * once; the wrapper returns exactly its result.  Each body is a wrapper's whole body (it returns), runs
 * behind the per-thread guard (kprof_call_begin: a call nested in another wrapper passes straight
 * through), and is thread-safe: what it shares goes through the statistics and timing layers. */

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

/* A runtime call of class OUTER (api.def): counted once, under its own name, while the driver wrappers
 * that cudart calls inside it still do their work (kprof_call_begin_outer).  Host time only. */
#define KPROF_WRAP_OUTER(api, call)                                                                \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin_outer(&c_, (api)))                                                   \
            return (call);                                                                         \
        cudaError_t r_ = (call);                                                                   \
        kprof_call_end(&c_, r_ == cudaSuccess);                                                    \
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

/* ---- timed calls ----------------------------------------------------------------------------- */

/* What a launch of k asks kprof_timing_begin for: KPROF_TIME_LAUNCH, or KPROF_TIME_NONE when KPROF_SAMPLE
 * skips it. */
static inline enum kprof_time_want kprof_launch_want(struct kprof_kernel *k)
{
    return kprof_sample_this(k) ? KPROF_TIME_LAUNCH : KPROF_TIME_NONE;
}

/* The body of a kernel launch wrapper, runtime or driver: counts the launch, times it on `stream` with
 * events (or one event: see kprof_timing_begin), and returns exactly what `call`, the real launch,
 * returned.  `call` is evaluated once, in every path.  A launch that KPROF_SAMPLE leaves untimed is
 * counted (under its kernel and in the api table) without a host time either (kprof_call_host); the
 * host time of the others starts once their kernel is found.
 *   api         the wrapper's enum kprof_api entry
 *   type        the wrapper's return type (cudaError_t, CUresult); success its success code
 *   runtime     the constant 1 in a runtime wrapper, 0 in a driver wrapper (the branches on it fold
 *               away; see below for what differs)
 *   handle      the launch key (runtime: a cudaKernel_t or host function; driver: a CUfunction or
 *               CUkernel), for kprof_preload
 *   kernel      an expression giving the kernel's aggregate (struct kprof_kernel *, NULL when unknown),
 *               evaluated once, after the guard
 *   grid, block dim3 expressions (evaluated more than once: no side effects)
 *   stream, per_thread  where it runs: per_thread is 1 for _ptsz callers, for whom stream 0 is the
 *               per-thread default stream
 * What differs with `runtime`, as it did when each side had its own body:
 *   - a driver launch made inside a runtime launch passes through the guard, but is timed on the
 *     runtime launch's behalf when that one had no current context (struct kprof_delegate; the runtime
 *     body offers the delegate around its real call);
 *   - the driver body makes the kernel ready (kprof_preload) also when KPROF_INCLUDE/EXCLUDE leaves it
 *     out; the runtime body only when the launch is selected.
 * Thread-safe: what it shares goes through the timing and statistics layers; the rest is per call or
 * per thread.  Must be a wrapper's whole body: it returns. */
#define KPROF_WRAP_LAUNCH(api, type, success, runtime, handle, kernel, grid, block, stream, per_thread, call) \
    do {                                                                                           \
        struct kprof_call c_; /* the guard first, inline: cudart's nested driver launch passes here */ \
        if (kprof_tls_depth > 0 || !kprof_call_begin_launch(&c_, (api))) {                         \
            if (!(runtime)) {                                                                      \
                struct kprof_delegate *dg_ = kprof_tls_delegate;                                   \
                if (KPROF_UNLIKELY(dg_ != NULL) && !dg_->used)                                     \
                    KPROF_WRAP_LAUNCH_DELEGATED(type, success, dg_, handle, grid, block, stream,   \
                                                per_thread, call);                                 \
            }                                                                                      \
            return (call);                                                                         \
        }                                                                                          \
        struct kprof_kernel *k_ = kprof_kernel_select((kernel), (grid), (block));                  \
        if (KPROF_UNLIKELY(k_ && !k_->selected)) { /* KPROF_INCLUDE/KPROF_EXCLUDE */               \
            kprof_call_host(&c_, 0);                                                               \
            if (!(runtime))                                                                        \
                kprof_preload((handle), c_.ctx_before, 0);                                         \
            kprof_chain_break();                                                                   \
            type r_ = (call);                                                                      \
            if (!(runtime))                                                                        \
                kprof_preload_launched(r_ == (success));                                           \
            kprof_chain_break();                                                                   \
            kprof_call_end(&c_, r_ == (success));                                                  \
            return r_;                                                                             \
        }                                                                                          \
        enum kprof_time_want w_ = kprof_launch_want(k_);                                           \
        kprof_call_host(&c_, w_ == KPROF_TIME_NONE);                                               \
        kprof_preload((handle), c_.ctx_before, (runtime));                                         \
        struct kprof_timing t_;                                                                    \
        /* Untimed, and no capture to look for: no timing call at all. */                         \
        int tm_ = w_ != KPROF_TIME_NONE || __atomic_load_n(&kprof_captures_active, __ATOMIC_RELAXED) > 0; \
        t_.captured = t_.no_context = 0;                                                           \
        if (tm_)                                                                                   \
            kprof_timing_begin(&t_, c_.ctx_assumed ? NULL : c_.ctx_before, (stream), (per_thread), w_); \
        struct kprof_delegate d_ = { k_, w_, 0 };                                                  \
        if ((runtime) && KPROF_UNLIKELY(t_.no_context && k_))                                      \
            kprof_tls_delegate = &d_;                                                              \
        type r_ = (call);                                                                          \
        if (runtime)                                                                               \
            kprof_tls_delegate = NULL;                                                             \
        kprof_preload_launched(r_ == (success));                                                   \
        int ok_ = r_ == (success) && k_ != NULL;                                                   \
        if (ok_ && t_.captured) { /* runs when its graph is launched */                             \
            kprof_kernel_captured(k_);                                                             \
            ok_ = 0;                                                                               \
        }                                                                                          \
        int first_ = 0;                                                                            \
        if (w_ == KPROF_TIME_NONE) /* k_ != NULL: counted through its number (kprof_kernel_untimed_done) */ \
            kprof_kernel_untimed_done(k_, ok_, (grid), (block));                                   \
        else                                                                                       \
            first_ = ok_ && kprof_kernel_count(k_, (grid), (block));                               \
        if (tm_) {                                                                                 \
            unsigned g_[3] = { (grid).x, (grid).y, (grid).z }, b_[3] = { (block).x, (block).y, (block).z }; \
            kprof_timing_end(&t_, ok_, first_ ? KPROF_TARGET_KERNEL_FIRST : KPROF_TARGET_KERNEL, k_, 0, g_, b_); \
        }                                                                                          \
        kprof_call_end(&c_, r_ == (success));                                                      \
        return r_;                                                                                 \
    } while (0)

/* Part of KPROF_WRAP_LAUNCH (driver side): the nested driver launch of a runtime launch made without a
 * current context, delegate d (struct kprof_delegate): timed here, once cudart has made the context
 * current; counted by the runtime wrapper.  Arguments as KPROF_WRAP_LAUNCH's; returns. */
#define KPROF_WRAP_LAUNCH_DELEGATED(type, success, d, handle, grid, block, stream, per_thread, call) \
    do {                                                                                           \
        (d)->used = 1;                                                                             \
        CUcontext cx_ = NULL;                                                                      \
        if (kprof_drv.cuCtxGetCurrent(&cx_) == CUDA_SUCCESS)                                       \
            kprof_preload((handle), cx_, 0);                                                       \
        struct kprof_timing t_;                                                                    \
        kprof_timing_begin(&t_, cx_, (stream), (per_thread), (d)->want);                           \
        type r_ = (call);                                                                          \
        kprof_preload_launched(r_ == (success));                                                   \
        int ok_ = r_ == (success) && !t_.captured;                                                 \
        int first_ = __atomic_load_n(&(d)->k->calls, __ATOMIC_RELAXED) == 0;                       \
        unsigned g_[3] = { (grid).x, (grid).y, (grid).z }, b_[3] = { (block).x, (block).y, (block).z }; \
        kprof_timing_end(&t_, ok_, first_ ? KPROF_TARGET_KERNEL_FIRST : KPROF_TARGET_KERNEL, (d)->k, 0, g_, b_); \
        return r_;                                                                                 \
    } while (0)

/* The body of a copy or memset wrapper, runtime or driver: times the call on `stream` with a pair of
 * events and returns exactly what `call`, the real function, returned (evaluated once, in every path).
 *   api, type, success, stream, per_thread  as KPROF_WRAP_LAUNCH's
 *   target      an expression giving the aggregate the time goes to (struct kprof_copy *: a copy
 *               direction and host memory kind, or the memset row), which also counts the call:
 *               evaluated only when the call succeeded and was not captured into a graph
 *   bytes       the size in bytes, for the report's bandwidth
 * Thread-safe, as KPROF_WRAP_LAUNCH.  Must be a wrapper's whole body: it returns. */
#define KPROF_WRAP_COPY(api, type, success, target, bytes, stream, per_thread, call)               \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        struct kprof_timing t_;                                                                    \
        kprof_timing_begin(&t_, c_.ctx_before, (stream), (per_thread), KPROF_TIME_PAIR);           \
        type r_ = (call);                                                                          \
        struct kprof_copy *cp_ = r_ == (success) && !t_.captured ? (target) : NULL;                \
        kprof_timing_end(&t_, cp_ != NULL, KPROF_TARGET_COPY, cp_, (bytes), NULL, NULL);           \
        kprof_call_end(&c_, r_ == (success));                                                      \
        return r_;                                                                                 \
    } while (0)

/* ---- per-thread twins ------------------------------------------------------------------------ */

/* Defines the wrapper `name` and its per-thread twin name##pt (_ptsz for a call with a stream argument,
 * _ptds for one without: the variant nvcc's --default-stream per-thread calls), whose one difference is
 * that stream 0 means the per-thread default stream.  Each is `type name params`, whose body declares
 * real_ with REAL_OR_FAIL (KPROF_REAL_RT_OR_FAIL or KPROF_REAL_DRV_OR_FAIL) and ends with
 * BODY(api, ..., per_thread, real_ args): api is KPROF_API_##name (or name##pt), the variable arguments are
 * passed on (none is fine: GNU C's `, ##__VA_ARGS__` drops the comma), per_thread is 0 and 1.  BODY must
 * return.  Both names must be KPROF_RT or KPROF_DH entries of api.def. */
#define KPROF_WRAP_TWINS(type, REAL_OR_FAIL, BODY, name, pt, params, args, ...)                    \
    KPROF_WRAP_FN(type, REAL_OR_FAIL, BODY, name, 0, params, args, ##__VA_ARGS__)                  \
    KPROF_WRAP_FN(type, REAL_OR_FAIL, BODY, name##pt, 1, params, args, ##__VA_ARGS__)

/* Defines one wrapper, `type name params`, as KPROF_WRAP_TWINS defines each of its two: its body declares
 * real_ with REAL_OR_FAIL(name) and ends with BODY(KPROF_API_##name, ..., per_thread, real_ args). */
#define KPROF_WRAP_FN(type, REAL_OR_FAIL, BODY, name, per_thread, params, args, ...)               \
    KPROF_EXPORT type name params                                                                  \
    {                                                                                              \
        REAL_OR_FAIL(name);                                                                        \
        BODY(KPROF_API_##name, ##__VA_ARGS__, per_thread, real_ args);                             \
    }

/* KPROF_WRAP_TWINS for the driver's launch functions (BODY: KPROF_WRAP_LAUNCH, driver side).  Inside every
 * runtime launch, cudart's own driver launch reaches them and only passes through: that path is a tail
 * call of the real function from a wrapper without a stack frame of its own, and the counted body is a
 * function apart (name_counted). */
#define KPROF_UNPAREN(...) __VA_ARGS__
#define KPROF_WRAP_DRIVER_LAUNCH_TWINS(BODY, name, pt, params, args, ...)                          \
    KPROF_WRAP_DRIVER_LAUNCH_ONE(BODY, name, 0, params, args, ##__VA_ARGS__)                       \
    KPROF_WRAP_DRIVER_LAUNCH_ONE(BODY, name##pt, 1, params, args, ##__VA_ARGS__)
#define KPROF_WRAP_DRIVER_LAUNCH_ONE(BODY, name, per_thread, params, args, ...)                    \
    static __attribute__((noinline)) CUresult name##_counted params                                \
    {                                                                                              \
        KPROF_REAL_DRV_OR_FAIL(name);                                                              \
        BODY(KPROF_API_##name, ##__VA_ARGS__, per_thread, real_ args);                             \
    }                                                                                              \
    KPROF_EXPORT CUresult name params                                                              \
    {                                                                                              \
        if (kprof_tls_depth > 0 && kprof_tls_delegate == NULL &&                                   \
            KPROF_LIKELY(__atomic_load_n(&kprof_driver_loaded, __ATOMIC_ACQUIRE)) &&               \
            KPROF_LIKELY(kprof_dh_real[KPROF_DHI_##name] != NULL))                                 \
            /* inside another counted call, with no launch to time for it: pass through */         \
            return ((__typeof__(name) *)kprof_dh_real[KPROF_DHI_##name]) args;                     \
        return name##_counted args;                                                                \
    }

#endif
