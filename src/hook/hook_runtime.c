/* hook_runtime.c: the CUDA runtime API wrappers.  Each one only records: it passes the call through,
 * returns exactly what the real call returned, and hands counts, names and event pairs to the layers
 * below. */
#include "cuda_api.h"
#include "kprof_config.h"
#include "resolve.h"
#include "memtype.h"
#include "call.h"
#include "contexts.h"
#include "finish.h"
#include "preload.h"
#include "timing.h"
#include "kernels.h"
#include "transfers.h"
#include "allocs.h"
#include "wrap.h"
#include "wrap_launch.h"

/* A runtime wrapper and its per-thread twin (KPROF_WRAP_TWINS): BODY(api, ..., per_thread, call). */
#define RT_TWINS(BODY, name, pt, params, args, ...)                                                \
    KPROF_WRAP_TWINS(cudaError_t, BODY, name, pt, params, args, ##__VA_ARGS__)
/* A runtime wrapper without a twin (KPROF_WRAP_FN): BODY(api, ..., 0, call). */
#define RT_WRAP(BODY, name, params, args, ...)                                                     \
    KPROF_WRAP_FN(cudaError_t, BODY, name, 0, params, args, ##__VA_ARGS__)

/* ---- names ----------------------------------------------------------------------------------- */

KPROF_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                         const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                                         dim3 *bDim, dim3 *gDim, int *wSize)
{
    __typeof__(KPROF_REAL(__cudaRegisterFunction)) real_ = KPROF_REAL(__cudaRegisterFunction);
    if (!kprof_config.disabled && !kprof_is_finished()) /* no more reports: names are not needed */
        kprof_names_register(hostFun, deviceName);
    if (real_)
        real_(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
}

KPROF_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    KPROF_REAL_OR_RETURN(__cudaGetKernel);
    struct kprof_call c;
    if (!kprof_call_begin(&c, KPROF_API___cudaGetKernel))
        return real_(kernel, hostFun);
    cudaError_t r = real_(kernel, hostFun); /* may create the context: the host stub's first call */
    if (r == cudaSuccess && kernel) {
        kprof_names_bind(*kernel, hostFun);
        if (*kernel != (cudaKernel_t)hostFun)
            kprof_preload_note_kernel(*kernel);
    }
    kprof_call_end(&c, r == cudaSuccess);
    return r;
}

/* ---- launches -------------------------------------------------------------------------------- */

/* A runtime launch: KPROF_WRAP_LAUNCH, its kernel found by launch key. */
#define LAUNCH(api, key, grid, block, stream, per_thread, call)                                    \
    KPROF_WRAP_LAUNCH(api, cudaError_t, cudaSuccess, 1, key, kprof_kernel_for(key), grid, block, stream, \
                      per_thread, call)

RT_TWINS(LAUNCH, __cudaLaunchKernel, _ptsz,
         (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream),
         (kernel, grid, block, args, shmem, stream), kernel, grid, block, stream)

RT_TWINS(LAUNCH, cudaLaunchKernel, _ptsz,
         (const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream),
         (func, grid, block, args, shmem, stream), func, grid, block, stream)

static const dim3 dim3_zero;

RT_TWINS(LAUNCH, cudaLaunchKernelExC, _ptsz, (const cudaLaunchConfig_t *config, const void *func, void **args),
         (config, func, args), func, config ? config->gridDim : dim3_zero, config ? config->blockDim : dim3_zero,
         config ? config->stream : NULL)

RT_TWINS(LAUNCH, cudaLaunchCooperativeKernel, _ptsz,
         (const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream),
         (func, grid, block, args, shmem, stream), func, grid, block, stream)

/* ---- range control (nvprof's --profile-from-start off) --------------------------------------- */

RT_WRAP(KPROF_WRAP_RANGE, cudaProfilerStart, (void), (), 0)
RT_WRAP(KPROF_WRAP_RANGE, cudaProfilerStop, (void), (), 1)

/* ---- copies ---------------------------------------------------------------------------------- */

/* The direction of a copy; cudaMemcpyDefault is resolved from the pointers. */
static enum kprof_dir copy_dir(void *dst, const void *src, enum cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToHost: return KPROF_HTOH;
    case cudaMemcpyHostToDevice: return KPROF_HTOD;
    case cudaMemcpyDeviceToHost: return KPROF_DTOH;
    case cudaMemcpyDeviceToDevice: return KPROF_DTOD;
    default: {
        int d = kprof_is_device_memory((CUdeviceptr)(uintptr_t)dst);
        int s = kprof_is_device_memory((CUdeviceptr)(uintptr_t)src);
        return kprof_dir_of(s, d);
    }
    }
}

/* The aggregate a successful copy counts in: its direction and host memory kind. */
static inline struct kprof_copy *copy_count_kind(void *dst, const void *src, enum cudaMemcpyKind kind,
                                                 size_t bytes)
{
    enum kprof_dir d = copy_dir(dst, src, kind);
    return kprof_copy_count(d, kprof_copy_host_mem(d, dst, src), bytes);
}

/* A runtime copy: KPROF_WRAP_COPY, its direction from `kind` (or from the pointers). */
#define COPY(api, dst, src, bytes, kind, stream, per_thread, call)                                 \
    KPROF_WRAP_COPY(api, cudaError_t, cudaSuccess, copy_count_kind((dst), (src), (kind), (bytes)), (bytes), \
                    stream, per_thread, call)

RT_TWINS(COPY, cudaMemcpy, _ptds, (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind),
         (dst, src, count, kind), dst, src, count, kind, NULL)

RT_TWINS(COPY, cudaMemcpyAsync, _ptsz,
         (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream),
         (dst, src, count, kind, stream), dst, src, count, kind, stream)

/* ---- allocation ------------------------------------------------------------------------------ */

/* KPROF_WRAP_ALLOC and KPROF_WRAP_FREE as RT_WRAP bodies: kind, the address's place and the size; the
 * statistics call for a successful free and the pointer. */
#define ALLOC(api, kind, ptrp, bytes, per_thread, call) \
    KPROF_WRAP_ALLOC(api, cudaError_t, cudaSuccess, kind, ptrp, bytes, call)
#define FREE(api, record, ptr, per_thread, call) KPROF_WRAP_FREE(api, cudaError_t, cudaSuccess, record, ptr, call)

RT_WRAP(ALLOC, cudaMalloc, (void **devPtr, size_t size), (devPtr, size), KPROF_MEM_DEVICE, devPtr, size)
/* cudaFree frees device and managed memory alike. */
RT_WRAP(FREE, cudaFree, (void *devPtr), (devPtr), kprof_free_record_device(devPtr, ns_), devPtr)
RT_WRAP(ALLOC, cudaMallocHost, (void **ptr, size_t size), (ptr, size), KPROF_MEM_PINNED, ptr, size)
RT_WRAP(ALLOC, cudaHostAlloc, (void **pHost, size_t size, unsigned int flags), (pHost, size, flags),
        KPROF_MEM_PINNED, pHost, size)
RT_WRAP(FREE, cudaFreeHost, (void *ptr), (ptr), kprof_free_record(KPROF_MEM_PINNED, ptr, ns_), ptr)

/* ---- host time only -------------------------------------------------------------------------- */

/* Host time only, as an RT_WRAP or RT_TWINS body (per-thread or not, the same). */
#define HOST(api, per_thread, call) KPROF_WRAP_HOST(api, cudaError_t, cudaSuccess, call)

RT_WRAP(HOST, cudaSetDevice, (int device), (device))
RT_WRAP(HOST, cudaStreamCreate, (cudaStream_t *pStream), (pStream))
RT_WRAP(HOST, cudaStreamCreateWithFlags, (cudaStream_t *pStream, unsigned int flags), (pStream, flags))
RT_WRAP(HOST, cudaDeviceSynchronize, (void), ())
RT_TWINS(HOST, cudaStreamSynchronize, _ptsz, (cudaStream_t stream), (stream))

/* The real cudart resets the device without going through any driver function libkprof wraps (CUDA
 * 13.0), so the reset is caught here too: the current context's pairs are read first. */
KPROF_EXPORT cudaError_t cudaDeviceReset(void)
{
    KPROF_REAL_OR_RETURN(cudaDeviceReset);
    if (kprof_config.disabled)
        return real_();
    kprof_events_teardown_begin(); /* no timed call begins from here on (timing.h) */
    kprof_events_wait_in_flight(KPROF_IN_FLIGHT_WAIT_MS); /* timed calls on other threads (timing.h) */
    CUcontext ctx = NULL;
    cudaError_t r;
    if (kprof_is_finished() || !kprof_driver_ready() || !kprof_driver_is_initialized() ||
        kprof_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
        r = real_();
    } else {
        kprof_events_context_ending(ctx, -1, kprof_config.exit_timeout_ms);
        /* It resets the current device's primary context, which need not be the current context. */
        CUdevice dev = -1;
        CUcontext primary = kprof_drv.cuCtxGetDevice(&dev) == CUDA_SUCCESS ? kprof_wrap_primary_of((int)dev) : NULL;
        r = real_();
        if (r == cudaSuccess)
            kprof_wrap_context_gone(ctx, -1, primary);
    }
    kprof_events_teardown_end();
    return r;
}

RT_WRAP(HOST, cudaEventSynchronize, (cudaEvent_t event), (event))

/* ---- carried out through wrapped driver functions, or creating the context ------------------ */

/* cudart carries these out through driver functions that libkprof wraps too (cuMemsetD8Async,
 * cuMemAllocAsync, cuEventRecord, cuGraphLaunch, cuStreamDestroy_v2...), which time and book the work;
 * the wrappers here only put the call in the API table under the name the program called, once (without
 * them, the driver's names would appear for calls the program never made).  The queries at the end may
 * create the context (PyTorch's first CUDA call is often cudaStreamIsCapturing): its `context init` row
 * then names them.  OUTER is the KPROF_WRAP_OUTER body of RT_WRAP and RT_TWINS. */
#define OUTER(api, per_thread, call) KPROF_WRAP_OUTER(api, call)

RT_TWINS(OUTER, cudaMemset, _ptds, (void *p, int value, size_t count), (p, value, count))
RT_TWINS(OUTER, cudaMemsetAsync, _ptsz, (void *p, int value, size_t count, cudaStream_t s), (p, value, count, s))
RT_TWINS(OUTER, cudaMallocAsync, _ptsz, (void **p, size_t size, cudaStream_t s), (p, size, s))
RT_TWINS(OUTER, cudaFreeAsync, _ptsz, (void *p, cudaStream_t s), (p, s))
RT_WRAP(OUTER, cudaMallocManaged, (void **p, size_t size, unsigned int flags), (p, size, flags))
RT_TWINS(OUTER, cudaEventRecord, _ptsz, (cudaEvent_t e, cudaStream_t s), (e, s))
RT_TWINS(OUTER, cudaEventRecordWithFlags, _ptsz, (cudaEvent_t e, cudaStream_t s, unsigned int flags), (e, s, flags))
RT_TWINS(OUTER, cudaStreamWaitEvent, _ptsz, (cudaStream_t s, cudaEvent_t e, unsigned int flags), (s, e, flags))
RT_WRAP(OUTER, cudaStreamDestroy, (cudaStream_t s), (s))
RT_WRAP(OUTER, cudaGraphInstantiate, (cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags),
        (exec, graph, flags))
RT_WRAP(OUTER, cudaGraphInstantiateWithFlags, (cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags),
        (exec, graph, flags))
RT_TWINS(OUTER, cudaGraphLaunch, _ptsz, (cudaGraphExec_t exec, cudaStream_t s), (exec, s))

RT_TWINS(OUTER, cudaStreamIsCapturing, _ptsz, (cudaStream_t s, enum cudaStreamCaptureStatus *status), (s, status))
RT_WRAP(OUTER, cudaStreamCreateWithPriority, (cudaStream_t *s, unsigned int flags, int priority), (s, flags, priority))
RT_WRAP(OUTER, cudaEventCreate, (cudaEvent_t *e), (e))
RT_WRAP(OUTER, cudaEventCreateWithFlags, (cudaEvent_t *e, unsigned int flags), (e, flags))
RT_WRAP(OUTER, cudaMemGetInfo, (size_t *free_bytes, size_t *total_bytes), (free_bytes, total_bytes))
RT_WRAP(OUTER, cudaDeviceGetStreamPriorityRange, (int *least, int *greatest), (least, greatest))

/* Every KPROF_RUNTIME_WRAPPED entry of api.def must have its wrapper above (or in hook_driver.c): this
 * table refers to each by name, so a missing one fails the link (-Wl,--no-undefined). */
const void *const kprof_rt_wrappers[KPROF_API_COUNT] = {
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) (const void *)&name,
#include "api.def"
};
