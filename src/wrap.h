/* wrap.h: the KPROF_WRAP_* bodies of host-timed, range and copy wrappers, and the per-thread twins. */
#ifndef KPROF_WRAP_H
#define KPROF_WRAP_H

#include <stdint.h>
#include "cuda_api.h"
#include "call.h"
#include "resolve.h"
#include "transfers.h"
#include "allocs.h"
#include "preload.h"
#include "timing.h"

/* Device dev's primary context while it is active, else NULL: retained and released at once, before a
 * reset or release that may destroy it (whose allocations then go with it: kprof_wrap_context_gone). */
static inline CUcontext kprof_wrap_primary_of(int dev)
{
    unsigned int flags = 0;
    int active = 0;
    CUcontext c = NULL;
    __typeof__(cuDevicePrimaryCtxRetain) *retain = KPROF_REAL(cuDevicePrimaryCtxRetain);
    __typeof__(cuDevicePrimaryCtxRelease_v2) *release = KPROF_REAL(cuDevicePrimaryCtxRelease_v2);
    if (dev < 0 || !kprof_drv.cuDevicePrimaryCtxGetState || !retain || !release ||
        kprof_drv.cuDevicePrimaryCtxGetState((CUdevice)dev, &flags, &active) != CUDA_SUCCESS || !active ||
        retain(&c, (CUdevice)dev) != CUDA_SUCCESS)
        return NULL;
    release((CUdevice)dev);
    return c;
}

/* After a call that destroyed a context (cudaDeviceReset, cuCtxDestroy, the primary context's reset or
 * last release) succeeded: its pools are dead, what was loaded ahead of launches is forgotten with its
 * modules (a context made later, a primary context after a reset in particular, may get its handle), and
 * the allocations of `gone` went with it (the primary context, kprof_wrap_primary_of read before the call,
 * or cuCtxDestroy's; NULL: not known, none dropped). */
static inline void kprof_wrap_context_gone(CUcontext ctx, int dev, CUcontext gone)
{
    kprof_events_context_gone(ctx, dev);
    kprof_allocs_context_gone(gone);
    kprof_preload_code_unloaded();
}

/* The bodies that runtime (cudaError_t, cudaSuccess) and driver (CUresult, CUDA_SUCCESS) wrappers share
 * (a kernel launch's is in wrap_launch.h): `type` and `success` are the wrapper's return type and success
 * code; `call` is the real call, evaluated once; the wrapper returns exactly its result.  Each body is a
 * wrapper's whole body (it returns), runs behind the per-thread guard (kprof_call_begin: a call nested in
 * another wrapper passes straight through), and is thread-safe: what it shares goes through the
 * statistics and timing layers. */

/* Host time only (synchronisation, stream creation...). */
#define KPROF_WRAP_HOST(api, type, success, call) KPROF_WRAP_HOST_THEN(api, type, success, (void)0, call)

/* Host time only, and `then` (a statement) run when the call succeeded, before its host time ends: what
 * libkprof does for the call is inside it (a graph's instantiation walks the graph there). */
#define KPROF_WRAP_HOST_THEN(api, type, success, then, call)                                       \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        type r_ = (call);                                                                          \
        if (r_ == (success)) {                                                                     \
            then;                                                                                  \
        }                                                                                          \
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

/* kprof_alloc_record, in the thread's current context (the one the allocation call used or created). */
static inline void kprof_wrap_alloc_record(enum kprof_mem kind, void *ptr, size_t bytes, uint64_t host_ns)
{
    CUcontext ctx = NULL;
    if (kprof_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        ctx = NULL;
    kprof_alloc_record(kind, ptr, bytes, host_ns, ctx);
}

/* An allocation of `bytes` whose address the call stores at ptrp (kind: enum kprof_mem). */
#define KPROF_WRAP_ALLOC(api, type, success, kind, ptrp, bytes, call)                              \
    KPROF_WRAP_RECORD(api, type, success, (ptrp),                                                  \
                      kprof_wrap_alloc_record((kind), (void *)(uintptr_t) * (ptrp), (bytes), ns_), call)

/* A free of ptr: `record` is the statistics call for a successful one (ns_ is its host time). */
#define KPROF_WRAP_FREE(api, type, success, record, ptr, call)                                     \
    KPROF_WRAP_RECORD(api, type, success, (ptr), record, call)

/* cudaProfilerStart/Stop and cuProfilerStart/Stop (class RANGE): profiling runs again (paused 0) or is
 * paused (1) from here on, and the call is passed through.  A KPROF_WRAP_FN body. */
#define KPROF_WRAP_RANGE(api, paused, per_thread, call)                                            \
    do {                                                                                           \
        kprof_set_paused(paused);                                                                  \
        return (call);                                                                             \
    } while (0)

/* ---- timed calls ----------------------------------------------------------------------------- */

/* The body of a copy or memset wrapper, runtime or driver: times the call on `stream` with a pair of
 * events and returns exactly what `call`, the real function, returned (evaluated once, in every path).
 *   api         the wrapper's enum kprof_api entry
 *   type        the wrapper's return type (cudaError_t, CUresult); success its success code
 *   stream, per_thread  where it runs: per_thread is 1 for _ptsz callers, for whom stream 0 is the
 *               per-thread default stream
 *   target      an expression giving the aggregate the time goes to (struct kprof_copy *: a copy
 *               direction and host memory kind, or the memset row), which also counts the call:
 *               evaluated only when the call succeeded and was not captured into a graph
 *   bytes       the size in bytes, for the report's bandwidth: 0 bytes is no copy or memset (the runtime
 *               answers such a call without any work: a breaker helper found cudaMemcpy's counted and
 *               timed, cudaMemset's not), only the call's host time, and no later launch starts at an
 *               earlier stop (kprof_chain_break: whatever the driver does for it)
 * Thread-safe, as the bodies above.  Must be a wrapper's whole body: it returns. */
#define KPROF_WRAP_COPY(api, type, success, target, bytes, stream, per_thread, call)               \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        if ((bytes) == 0) {                                                                        \
            kprof_chain_break();                                                                   \
            type z_ = (call);                                                                      \
            kprof_call_end(&c_, z_ == (success));                                                  \
            return z_;                                                                             \
        }                                                                                          \
        KPROF_TIMING_DECLARE(t_);                                                                  \
        t_.entry_ns = c_.t0_ns;                                                                    \
        kprof_timing_begin(&t_, c_.ctx_before, (stream), (per_thread), KPROF_TIME_PAIR);           \
        type r_ = (call);                                                                          \
        struct kprof_copy *cp_ = r_ == (success) && !t_.captured ? (target) : NULL;                \
        kprof_timing_end(&t_, cp_ != NULL, KPROF_TARGET_COPY, cp_, (bytes), NULL, NULL);           \
        c_.end_ns = t_.end_ns;                                                                     \
        kprof_call_end(&c_, r_ == (success));                                                      \
        return r_;                                                                                 \
    } while (0)

/* ---- per-thread twins ------------------------------------------------------------------------ */

/* Defines the wrapper `name` and its per-thread twin name##pt (_ptsz for a call with a stream argument,
 * _ptds for one without: the variant nvcc's --default-stream per-thread calls), whose one difference is
 * that stream 0 means the per-thread default stream.  Each is `type name params`, whose body declares
 * real_ with KPROF_REAL_OR_RETURN and ends with BODY(api, ..., per_thread, real_ args): api is
 * KPROF_API_##name (or name##pt), the variable arguments are passed on (none is fine: GNU C's
 * `, ##__VA_ARGS__` drops the comma), per_thread is 0 and 1.  BODY must return.  Both names must be
 * KPROF_RUNTIME_WRAPPED or KPROF_DRIVER_WRAPPED entries of api.def. */
#define KPROF_WRAP_TWINS(type, BODY, name, pt, params, args, ...)                                  \
    KPROF_WRAP_FN(type, BODY, name, 0, params, args, ##__VA_ARGS__)                                \
    KPROF_WRAP_FN(type, BODY, name##pt, 1, params, args, ##__VA_ARGS__)

/* Defines one wrapper, `type name params`, as KPROF_WRAP_TWINS defines each of its two: its body declares
 * real_ with KPROF_REAL_OR_RETURN(name) and ends with BODY(KPROF_API_##name, ..., per_thread, real_ args). */
#define KPROF_WRAP_FN(type, BODY, name, per_thread, params, args, ...)                             \
    KPROF_EXPORT type name params                                                                  \
    {                                                                                              \
        KPROF_REAL_OR_RETURN(name);                                                                \
        BODY(KPROF_API_##name, ##__VA_ARGS__, per_thread, real_ args);                             \
    }

#endif
