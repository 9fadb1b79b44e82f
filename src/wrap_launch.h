/* wrap_launch.h: the body of every kernel launch wrapper, runtime or driver, and the driver's launch twins. */
#ifndef KPROF_WRAP_LAUNCH_H
#define KPROF_WRAP_LAUNCH_H

#include "cuda_api.h"
#include "call.h"
#include "resolve.h"
#include "graphs.h"
#include "kernels.h"
#include "kernel_sampling.h"
#include "preload.h"
#include "timing.h"
#include "probe_seg.h"

/* What a launch of k asks kprof_timing_begin for: KPROF_TIME_NONE when KPROF_SAMPLE skips it. */
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
 *   stream, per_thread  where it runs (per_thread 1: _ptsz callers, whose stream 0 is per-thread)
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
        SEG_BEGIN();                                                                               \
        struct kprof_kernel *k_ = kprof_kernel_select((kernel), (grid), (block));                  \
        if (KPROF_UNLIKELY(k_ && !k_->selected)) { /* KPROF_INCLUDE/KPROF_EXCLUDE */               \
            kprof_call_host(&c_, 0);                                                               \
            if (!(runtime))                                                                        \
                kprof_preload((handle), c_.ctx_before, 0, k_);                                     \
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
        kprof_preload((handle), c_.ctx_before, (runtime), k_);                                     \
        SEG(0);                                                                                    \
        KPROF_TIMING_DECLARE(t_);                                                                  \
        /* Untimed, no capture to look for and no turn to take (kprof_untimed_turns, or a thread's  \
         * first call, made without a context): no timing call. */                                 \
        int tm_ = w_ != KPROF_TIME_NONE || __atomic_load_n(&kprof_captures_active, __ATOMIC_RELAXED) > 0 || \
                  KPROF_UNLIKELY(__atomic_load_n(&kprof_untimed_turns, __ATOMIC_RELAXED)) ||   \
                  KPROF_UNLIKELY(c_.without_ctx);                                                  \
        t_.captured = t_.no_context = 0;                                                           \
        if (tm_) {                                                                                 \
            t_.hold_shapes = kprof_hold_words(k_, (grid), (block), &t_.hold_key, &t_.hold_nshapes);  \
            SEG(14);                                                                               \
            t_.entry_ns = c_.t0_ns;                                                                \
            kprof_timing_begin(&t_, c_.ctx_assumed ? NULL : c_.ctx_before, (stream), (per_thread), w_); \
            if (w_ == KPROF_TIME_NONE && KPROF_UNLIKELY(c_.without_ctx))                          \
                kprof_timing_untimed_first_call(&t_, (stream), (per_thread));                      \
        }                                                                                          \
        if (w_ == KPROF_TIME_NONE) /* before the launch: no chain spans it */                      \
            kprof_sampled_untimed();                                                               \
        struct kprof_delegate d_ = { k_, w_, 0 };                                                  \
        if ((runtime) && KPROF_UNLIKELY(t_.no_context && k_))                                      \
            kprof_tls_delegate = &d_;                                                              \
        type r_ = (call);                                                                          \
        SEG(6);                                                                                    \
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
        SEG(11);                                                                                   \
        if (tm_) {                                                                                 \
            unsigned g_[3] = { (grid).x, (grid).y, (grid).z }, b_[3] = { (block).x, (block).y, (block).z }; \
            kprof_timing_end(&t_, ok_, first_ ? KPROF_TARGET_KERNEL_FIRST : KPROF_TARGET_KERNEL, k_, 0, g_, b_); \
            c_.end_ns = t_.end_ns;                                                                 \
        }                                                                                          \
        kprof_call_end(&c_, r_ == (success));                                                      \
        SEG_END(w_ != KPROF_TIME_NONE);                                                            \
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
            kprof_preload((handle), cx_, 0, (d)->k);                                               \
        KPROF_TIMING_DECLARE(t_);                                                                  \
        t_.hold_shapes = kprof_hold_words((d)->k, (grid), (block), &t_.hold_key, &t_.hold_nshapes);  \
        t_.entry_ns = 0;                                                                           \
        kprof_timing_begin(&t_, cx_, (stream), (per_thread), (d)->want);                           \
        type r_ = (call);                                                                          \
        kprof_preload_launched(r_ == (success));                                                   \
        int ok_ = r_ == (success) && !t_.captured;                                                 \
        int first_ = __atomic_load_n(&(d)->k->calls, __ATOMIC_RELAXED) == 0;                       \
        unsigned g_[3] = { (grid).x, (grid).y, (grid).z }, b_[3] = { (block).x, (block).y, (block).z }; \
        kprof_timing_end(&t_, ok_, first_ ? KPROF_TARGET_KERNEL_FIRST : KPROF_TARGET_KERNEL, (d)->k, 0, g_, b_); \
        return r_;                                                                                 \
    } while (0)

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
        KPROF_REAL_OR_RETURN(name);                                                                \
        BODY(KPROF_API_##name, ##__VA_ARGS__, per_thread, real_ args);                             \
    }                                                                                              \
    KPROF_EXPORT CUresult name params                                                              \
    {                                                                                              \
        if (kprof_tls_depth > 0 && kprof_tls_delegate == NULL) {                                   \
            /* inside another counted call, with no launch to time for it: pass through */         \
            void *real_ = kprof_driver_fn_real_if_loaded(KPROF_DRIVER_FN_##name);                  \
            if (KPROF_LIKELY(real_ != NULL))                                                       \
                return ((__typeof__(name) *)real_) args;                                           \
        }                                                                                          \
        return name##_counted args;                                                                \
    }

#endif
