/* hook_driver.c: the CUDA driver API wrappers, handed out by libkprof's dlsym and cuGetProcAddress (and
 * exported for programs linked with -lcuda).  Like the runtime wrappers they only record; a driver call
 * made inside a runtime wrapper (cudart calling the driver) passes straight through, so each call is
 * counted and timed once. */
#include "cuda_api.h"
#include "calibrate.h"
#include "kprof_config.h"
#include "clock.h"
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
#include "graphs.h"
#include "wrap.h"
#include "wrap_launch.h"

/* A driver wrapper and its per-thread twin name##pt (KPROF_WRAP_TWINS): BODY(api, ..., per_thread, call). */
#define DTWINS(BODY, name, pt, params, args, ...)                                                  \
    KPROF_WRAP_TWINS(CUresult, BODY, name, pt, params, args, ##__VA_ARGS__)
/* A driver wrapper without a twin (KPROF_WRAP_FN): BODY(api, ..., 0, call). */
#define DWRAP(BODY, name, params, args, ...)                                                       \
    KPROF_WRAP_FN(CUresult, BODY, name, 0, params, args, ##__VA_ARGS__)

/* ---- entry-point queries --------------------------------------------------------------------- */

/* Replaces a driver function the app just looked up by libkprof's wrapper for it, if there is one. */
static void swap_in_wrapper(void **pfn)
{
    if (pfn && *pfn) {
        const void *w = kprof_driver_wrapper_for(*pfn);
        if (w)
            *pfn = (void *)w;
    }
}

int kprof_proc_address_asked;

KPROF_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                          CUdriverProcAddressQueryResult *symbolStatus)
{
    __atomic_store_n(&kprof_proc_address_asked, 1, __ATOMIC_RELAXED);
    KPROF_REAL_OR_RETURN(cuGetProcAddress_v2);
    CUresult r = real_(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (r == CUDA_SUCCESS)
        swap_in_wrapper(pfn);
    return r;
}

/* The CUDA 11.3 form, with its own four arguments (cudart still asks for it at version 11030). */
KPROF_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    __atomic_store_n(&kprof_proc_address_asked, 1, __ATOMIC_RELAXED);
    KPROF_REAL_OR_RETURN(cuGetProcAddress);
    CUresult r = real_(symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS)
        swap_in_wrapper(pfn);
    return r;
}

/* The runtime's driver entry-point queries: the function handed out is swapped for its wrapper.  As a
 * KPROF_WRAP_TWINS body: fp is where the function is stored. */
#define ENTRY_POINT(api, fp, per_thread, call)                                                     \
    do {                                                                                           \
        cudaError_t r_ = (call);                                                                   \
        if (r_ == cudaSuccess)                                                                     \
            swap_in_wrapper(fp);                                                                   \
        return r_;                                                                                 \
    } while (0)

KPROF_WRAP_TWINS(cudaError_t, ENTRY_POINT, cudaGetDriverEntryPoint, _ptsz,
                 (const char *symbol, void **funcPtr, unsigned long long flags,
                  enum cudaDriverEntryPointQueryResult *driverStatus),
                 (symbol, funcPtr, flags, driverStatus), funcPtr)

KPROF_WRAP_TWINS(cudaError_t, ENTRY_POINT, cudaGetDriverEntryPointByVersion, _ptsz,
                 (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
                  enum cudaDriverEntryPointQueryResult *driverStatus),
                 (symbol, funcPtr, cudaVersion, flags, driverStatus), funcPtr)

/* ---- context creation ------------------------------------------------------------------------ */

/* Not behind the per-thread guard: creation is timed exactly here, also when cudart calls it from
 * inside a runtime wrapper (whose own host time then leaves it out). */
#define CTX_CREATE(api, pctx, dev, call)                                                           \
    do {                                                                                           \
        if (kprof_is_finished() || kprof_config.disabled)                                               \
            return (call);                                                                         \
        uint64_t t0_ = kprof_now_ns();                                                             \
        CUresult r_ = (call);                                                                      \
        if (r_ == CUDA_SUCCESS && (pctx))                                                          \
            kprof_context_created(*(pctx), (dev), (api), kprof_now_ns() - t0_);                    \
        return r_;                                                                                 \
    } while (0)

/* Driver initialisation joins the first context's row (see kprof_driver_initialized). */
KPROF_EXPORT CUresult cuInit(unsigned int flags)
{
    KPROF_REAL_OR_RETURN(cuInit);
    if (kprof_is_finished() || kprof_config.disabled)
        return real_(flags);
    uint64_t t0 = kprof_now_ns();
    CUresult r = real_(flags);
    if (r == CUDA_SUCCESS)
        kprof_driver_initialized(kprof_now_ns() - t0);
    return r;
}

KPROF_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    KPROF_REAL_OR_RETURN(cuDevicePrimaryCtxRetain);
    CTX_CREATE(KPROF_API_cuDevicePrimaryCtxRetain, pctx, dev, real_(pctx, dev));
}

KPROF_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    KPROF_REAL_OR_RETURN(cuCtxCreate_v2);
    CTX_CREATE(KPROF_API_cuCtxCreate_v2, pctx, dev, real_(pctx, flags, dev));
}

KPROF_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                     unsigned int flags, CUdevice dev)
{
    KPROF_REAL_OR_RETURN(cuCtxCreate_v3);
    CTX_CREATE(KPROF_API_cuCtxCreate_v3, pctx, dev, real_(pctx, paramsArray, numParams, flags, dev));
}

KPROF_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
                                     CUdevice dev)
{
    KPROF_REAL_OR_RETURN(cuCtxCreate_v4);
    CTX_CREATE(KPROF_API_cuCtxCreate_v4, pctx, dev, real_(pctx, ctxCreateParams, flags, dev));
}

/* ---- launches -------------------------------------------------------------------------------- */

/* A driver launch: KPROF_WRAP_LAUNCH, its kernel found by function handle, its shape as six numbers. */
#define DLAUNCH(api, f, gx, gy, gz, bx, by, bz, stream, per_thread, call)                          \
    KPROF_WRAP_LAUNCH(api, CUresult, CUDA_SUCCESS, 0, f, kprof_kernel_for_function(f),             \
                      ((dim3){ (gx), (gy), (gz) }), ((dim3){ (bx), (by), (bz) }), stream, per_thread, call)

KPROF_WRAP_DRIVER_LAUNCH_TWINS(DLAUNCH, cuLaunchKernel, _ptsz,
       (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
        unsigned int bz, unsigned int shmem, CUstream s, void **params, void **extra),
       (f, gx, gy, gz, bx, by, bz, shmem, s, params, extra), f, gx, gy, gz, bx, by, bz, s)

#define CFG(c, field) ((c) ? (c)->field : 0)

KPROF_WRAP_DRIVER_LAUNCH_TWINS(DLAUNCH, cuLaunchKernelEx, _ptsz, (const CUlaunchConfig *config, CUfunction f, void **params, void **extra),
       (config, f, params, extra), f, CFG(config, gridDimX), CFG(config, gridDimY), CFG(config, gridDimZ),
       CFG(config, blockDimX), CFG(config, blockDimY), CFG(config, blockDimZ), config ? config->hStream : NULL)

KPROF_WRAP_DRIVER_LAUNCH_TWINS(DLAUNCH, cuLaunchCooperativeKernel, _ptsz,
       (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
        unsigned int bz, unsigned int shmem, CUstream s, void **params),
       (f, gx, gy, gz, bx, by, bz, shmem, s, params), f, gx, gy, gz, bx, by, bz, s)

/* ---- copies and memsets ---------------------------------------------------------------------- */

static struct kprof_copy *copy_count(enum kprof_dir dir, const void *host, size_t bytes)
{
    return kprof_copy_count(dir, dir == KPROF_DTOD ? KPROF_HOST_NONE : kprof_host_mem_of(host), bytes);
}

/* A 2D/3D copy's side: from its memory type, asking about the pointer only for unified addressing. */
static int side_is_device(CUmemorytype type, CUdeviceptr dev, const void *host)
{
    switch (type) {
    case CU_MEMORYTYPE_HOST: return 0;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_ARRAY: return 1;
    default: return kprof_is_device_memory(dev ? dev : (CUdeviceptr)(uintptr_t)host);
    }
}

/* A driver copy or memset: KPROF_WRAP_COPY. */
#define DTIMED(api, target, bytes, stream, per_thread, call)                                       \
    KPROF_WRAP_COPY(api, CUresult, CUDA_SUCCESS, target, bytes, stream, per_thread, call)
/* `host` is the host side's pointer (NULL for DtoD), for pinned or pageable. */
#define DCOPY(api, dir, host, bytes, stream, per_thread, call)                                     \
    DTIMED(api, copy_count((dir), (host), (bytes)), (bytes), stream, per_thread, call)
#define DMEMSET(api, bytes, stream, per_thread, call)                                              \
    DTIMED(api, kprof_memset_count(bytes), (bytes), stream, per_thread, call)

DTWINS(DCOPY, cuMemcpy, _ptds, (CUdeviceptr dst, CUdeviceptr src, size_t n), (dst, src, n),
       kprof_dir_of(kprof_is_device_memory(src), kprof_is_device_memory(dst)),
       (const void *)(uintptr_t)(kprof_is_device_memory(src) ? dst : src), n, NULL)

DTWINS(DCOPY, cuMemcpyAsync, _ptsz, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
       (dst, src, n, s),
       kprof_dir_of(kprof_is_device_memory(src), kprof_is_device_memory(dst)),
       (const void *)(uintptr_t)(kprof_is_device_memory(src) ? dst : src), n, s)

DTWINS(DCOPY, cuMemcpyHtoD_v2, _ptds, (CUdeviceptr dst, const void *src, size_t n), (dst, src, n),
       KPROF_HTOD, src, n, NULL)

DTWINS(DCOPY, cuMemcpyDtoH_v2, _ptds, (void *dst, CUdeviceptr src, size_t n), (dst, src, n),
       KPROF_DTOH, dst, n, NULL)

DTWINS(DCOPY, cuMemcpyDtoD_v2, _ptds, (CUdeviceptr dst, CUdeviceptr src, size_t n), (dst, src, n),
       KPROF_DTOD, NULL, n, NULL)

DTWINS(DCOPY, cuMemcpyHtoDAsync_v2, _ptsz, (CUdeviceptr dst, const void *src, size_t n, CUstream s),
       (dst, src, n, s), KPROF_HTOD, src, n, s)

DTWINS(DCOPY, cuMemcpyDtoHAsync_v2, _ptsz, (void *dst, CUdeviceptr src, size_t n, CUstream s),
       (dst, src, n, s), KPROF_DTOH, dst, n, s)

DTWINS(DCOPY, cuMemcpyDtoDAsync_v2, _ptsz, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
       (dst, src, n, s), KPROF_DTOD, NULL, n, s)

DTWINS(DCOPY, cuMemcpyPeer, _ptds,
       (CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n),
       (dst, dstCtx, src, srcCtx, n), KPROF_DTOD, NULL, n, NULL)

DTWINS(DCOPY, cuMemcpyPeerAsync, _ptsz,
       (CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n, CUstream s),
       (dst, dstCtx, src, srcCtx, n, s), KPROF_DTOD, NULL, n, s)

#define DIR2D(p)                                                                                   \
    kprof_dir_of(side_is_device((p)->srcMemoryType, (p)->srcDevice, (p)->srcHost),                 \
                 side_is_device((p)->dstMemoryType, (p)->dstDevice, (p)->dstHost))
#define HOST2D(p) ((p) ? ((p)->srcMemoryType == CU_MEMORYTYPE_HOST ? (p)->srcHost : (p)->dstHost) : NULL)
#define BYTES2D(p) ((p) ? (size_t)(p)->WidthInBytes * (p)->Height : 0)
#define BYTES3D(p) ((p) ? (size_t)(p)->WidthInBytes * (p)->Height * (p)->Depth : 0)

DTWINS(DCOPY, cuMemcpy2D_v2, _ptds, (const CUDA_MEMCPY2D *p), (p),
       DIR2D(p), HOST2D(p), BYTES2D(p), NULL)

DTWINS(DCOPY, cuMemcpy2DAsync_v2, _ptsz, (const CUDA_MEMCPY2D *p, CUstream s), (p, s),
       DIR2D(p), HOST2D(p), BYTES2D(p), s)

DTWINS(DCOPY, cuMemcpy3D_v2, _ptds, (const CUDA_MEMCPY3D *p), (p),
       DIR2D(p), HOST2D(p), BYTES3D(p), NULL)

DTWINS(DCOPY, cuMemcpy3DAsync_v2, _ptsz, (const CUDA_MEMCPY3D *p, CUstream s), (p, s),
       DIR2D(p), HOST2D(p), BYTES3D(p), s)

DTWINS(DMEMSET, cuMemsetD8_v2, _ptds, (CUdeviceptr d, unsigned char v, size_t n), (d, v, n),
       n, NULL)

DTWINS(DMEMSET, cuMemsetD16_v2, _ptds, (CUdeviceptr d, unsigned short v, size_t n), (d, v, n),
       2 * n, NULL)

DTWINS(DMEMSET, cuMemsetD32_v2, _ptds, (CUdeviceptr d, unsigned int v, size_t n), (d, v, n),
       4 * n, NULL)

DTWINS(DMEMSET, cuMemsetD8Async, _ptsz, (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s),
       n, s)

DTWINS(DMEMSET, cuMemsetD16Async, _ptsz, (CUdeviceptr d, unsigned short v, size_t n, CUstream s),
       (d, v, n, s), 2 * n, s)

DTWINS(DMEMSET, cuMemsetD32Async, _ptsz, (CUdeviceptr d, unsigned int v, size_t n, CUstream s), (d, v, n, s),
       4 * n, s)

/* 2D memsets: width elements in each of height rows, pitch bytes apart. */
DTWINS(DMEMSET, cuMemsetD2D8_v2, _ptds, (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h),
       (d, pitch, v, w, h), w * h, NULL)

DTWINS(DMEMSET, cuMemsetD2D16_v2, _ptds, (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h),
       (d, pitch, v, w, h), 2 * w * h, NULL)

DTWINS(DMEMSET, cuMemsetD2D32_v2, _ptds, (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h),
       (d, pitch, v, w, h), 4 * w * h, NULL)

DTWINS(DMEMSET, cuMemsetD2D8Async, _ptsz,
       (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s),
       w * h, s)

DTWINS(DMEMSET, cuMemsetD2D16Async, _ptsz,
       (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s),
       2 * w * h, s)

DTWINS(DMEMSET, cuMemsetD2D32Async, _ptsz,
       (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s),
       4 * w * h, s)

/* ---- allocation ------------------------------------------------------------------------------ */

/* KPROF_WRAP_ALLOC and KPROF_WRAP_FREE as DWRAP and DTWINS bodies: kind, the address's place and the size;
 * the statistics call for a successful free and the pointer. */
#define DALLOC(api, kind, ptrp, bytes, per_thread, call) \
    KPROF_WRAP_ALLOC(api, CUresult, CUDA_SUCCESS, kind, ptrp, bytes, call)
#define DFREE(api, record, ptr, per_thread, call) KPROF_WRAP_FREE(api, CUresult, CUDA_SUCCESS, record, ptr, call)
/* Stream-ordered allocation and free: on the legacy stream they wait for the blocking streams, so no
 * launch after one is timed from a stop event issued before it. */
#define ALLOC_ASYNC(api, ptrp, bytes, per_thread, call)                                            \
    do {                                                                                           \
        kprof_chain_break();                                                                       \
        DALLOC(api, KPROF_MEM_DEVICE, ptrp, bytes, per_thread, call);                              \
    } while (0)
#define FREE_ASYNC(api, d, per_thread, call)                                                       \
    do {                                                                                           \
        kprof_chain_break();                                                                       \
        DFREE(api, kprof_free_record_device((void *)(uintptr_t)(d), ns_), d, per_thread, call);    \
    } while (0)

DWRAP(DALLOC, cuMemAlloc_v2, (CUdeviceptr *dptr, size_t bytes), (dptr, bytes), KPROF_MEM_DEVICE, dptr, bytes)
DTWINS(ALLOC_ASYNC, cuMemAllocAsync, _ptsz, (CUdeviceptr *dptr, size_t bytes, CUstream s), (dptr, bytes, s),
       dptr, bytes)
DWRAP(DALLOC, cuMemAllocManaged, (CUdeviceptr *dptr, size_t bytes, unsigned int flags), (dptr, bytes, flags),
      KPROF_MEM_MANAGED, dptr, bytes)
DWRAP(DALLOC, cuMemAllocHost_v2, (void **pp, size_t bytes), (pp, bytes), KPROF_MEM_PINNED, pp, bytes)
DWRAP(DALLOC, cuMemHostAlloc, (void **pp, size_t bytes, unsigned int flags), (pp, bytes, flags),
      KPROF_MEM_PINNED, pp, bytes)
DWRAP(DFREE, cuMemFree_v2, (CUdeviceptr d), (d), kprof_free_record_device((void *)(uintptr_t)d, ns_), d)
DTWINS(FREE_ASYNC, cuMemFreeAsync, _ptsz, (CUdeviceptr d, CUstream s), (d, s), d)
DWRAP(DFREE, cuMemFreeHost, (void *p), (p), kprof_free_record(KPROF_MEM_PINNED, p, ns_), p)

/* ---- stream capture and graphs --------------------------------------------------------------- */

/* Captures in progress, so that libkprof makes no call a global-mode capture forbids: counted before the
 * capture begins (a query another thread is making then is waited for), uncounted if it did not.  The
 * capture bodies are KPROF_WRAP_TWINS bodies; they use neither api (not counted) nor per_thread. */
#define CAPTURE_BEGIN(api, per_thread, call)                                                       \
    do {                                                                                           \
        kprof_capture_beginning();                                                                 \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS)                                                                    \
            kprof_capture_over();                                                                  \
        return r_;                                                                                 \
    } while (0)

/* A capture ends with its graph, or invalidated; a stream that was not capturing changes nothing. */
#define CAPTURE_END(api, per_thread, call)                                                         \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ == CUDA_SUCCESS || r_ == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ||                   \
            r_ == CUDA_ERROR_STREAM_CAPTURE_UNJOINED)                                              \
            kprof_capture_over();                                                                  \
        return r_;                                                                                 \
    } while (0)

/* CUDA 10.0's first form (no mode: global), still handed out by cuGetProcAddress to callers asking for
 * version 10000: a capture begun through it must be seen as well. */
DTWINS(CAPTURE_BEGIN, cuStreamBeginCapture, _ptsz, (CUstream s), (s))
DTWINS(CAPTURE_BEGIN, cuStreamBeginCapture_v2, _ptsz, (CUstream s, CUstreamCaptureMode mode), (s, mode))
DTWINS(CAPTURE_BEGIN, cuStreamBeginCaptureToGraph, _ptsz,
       (CUstream s, CUgraph graph, const CUgraphNode *deps, const CUgraphEdgeData *edges, size_t n,
        CUstreamCaptureMode mode),
       (s, graph, deps, edges, n, mode))
DTWINS(CAPTURE_END, cuStreamEndCapture, _ptsz, (CUstream s, CUgraph *graph), (s, graph))

/* Instantiation: the graph's kernel nodes are walked once, here (KPROF_WRAP_HOST_THEN). */
#define INSTANTIATE(api, pexec, graph, call)                                                       \
    KPROF_WRAP_HOST_THEN(api, CUresult, CUDA_SUCCESS,                                              \
                         if (pexec) kprof_graph_instantiated(*(pexec), (graph)), call)

KPROF_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *pexec, CUgraph graph, unsigned long long flags)
{
    KPROF_REAL_OR_RETURN(cuGraphInstantiateWithFlags);
    INSTANTIATE(KPROF_API_cuGraphInstantiateWithFlags, pexec, graph, real_(pexec, graph, flags));
}

/* INSTANTIATE as a KPROF_WRAP_TWINS body (per-thread or not, the same). */
#define INSTANTIATE_TWIN(api, pexec, graph, per_thread, call) INSTANTIATE(api, pexec, graph, call)

DTWINS(INSTANTIATE_TWIN, cuGraphInstantiateWithParams, _ptsz,
       (CUgraphExec *pexec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS *params), (pexec, graph, params),
       pexec, graph)

KPROF_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *pexec, CUgraph graph, CUgraphNode *errNode, char *log,
                                            size_t logSize)
{
    KPROF_REAL_OR_RETURN(cuGraphInstantiate_v2);
    INSTANTIATE(KPROF_API_cuGraphInstantiate_v2, pexec, graph, real_(pexec, graph, errNode, log, logSize));
}

/* Node creation: a conditional node's body graphs are handed out only here (no getter in CUDA 13.0).
 * Not behind the guard: the runtime's cudaGraphAddNode reaches it from inside cudart. */
#define ADD_NODE(ph, p, call)                                                                      \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ == CUDA_SUCCESS && (ph) && (p) && (p)->type == CU_GRAPH_NODE_TYPE_CONDITIONAL &&    \
            !kprof_config.disabled)                                                                \
            kprof_graph_conditional_added(*(ph), (p)->conditional.phGraph_out, (p)->conditional.size); \
        return r_;                                                                                 \
    } while (0)

KPROF_EXPORT CUresult cuGraphAddNode(CUgraphNode *ph, CUgraph graph, const CUgraphNode *deps, size_t n,
                                     CUgraphNodeParams *p)
{
    KPROF_REAL_OR_RETURN(cuGraphAddNode);
    ADD_NODE(ph, p, real_(ph, graph, deps, n, p));
}

KPROF_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *ph, CUgraph graph, const CUgraphNode *deps,
                                        const CUgraphEdgeData *edges, size_t n, CUgraphNodeParams *p)
{
    KPROF_REAL_OR_RETURN(cuGraphAddNode_v2);
    ADD_NODE(ph, p, real_(ph, graph, deps, edges, n, p));
}

/* Unloading code: its kernel handles may be given to kernels loaded later.  Not behind the guard (cudart
 * unloads its modules from inside its own calls and at exit). */
#define CODE_UNLOAD(call)                                                                          \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ == CUDA_SUCCESS && !kprof_config.disabled) {                                        \
            kprof_names_code_unloaded();                                                           \
            kprof_preload_code_unloaded();                                                         \
        }                                                                                          \
        return r_;                                                                                 \
    } while (0)

/* A CUkernel may be launched where a CUfunction is expected, but cuFuncIsLoaded refuses one: handles made
 * here are noted as CUkernels, so that loading them before their first launch asks the driver nothing it
 * would refuse. */
KPROF_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary lib, const char *name)
{
    KPROF_REAL_OR_RETURN(cuLibraryGetKernel);
    CUresult r = real_(pKernel, lib, name);
    if (r == CUDA_SUCCESS && pKernel && !kprof_config.disabled)
        kprof_preload_note_kernel(*pKernel);
    return r;
}

KPROF_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int n, CUlibrary lib)
{
    KPROF_REAL_OR_RETURN(cuLibraryEnumerateKernels);
    CUresult r = real_(kernels, n, lib);
    for (unsigned int i = 0; r == CUDA_SUCCESS && kernels && i < n && !kprof_config.disabled; i++)
        kprof_preload_note_kernel(kernels[i]);
    return r;
}

KPROF_EXPORT CUresult cuModuleUnload(CUmodule mod)
{
    KPROF_REAL_OR_RETURN(cuModuleUnload);
    CODE_UNLOAD(real_(mod));
}

KPROF_EXPORT CUresult cuLibraryUnload(CUlibrary lib)
{
    KPROF_REAL_OR_RETURN(cuLibraryUnload);
    CODE_UNLOAD(real_(lib));
}

KPROF_EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec)
{
    KPROF_REAL_OR_RETURN(cuGraphExecDestroy);
    kprof_graph_destroyed(exec);
    return real_(exec);
}

/* A graph launch: timed as one pair (the graphs table), and each kernel node counted as a launch. */
#define GRAPH_LAUNCH(api, exec, stream, per_thread, call)                                          \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        struct kprof_graph *g_ = kprof_graph_for(exec);                                            \
        KPROF_TIMING_DECLARE(t_);                                                                  \
        enum kprof_time_want w_ = kprof_launch_want(g_ ? g_->row : NULL);                          \
        if (w_ == KPROF_TIME_NONE) /* KPROF_SAMPLE=N: no chain spans it (timing.h) */              \
            kprof_sampled_untimed();                                                               \
        t_.entry_ns = c_.t0_ns;                                                                    \
        kprof_timing_begin(&t_, c_.ctx_before, (stream), (per_thread), w_ == KPROF_TIME_LAUNCH ? KPROF_TIME_GRAPH : w_); \
        CUresult r_ = (call);                                                                      \
        int ok_ = r_ == CUDA_SUCCESS && g_ != NULL && !t_.captured;                                \
        int first_ = ok_ && g_->row->calls == 0;                                                   \
        if (ok_)                                                                                   \
            kprof_graph_launched(g_);                                                              \
        kprof_timing_end(&t_, ok_, first_ ? KPROF_TARGET_KERNEL_FIRST : KPROF_TARGET_KERNEL,      \
                         g_ ? g_->row : NULL, 0, NULL, NULL);                                      \
        c_.end_ns = t_.end_ns;                                                                     \
        kprof_call_end(&c_, r_ == CUDA_SUCCESS);                                                   \
        return r_;                                                                                 \
    } while (0)

DTWINS(GRAPH_LAUNCH, cuGraphLaunch, _ptsz, (CUgraphExec exec, CUstream s), (exec, s), exec, s)

/* ---- context destruction: read its pairs first ----------------------------------------------- */

#define CTX_END(ctx, dev, call, gone)                                                              \
    do {                                                                                           \
        if (kprof_config.disabled)                                                                 \
            return (call);                                                                         \
        kprof_events_teardown_begin(); /* no timed call begins from here on (timing.h) */          \
        kprof_events_wait_in_flight(KPROF_IN_FLIGHT_WAIT_MS); /* also finished: timing.h */        \
        CUresult r_;                                                                               \
        if (kprof_is_finished()) {                                                                 \
            r_ = (call);                                                                           \
        } else {                                                                                   \
            kprof_events_context_ending((ctx), (dev), kprof_config.exit_timeout_ms);               \
            CUcontext gone_ctx_ = (ctx) ? (ctx) : kprof_wrap_primary_of(dev);                      \
            r_ = (call);                                                                           \
            if (r_ == CUDA_SUCCESS && (gone))                                                      \
                kprof_wrap_context_gone((ctx), (dev), gone_ctx_);                                  \
        }                                                                                          \
        kprof_events_teardown_end();                                                               \
        return r_;                                                                                 \
    } while (0)

/* 1 when device dev's primary context is no longer active (its last release destroyed it). */
static int primary_gone(CUdevice dev)
{
    unsigned int flags = 0;
    int active = 1;
    return kprof_drv.cuDevicePrimaryCtxGetState &&
           kprof_drv.cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && !active;
}

/* The wrappers of the calls that end a context, for a version suffix.  Both versions are wrapped: the
 * first ones are still exported by the driver (a program built against old headers, or asking
 * cuGetProcAddress for an old version, calls them), and a context they end must be seen as well, or
 * libkprof would go on using its dead events and holding streams on words no longer registered. */
#define CTX_END_WRAPPERS(sfx)                                                                      \
    KPROF_EXPORT CUresult cuDevicePrimaryCtxReset##sfx(CUdevice dev)                               \
    {                                                                                              \
        KPROF_REAL_OR_RETURN(cuDevicePrimaryCtxReset##sfx);                                        \
        CTX_END(NULL, (int)dev, real_(dev), 1);                                                    \
    }                                                                                              \
    KPROF_EXPORT CUresult cuDevicePrimaryCtxRelease##sfx(CUdevice dev)                             \
    {                                                                                              \
        KPROF_REAL_OR_RETURN(cuDevicePrimaryCtxRelease##sfx);                                      \
        CTX_END(NULL, (int)dev, real_(dev), primary_gone(dev));                                    \
    }                                                                                              \
    KPROF_EXPORT CUresult cuCtxDestroy##sfx(CUcontext ctx)                                         \
    {                                                                                              \
        KPROF_REAL_OR_RETURN(cuCtxDestroy##sfx);                                                   \
        CTX_END(ctx, -1, real_(ctx), 1);                                                           \
    }
CTX_END_WRAPPERS(_v2)
CTX_END_WRAPPERS()

/* ---- range control -------------------------------------------------------------------------- */

DWRAP(KPROF_WRAP_RANGE, cuProfilerStart, (void), (), 0)
DWRAP(KPROF_WRAP_RANGE, cuProfilerStop, (void), (), 1)

/* ---- synchronisation ------------------------------------------------------------------------- */

/* Host time only, as a DWRAP or DTWINS body (per-thread or not, the same). */
#define DHOST(api, per_thread, call) KPROF_WRAP_HOST(api, CUresult, CUDA_SUCCESS, call)

DWRAP(DHOST, cuCtxSynchronize, (void), ())
DTWINS(DHOST, cuStreamSynchronize, _ptsz, (CUstream s), (s))
DWRAP(DHOST, cuEventSynchronize, (CUevent e), (e))

/* ---- stream operations libkprof does not time ------------------------------------------------ */

/* The app's event records, waits, host functions, stream memory operations, prefetches, batched copies
 * and 2D memsets: each takes the stream some GPU time of its own or can hold its later work back, so a
 * launch after one is never timed from an earlier stop event (one-event timing; an app that records an
 * event between two kernels would otherwise see the record's GPU time in the second kernel); their host
 * time goes to the API table.  STREAM_OPS(name, (params), (args)) defines the wrapper of `name` and of
 * its _ptsz twin (exported by libcuda), both from the same parameters: the twin has its base's type
 * without a declaration of its own.  Device-side array copies and 2D memsets without a stream argument
 * run on the legacy default stream, asynchronously with respect to the host, and are listed too.
 * STREAM_OP_BODY is the body they share with a stream's destruction (below): `before`, a statement, runs
 * before the call is counted; `stream` is told kprof_stream_other after a successful call unless it is
 * KPROF_NO_STREAM. */
#define STREAM_OP_BODY(api, before, stream, per_thread, pred, call)                                \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        kprof_chain_break();                                                                       \
        before;                                                                                    \
        int counted_ = kprof_call_begin(&c_, (api));                                               \
        CUresult r_ = (call);                                                                      \
        if (counted_) {                                                                            \
            if (r_ == CUDA_SUCCESS && (stream) != KPROF_NO_STREAM)                                 \
                kprof_stream_other((stream), (per_thread), (pred));                                \
            kprof_call_end(&c_, r_ == CUDA_SUCCESS);                                               \
        }                                                                                          \
        kprof_chain_break(); /* again: a launch on another thread may have begun meanwhile */      \
        return r_;                                                                                 \
    } while (0)
/* STREAM_OP_BODY with nothing before the call, as a DTWINS body.  `stream`: the stream whose next kernel
 * the operation precedes (KPROF_NO_STREAM for event records, which change nothing of the hand-off before
 * that kernel). */
#define STREAM_OP(api, stream, pred, per_thread, call)                                             \
    STREAM_OP_BODY(api, (void)0, stream, per_thread, pred, call)
#define STREAM_OPS_ON(name, params, args, stream, pred)                                            \
    DTWINS(STREAM_OP, name, _ptsz, params, args, stream, pred)
#define STREAM_OPS(name, params, args) STREAM_OPS_ON(name, params, args, s, KPROF_PRED_OTHER)
/* The same for a legacy-stream call (no stream argument; its per-thread twin is _ptds). */
#define STREAM_OPS_PTDS(name, params, args)                                                        \
    DTWINS(STREAM_OP, name, _ptds, params, args, NULL, KPROF_PRED_OTHER)

/* A stream memory operation: a wait for, or a write of, a 32- or 64-bit value at addr. */
#define STREAM_VALUE_OPS(name, type)                                                               \
    STREAM_OPS(name, (CUstream s, CUdeviceptr addr, type value, unsigned int flags), (s, addr, value, flags))

STREAM_OPS_ON(cuEventRecord, (CUevent e, CUstream s), (e, s), KPROF_NO_STREAM, 0)
STREAM_OPS_ON(cuEventRecordWithFlags, (CUevent e, CUstream s, unsigned int flags), (e, s, flags), KPROF_NO_STREAM, 0)
STREAM_OPS(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags), (s, e, flags))
/* A host function leaves the next kernel's hand-off to the GPU work before it (see enum kprof_pred); the
 * kernel is held by libkprof's kernel (struct kprof_hold). */
STREAM_OPS_ON(cuLaunchHostFunc, (CUstream s, CUhostFn fn, void *data), (s, fn, data), s, KPROF_STREAM_HOST_FUNCTION)
STREAM_OPS_ON(cuStreamAddCallback,
              (CUstream s, CUstreamCallback cb, void *data, unsigned int flags),
              (s, cb, data, flags), s, KPROF_STREAM_HOST_FUNCTION)
STREAM_VALUE_OPS(cuStreamWaitValue32_v2, cuuint32_t)
STREAM_VALUE_OPS(cuStreamWaitValue64_v2, cuuint64_t)
STREAM_OPS(cuStreamBatchMemOp_v2,
           (CUstream s, unsigned int count, CUstreamBatchMemOpParams *ops, unsigned int flags),
           (s, count, ops, flags))
STREAM_OPS(cuMemPrefetchAsync_v2,
           (CUdeviceptr p, size_t n, CUmemLocation loc, unsigned int flags, CUstream s),
           (p, n, loc, flags, s))
STREAM_OPS(cuMemcpyBatchAsync_v2,
           (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
            CUmemcpyAttributes *attrs, size_t *attrs_idxs, size_t nattrs, CUstream s),
           (dsts, srcs, sizes, count, attrs, attrs_idxs, nattrs, s))

STREAM_VALUE_OPS(cuStreamWriteValue32_v2, cuuint32_t)
STREAM_VALUE_OPS(cuStreamWriteValue64_v2, cuuint64_t)
STREAM_OPS(cuWaitExternalSemaphoresAsync,
           (const CUexternalSemaphore *sems, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *params, unsigned int n,
            CUstream s),
           (sems, params, n, s))
STREAM_OPS(cuSignalExternalSemaphoresAsync,
           (const CUexternalSemaphore *sems, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *params, unsigned int n,
            CUstream s),
           (sems, params, n, s))
STREAM_OPS(cuGraphUpload, (CUgraphExec exec, CUstream s), (exec, s))
STREAM_OPS(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *copy, CUstream s), (copy, s))
STREAM_OPS(cuMemcpyAtoHAsync_v2,
           (void *dst, CUarray src, size_t offset, size_t n, CUstream s),
           (dst, src, offset, n, s))
STREAM_OPS(cuMemcpyHtoAAsync_v2,
           (CUarray dst, size_t offset, const void *src, size_t n, CUstream s),
           (dst, offset, src, n, s))
STREAM_OPS(cuMemAllocFromPoolAsync,
           (CUdeviceptr *p, size_t bytes, CUmemoryPool pool, CUstream s),
           (p, bytes, pool, s))

STREAM_OPS_PTDS(cuMemcpyAtoD_v2, (CUdeviceptr dst, CUarray src, size_t offset, size_t n), (dst, src, offset, n))
STREAM_OPS_PTDS(cuMemcpyDtoA_v2, (CUarray dst, size_t offset, CUdeviceptr src, size_t n), (dst, offset, src, n))
STREAM_OPS_PTDS(cuMemcpyAtoA_v2,
                (CUarray dst, size_t dst_offset, CUarray src, size_t src_offset, size_t n),
                (dst, dst_offset, src, src_offset, n))

/* Destroying a stream: its handle may be given to a stream created later, whose first launch must not
 * start at the destroyed stream's last stop, nor be taken for the destroyed stream's kind (libkprof's
 * queues are keyed by handle).  Forgotten before the call: another thread may create a stream with the
 * handle and launch on it as soon as the call has returned.  Also while profiling is stopped (no call is
 * counted then), which a stream created meanwhile outlives. */
#define STREAM_DESTROY(api, s, per_thread, call)                                                   \
    STREAM_OP_BODY(api,                                                                            \
                   if ((s) != NULL && (s) != CU_STREAM_LEGACY && (s) != CU_STREAM_PER_THREAD &&    \
                       !kprof_config.disabled && kprof_tls_depth == 0 && kprof_driver_ready() &&   \
                       kprof_driver_is_initialized())                                              \
                       kprof_stream_other((s), 0, KPROF_STREAM_DESTROYED),                         \
                   KPROF_NO_STREAM, 0, 0, call)
DWRAP(STREAM_DESTROY, cuStreamDestroy_v2, (CUstream s), (s), s)
DWRAP(STREAM_DESTROY, cuStreamDestroy, (CUstream s), (s), s)

/* Every KPROF_DRIVER_WRAPPED entry of api.def has its wrapper above: this table refers to each by name,
 * so a missing one fails the link (-Wl,--no-undefined).  resolve.c hands these out. */
const void *const kprof_driver_fn_wrapper[KPROF_DRIVER_FN_COUNT] = {
#define KPROF_DRIVER_WRAPPED(name, cls) (const void *)&name,
#include "api.def"
};
