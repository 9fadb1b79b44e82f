/* fake_runtime.c: a small CUDA runtime (libcudart.so.13) that reaches the fake driver the way the real one does.
 * The same source also builds libcudart.so.12 (-DRT_VERSION=12080), the static libcudart_static.a and the
 * runtime embedded, hidden, in libfakemath.so (both with -fvisibility=hidden). */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "fake_private.h"

/* -DRT_VERSION=12080 builds the CUDA 12 stand-in (libcudart.so.12). */
#ifndef RT_VERSION
#define RT_VERSION 13000
#endif
#define MAX_DEVICES 64

/* ------------------------------------------------------------------ driver entry points */

/* Every driver function the runtime uses: field, pointer type, the base name cudart asks
 * cuGetProcAddress_v2 for, the CUDA version it asks at, and the flags (2: per-thread default stream). */
#define DRIVER_API(X) \
    X(GetProcAddress_v1, PFN_cuGetProcAddress_v11030, "cuGetProcAddress", 11030, 0) \
    X(GetProcAddress, __typeof__(cuGetProcAddress_v2) *, "cuGetProcAddress", 12000, 0) \
    X(Init, __typeof__(cuInit) *, "cuInit", 2000, 0) \
    X(DriverGetVersion, __typeof__(cuDriverGetVersion) *, "cuDriverGetVersion", 2020, 0) \
    X(DeviceGetCount, __typeof__(cuDeviceGetCount) *, "cuDeviceGetCount", 2000, 0) \
    X(DeviceGetName, __typeof__(cuDeviceGetName) *, "cuDeviceGetName", 2000, 0) \
    X(DeviceGetAttribute, __typeof__(cuDeviceGetAttribute) *, "cuDeviceGetAttribute", 2000, 0) \
    X(DeviceTotalMem, __typeof__(cuDeviceTotalMem_v2) *, "cuDeviceTotalMem", 3020, 0) \
    X(PrimaryCtxRetain, __typeof__(cuDevicePrimaryCtxRetain) *, "cuDevicePrimaryCtxRetain", 7000, 0) \
    X(PrimaryCtxRelease, __typeof__(cuDevicePrimaryCtxRelease_v2) *, "cuDevicePrimaryCtxRelease", 11000, 0) \
    X(PrimaryCtxReset, __typeof__(cuDevicePrimaryCtxReset_v2) *, "cuDevicePrimaryCtxReset", 11000, 0) \
    X(CtxGetCurrent, __typeof__(cuCtxGetCurrent) *, "cuCtxGetCurrent", 4000, 0) \
    X(CtxSetCurrent, __typeof__(cuCtxSetCurrent) *, "cuCtxSetCurrent", 4000, 0) \
    X(CtxGetDevice, PFN_cuCtxGetDevice_v2000, "cuCtxGetDevice", 2000, 0) \
    X(CtxSynchronize, PFN_cuCtxSynchronize_v2000, "cuCtxSynchronize", 2000, 0) \
    X(StreamCreate, __typeof__(cuStreamCreate) *, "cuStreamCreate", 2000, 0) \
    X(StreamCreateWithPriority, __typeof__(cuStreamCreateWithPriority) *, "cuStreamCreateWithPriority", 5050, 0) \
    X(StreamDestroy, __typeof__(cuStreamDestroy_v2) *, "cuStreamDestroy", 4000, 0) \
    X(StreamSynchronize, __typeof__(cuStreamSynchronize) *, "cuStreamSynchronize", 2000, 0) \
    X(StreamSynchronize_ptsz, __typeof__(cuStreamSynchronize) *, "cuStreamSynchronize", 7000, 2) \
    X(StreamWaitEvent, __typeof__(cuStreamWaitEvent) *, "cuStreamWaitEvent", 3020, 0) \
    X(StreamWaitEvent_ptsz, __typeof__(cuStreamWaitEvent) *, "cuStreamWaitEvent", 7000, 2) \
    X(StreamQuery, __typeof__(cuStreamQuery) *, "cuStreamQuery", 2000, 0) \
    X(StreamQuery_ptsz, __typeof__(cuStreamQuery) *, "cuStreamQuery", 7000, 2) \
    X(StreamIsCapturing, __typeof__(cuStreamIsCapturing) *, "cuStreamIsCapturing", 10000, 0) \
    X(StreamIsCapturing_ptsz, __typeof__(cuStreamIsCapturing) *, "cuStreamIsCapturing", 10000, 2) \
    X(EventCreate, __typeof__(cuEventCreate) *, "cuEventCreate", 2000, 0) \
    X(EventDestroy, __typeof__(cuEventDestroy_v2) *, "cuEventDestroy", 4000, 0) \
    X(EventRecord, __typeof__(cuEventRecord) *, "cuEventRecord", 2000, 0) \
    X(EventRecord_ptsz, __typeof__(cuEventRecord) *, "cuEventRecord", 7000, 2) \
    X(EventRecordWithFlags, __typeof__(cuEventRecordWithFlags) *, "cuEventRecordWithFlags", 11010, 0) \
    X(EventRecordWithFlags_ptsz, __typeof__(cuEventRecordWithFlags) *, "cuEventRecordWithFlags", 11010, 2) \
    X(EventQuery, __typeof__(cuEventQuery) *, "cuEventQuery", 2000, 0) \
    X(EventSynchronize, __typeof__(cuEventSynchronize) *, "cuEventSynchronize", 2000, 0) \
    X(EventElapsedTime, __typeof__(cuEventElapsedTime_v2) *, "cuEventElapsedTime", 12080, 0) \
    X(LibraryLoadData, __typeof__(cuLibraryLoadData) *, "cuLibraryLoadData", 12000, 0) \
    X(LibraryUnload, __typeof__(cuLibraryUnload) *, "cuLibraryUnload", 12000, 0) \
    X(LibraryGetKernel, __typeof__(cuLibraryGetKernel) *, "cuLibraryGetKernel", 12000, 0) \
    X(KernelGetName, __typeof__(cuKernelGetName) *, "cuKernelGetName", 12030, 0) \
    X(KernelGetFunction, __typeof__(cuKernelGetFunction) *, "cuKernelGetFunction", 12000, 0) \
    X(LaunchKernel, __typeof__(cuLaunchKernel) *, "cuLaunchKernel", 4000, 0) \
    X(LaunchKernel_ptsz, __typeof__(cuLaunchKernel) *, "cuLaunchKernel", 7000, 2) \
    X(LaunchKernelEx, __typeof__(cuLaunchKernelEx) *, "cuLaunchKernelEx", 11060, 0) \
    X(LaunchKernelEx_ptsz, __typeof__(cuLaunchKernelEx) *, "cuLaunchKernelEx", 11060, 2) \
    X(LaunchCooperativeKernel, __typeof__(cuLaunchCooperativeKernel) *, "cuLaunchCooperativeKernel", 9000, 0) \
    X(LaunchCooperativeKernel_ptsz, __typeof__(cuLaunchCooperativeKernel) *, "cuLaunchCooperativeKernel", 9000, 2) \
    X(MemAlloc, __typeof__(cuMemAlloc_v2) *, "cuMemAlloc", 3020, 0) \
    X(MemFree, __typeof__(cuMemFree_v2) *, "cuMemFree", 3020, 0) \
    X(MemAllocHost, __typeof__(cuMemAllocHost_v2) *, "cuMemAllocHost", 3020, 0) \
    X(MemHostAlloc, __typeof__(cuMemHostAlloc) *, "cuMemHostAlloc", 2020, 0) \
    X(MemFreeHost, __typeof__(cuMemFreeHost) *, "cuMemFreeHost", 2000, 0) \
    X(MemAllocManaged, __typeof__(cuMemAllocManaged) *, "cuMemAllocManaged", 6000, 0) \
    X(MemAllocAsync, __typeof__(cuMemAllocAsync) *, "cuMemAllocAsync", 11020, 0) \
    X(MemAllocAsync_ptsz, __typeof__(cuMemAllocAsync) *, "cuMemAllocAsync", 11020, 2) \
    X(MemFreeAsync, __typeof__(cuMemFreeAsync) *, "cuMemFreeAsync", 11020, 0) \
    X(MemFreeAsync_ptsz, __typeof__(cuMemFreeAsync) *, "cuMemFreeAsync", 11020, 2) \
    X(MemGetInfo, __typeof__(cuMemGetInfo_v2) *, "cuMemGetInfo", 3020, 0) \
    X(PointerGetAttribute, __typeof__(cuPointerGetAttribute) *, "cuPointerGetAttribute", 4000, 0) \
    X(Memcpy, __typeof__(cuMemcpy) *, "cuMemcpy", 4000, 0) \
    X(Memcpy_ptds, __typeof__(cuMemcpy) *, "cuMemcpy", 7000, 2) \
    X(MemcpyAsync, __typeof__(cuMemcpyAsync) *, "cuMemcpyAsync", 4000, 0) \
    X(MemcpyAsync_ptsz, __typeof__(cuMemcpyAsync) *, "cuMemcpyAsync", 7000, 2) \
    X(MemcpyHtoD, __typeof__(cuMemcpyHtoD_v2) *, "cuMemcpyHtoD", 3020, 0) \
    X(MemcpyHtoD_ptds, __typeof__(cuMemcpyHtoD_v2) *, "cuMemcpyHtoD", 7000, 2) \
    X(MemcpyDtoH, __typeof__(cuMemcpyDtoH_v2) *, "cuMemcpyDtoH", 3020, 0) \
    X(MemcpyDtoH_ptds, __typeof__(cuMemcpyDtoH_v2) *, "cuMemcpyDtoH", 7000, 2) \
    X(MemcpyDtoD, __typeof__(cuMemcpyDtoD_v2) *, "cuMemcpyDtoD", 3020, 0) \
    X(MemcpyDtoD_ptds, __typeof__(cuMemcpyDtoD_v2) *, "cuMemcpyDtoD", 7000, 2) \
    X(MemcpyHtoDAsync, __typeof__(cuMemcpyHtoDAsync_v2) *, "cuMemcpyHtoDAsync", 3020, 0) \
    X(MemcpyHtoDAsync_ptsz, __typeof__(cuMemcpyHtoDAsync_v2) *, "cuMemcpyHtoDAsync", 7000, 2) \
    X(MemcpyDtoHAsync, __typeof__(cuMemcpyDtoHAsync_v2) *, "cuMemcpyDtoHAsync", 3020, 0) \
    X(MemcpyDtoHAsync_ptsz, __typeof__(cuMemcpyDtoHAsync_v2) *, "cuMemcpyDtoHAsync", 7000, 2) \
    X(MemcpyDtoDAsync, __typeof__(cuMemcpyDtoDAsync_v2) *, "cuMemcpyDtoDAsync", 3020, 0) \
    X(MemcpyDtoDAsync_ptsz, __typeof__(cuMemcpyDtoDAsync_v2) *, "cuMemcpyDtoDAsync", 7000, 2) \
    X(MemsetD8, __typeof__(cuMemsetD8_v2) *, "cuMemsetD8", 3020, 0) \
    X(MemsetD8_ptds, __typeof__(cuMemsetD8_v2) *, "cuMemsetD8", 7000, 2) \
    X(MemsetD8Async, __typeof__(cuMemsetD8Async) *, "cuMemsetD8Async", 3020, 0) \
    X(MemsetD8Async_ptsz, __typeof__(cuMemsetD8Async) *, "cuMemsetD8Async", 7000, 2) \
    X(StreamBeginCapture, PFN_cuStreamBeginCapture_v10010, "cuStreamBeginCapture", 10010, 0) \
    X(StreamBeginCapture_ptsz, PFN_cuStreamBeginCapture_v10010, "cuStreamBeginCapture", 10010, 2) \
    X(StreamEndCapture, PFN_cuStreamEndCapture_v10000, "cuStreamEndCapture", 10000, 0) \
    X(StreamEndCapture_ptsz, PFN_cuStreamEndCapture_v10000, "cuStreamEndCapture", 10000, 2) \
    X(StreamGetCaptureInfo, PFN_cuStreamGetCaptureInfo_v12030, "cuStreamGetCaptureInfo", 12030, 0) \
    X(StreamGetCaptureInfo_ptsz, PFN_cuStreamGetCaptureInfo_v12030, "cuStreamGetCaptureInfo", 12030, 2) \
    X(ThreadExchangeStreamCaptureMode, PFN_cuThreadExchangeStreamCaptureMode_v10010, \
      "cuThreadExchangeStreamCaptureMode", 10010, 0) \
    X(GraphCreate, PFN_cuGraphCreate_v10000, "cuGraphCreate", 10000, 0) \
    X(GraphDestroy, PFN_cuGraphDestroy_v10000, "cuGraphDestroy", 10000, 0) \
    X(GraphGetNodes, PFN_cuGraphGetNodes_v10000, "cuGraphGetNodes", 10000, 0) \
    X(GraphNodeGetType, PFN_cuGraphNodeGetType_v10000, "cuGraphNodeGetType", 10000, 0) \
    X(GraphAddKernelNode, PFN_cuGraphAddKernelNode_v12000, "cuGraphAddKernelNode", 12000, 0) \
    X(GraphInstantiate, PFN_cuGraphInstantiateWithFlags_v11040, "cuGraphInstantiate", 12000, 0) \
    X(GraphInstantiateWithFlags, PFN_cuGraphInstantiateWithFlags_v11040, "cuGraphInstantiateWithFlags", 11040, 0) \
    X(GraphLaunch, PFN_cuGraphLaunch_v10000, "cuGraphLaunch", 10000, 0) \
    X(GraphLaunch_ptsz, PFN_cuGraphLaunch_v10000, "cuGraphLaunch", 10000, 2) \
    X(GraphExecDestroy, PFN_cuGraphExecDestroy_v10000, "cuGraphExecDestroy", 10000, 0)

#define FIELD(field, type, name, version, flags) type field;
static struct {
    DRIVER_API(FIELD)
} drv;
#undef FIELD

/* ------------------------------------------------------------------ runtime state */

struct fatbin {
    void *image; /* first, so the handle handed out is a void ** to the image as with the real runtime */
    CUlibrary lib;
};

struct func_entry {
    const void *host; /* host stub address */
    char *name;       /* mangled device name */
    struct fatbin *fb;
    CUkernel kernel;
    UT_hash_handle hh;
};

struct var_entry {
    const void *host;
    size_t size;
    void *shadow; /* stands in for the device copy; kernels never run, so only copies see it */
    struct fatbin *fb;
    UT_hash_handle hh;
};

static struct {
    pthread_mutex_t lock; /* registration tables and primary-context bookkeeping */
    pthread_once_t once;
    cudaError_t init_error;
    int unloading;
    int devices;
    CUcontext primary[MAX_DEVICES];
    int retained[MAX_DEVICES];
    CUcontext *known; /* every primary context handle the runtime has held, destroyed ones included */
    size_t nknown;
    struct func_entry *funcs;
    struct var_entry *vars;
} rt = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT };

static __thread cudaError_t tl_last_error;
static __thread int tl_device;

struct call_config {
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
};
static __thread struct call_config tl_configs[16];
static __thread int tl_nconfigs;

static cudaError_t map_error(CUresult rc)
{
    switch (rc) {
    case CUDA_SUCCESS: return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUDA_ERROR_DEINITIALIZED: return cudaErrorCudartUnloading;
    case CUDA_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return cudaErrorContextIsDestroyed;
    case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
    case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    case CUDA_ERROR_LAUNCH_FAILED: return cudaErrorLaunchFailure;
    case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return cudaErrorStreamCaptureUnsupported;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return cudaErrorStreamCaptureInvalidated;
    case CUDA_ERROR_STREAM_CAPTURE_MERGE: return cudaErrorStreamCaptureMerge;
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: return cudaErrorStreamCaptureUnmatched;
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return cudaErrorStreamCaptureUnjoined;
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return cudaErrorStreamCaptureIsolation;
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return cudaErrorStreamCaptureImplicit;
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return cudaErrorStreamCaptureWrongThread;
    default: return cudaErrorUnknown;
    }
}

/* A failing call leaves its error for cudaGetLastError; "not ready" is an answer, not an error. */
static cudaError_t ret(cudaError_t e)
{
    if (e != cudaSuccess && e != cudaErrorNotReady)
        tl_last_error = e;
    return e;
}

static cudaError_t ret_drv(CUresult rc)
{
    return ret(map_error(rc));
}

/* atexit handler, registered during the first API call as the real cudart does: every handler
 * registered later (a profiler's) runs before it, every ELF destructor after it. */
static void rt_teardown(void)
{
    pthread_mutex_lock(&rt.lock);
    __atomic_store_n(&rt.unloading, 1, __ATOMIC_RELEASE);
    for (int d = 0; d < rt.devices; d++)
        if (rt.retained[d]) {
            drv.PrimaryCtxRelease(d);
            rt.retained[d] = 0;
        }
    pthread_mutex_unlock(&rt.lock);
}

/* Mirrors the real lookup path: dlopen, one dlsym (cuGetProcAddress_v2), then every entry point
 * through it, so that a profiler must hook dlsym and cuGetProcAddress to see the driver calls. */
static void rt_init(void)
{
    PFN_cuGetProcAddress_v12000 gpa;
    void *h, *p;
    int n = 0;

    h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        rt.init_error = cudaErrorInsufficientDriver;
        return;
    }
    gpa = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
    if (!gpa) {
        rt.init_error = cudaErrorInsufficientDriver;
        return;
    }
#define FETCH(field, type, name, version, flags) \
    if (gpa(name, &p, version, flags, NULL) != CUDA_SUCCESS || !p) { \
        fprintf(stderr, "fake cudart: the driver has no %s (version %d, flags %d)\n", name, version, flags); \
        rt.init_error = cudaErrorSymbolNotFound; \
        return; \
    } \
    drv.field = (type)p;
    DRIVER_API(FETCH)
#undef FETCH
    if (drv.Init(0) != CUDA_SUCCESS || drv.DeviceGetCount(&n) != CUDA_SUCCESS || n <= 0) {
        rt.init_error = cudaErrorNoDevice;
        return;
    }
    rt.devices = n > MAX_DEVICES ? MAX_DEVICES : n;
    atexit(rt_teardown);
}

static cudaError_t enter(void)
{
    pthread_once(&rt.once, rt_init);
    if (rt.init_error)
        return rt.init_error;
    if (__atomic_load_n(&rt.unloading, __ATOMIC_ACQUIRE))
        return cudaErrorCudartUnloading;
    return cudaSuccess;
}

/* Needs rt.lock. */
static void remember_primary(CUcontext c)
{
    CUcontext *k;

    for (size_t i = 0; i < rt.nknown; i++)
        if (rt.known[i] == c)
            return;
    if ((k = realloc(rt.known, (rt.nknown + 1) * sizeof *k))) {
        rt.known = k;
        rt.known[rt.nknown++] = c;
    }
}

/* Retains device d's primary context once for the runtime (again after a cudaDeviceReset) and makes
 * it current on this thread. */
static cudaError_t bind_device(int d)
{
    CUcontext c;
    CUresult rc;

    pthread_mutex_lock(&rt.lock);
    if (!rt.retained[d]) {
        if ((rc = drv.PrimaryCtxRetain(&rt.primary[d], d))) {
            pthread_mutex_unlock(&rt.lock);
            return map_error(rc);
        }
        rt.retained[d] = 1;
        remember_primary(rt.primary[d]);
    }
    c = rt.primary[d];
    pthread_mutex_unlock(&rt.lock);
    return map_error(drv.CtxSetCurrent(c));
}

/* A thread with a usable current context (a primary one the runtime holds, or one the program
 * made with the driver API) keeps it; otherwise it gets its device's primary context. */
static cudaError_t ensure_ctx(void)
{
    CUcontext cur = NULL;
    int stale = 0;

    if (drv.CtxGetCurrent(&cur) != CUDA_SUCCESS)
        return cudaErrorInitializationError;
    if (cur) {
        /* A primary context the runtime held that is no longer the one it holds (cudaDeviceReset, possibly
         * on another thread) is replaced; a context the program made itself is kept, destroyed or not. */
        pthread_mutex_lock(&rt.lock);
        for (size_t i = 0; i < rt.nknown && !stale; i++)
            if (rt.known[i] == cur)
                stale = 1;
        for (int d = 0; d < rt.devices && stale; d++)
            if (cur == rt.primary[d] && rt.retained[d])
                stale = 0;
        pthread_mutex_unlock(&rt.lock);
        if (!stale)
            return cudaSuccess;
    }
    return bind_device(tl_device);
}

#define ENTER() do { cudaError_t e_ = enter(); if (e_) return ret(e_); } while (0)
#define ENTER_CTX() do { cudaError_t e_ = enter(); if (!e_) e_ = ensure_ctx(); if (e_) return ret(e_); } while (0)

/* ------------------------------------------------------------------ registration (nvcc-generated code) */

void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct fatbin *fb = calloc(1, sizeof *fb);

    if (!fb)
        return NULL;
    fb->image = fatCubin;
    return &fb->image;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    struct fatbin *fb = (struct fatbin *)fatCubinHandle;
    struct func_entry *f, *ftmp;
    struct var_entry *v, *vtmp;

    if (!fb)
        return;
    pthread_mutex_lock(&rt.lock);
    HASH_ITER(hh, rt.funcs, f, ftmp)
        if (f->fb == fb) {
            HASH_DEL(rt.funcs, f);
            free(f->name);
            free(f);
        }
    HASH_ITER(hh, rt.vars, v, vtmp)
        if (v->fb == fb) {
            HASH_DEL(rt.vars, v);
            free(v->shadow);
            free(v);
        }
    /* Normally this runs after the teardown, as at real exit, and the library is left to the driver. */
    if (fb->lib && !__atomic_load_n(&rt.unloading, __ATOMIC_ACQUIRE))
        drv.LibraryUnload(fb->lib);
    pthread_mutex_unlock(&rt.lock);
    free(fb);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    struct func_entry *f;

    (void)deviceFun;
    (void)thread_limit;
    (void)tid;
    (void)bid;
    (void)bDim;
    (void)gDim;
    (void)wSize;
    if (!fatCubinHandle || !hostFun || !deviceName)
        return;
    pthread_mutex_lock(&rt.lock);
    HASH_FIND_PTR(rt.funcs, &hostFun, f);
    if (!f && (f = calloc(1, sizeof *f))) {
        f->host = hostFun;
        f->fb = (struct fatbin *)fatCubinHandle;
        f->name = strdup(deviceName);
        if (f->name)
            HASH_ADD_PTR(rt.funcs, host, f);
        else
            free(f);
    }
    pthread_mutex_unlock(&rt.lock);
}

static void register_var(void **fatCubinHandle, const void *host, size_t size)
{
    struct var_entry *v;

    pthread_mutex_lock(&rt.lock);
    HASH_FIND_PTR(rt.vars, &host, v);
    if (!v && (v = calloc(1, sizeof *v))) {
        v->host = host;
        v->size = size;
        v->fb = (struct fatbin *)fatCubinHandle;
        v->shadow = calloc(1, size ? size : 1);
        if (v->shadow)
            HASH_ADD_PTR(rt.vars, host, v);
        else
            free(v);
    }
    pthread_mutex_unlock(&rt.lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global)
{
    (void)deviceAddress;
    (void)deviceName;
    (void)ext;
    (void)constant;
    (void)global;
    if (fatCubinHandle && hostVar)
        register_var(fatCubinHandle, hostVar, size);
}

/* A managed variable's host pointer is aimed at zeroed storage that lives as long as the binary. */
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global)
{
    struct var_entry *v;

    (void)deviceAddress;
    (void)deviceName;
    (void)ext;
    (void)constant;
    (void)global;
    if (!fatCubinHandle || !hostVarPtrAddress)
        return;
    register_var(fatCubinHandle, hostVarPtrAddress, size);
    pthread_mutex_lock(&rt.lock);
    HASH_FIND_PTR(rt.vars, &hostVarPtrAddress, v);
    if (v)
        *hostVarPtrAddress = v->shadow;
    pthread_mutex_unlock(&rt.lock);
}

char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return 1;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream)
{
    if (tl_nconfigs == (int)(sizeof tl_configs / sizeof tl_configs[0]))
        return 1;
    tl_configs[tl_nconfigs].grid = gridDim;
    tl_configs[tl_nconfigs].block = blockDim;
    tl_configs[tl_nconfigs].shmem = sharedMem;
    tl_configs[tl_nconfigs].stream = stream;
    tl_nconfigs++;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    struct call_config *c;

    if (!tl_nconfigs)
        return cudaErrorMissingConfiguration;
    c = &tl_configs[--tl_nconfigs];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shmem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

/* The driver kernel of a registered host stub, loading the fake library on first use. Needs enter(). */
static cudaError_t stub_kernel(const void *host, CUkernel *out)
{
    struct func_entry *f;
    CUresult rc = CUDA_SUCCESS;

    pthread_mutex_lock(&rt.lock);
    HASH_FIND_PTR(rt.funcs, &host, f);
    if (!f) {
        pthread_mutex_unlock(&rt.lock);
        return cudaErrorInvalidDeviceFunction;
    }
    if (!f->fb->lib)
        rc = drv.LibraryLoadData(&f->fb->lib, f->fb->image, NULL, NULL, 0, NULL, NULL, 0);
    if (rc == CUDA_SUCCESS && !f->kernel)
        rc = drv.LibraryGetKernel(&f->kernel, f->fb->lib, f->name);
    *out = f->kernel;
    pthread_mutex_unlock(&rt.lock);
    return rc == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

/* func may be a host stub or a cudaKernel_t (CUkernel): both are accepted wherever the runtime takes a function. */
static cudaError_t resolve_func(const void *func, CUkernel *out)
{
    const char *name;

    if (!func)
        return cudaErrorInvalidDeviceFunction;
    if (stub_kernel(func, out) == cudaSuccess)
        return cudaSuccess;
    if (drv.KernelGetName(&name, (CUkernel)func) == CUDA_SUCCESS) {
        *out = (CUkernel)func;
        return cudaSuccess;
    }
    return cudaErrorInvalidDeviceFunction;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    cudaError_t e;

    ENTER_CTX();
    if (!kernel)
        return ret(cudaErrorInvalidValue);
    e = stub_kernel(hostFun, kernel);
    if (e)
        *kernel = (cudaKernel_t)hostFun; /* as seen with the real runtime when the lookup fails */
    return ret(e);
}

/* ------------------------------------------------------------------ launches */

static int bad_config(dim3 g, dim3 b)
{
    return !g.x || !g.y || !g.z || !b.x || !b.y || !b.z || (uint64_t)b.x * b.y * b.z > 1024;
}

enum launch_kind { L_PLAIN, L_COOP };

static cudaError_t launch(const void *func, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t stream, int ptsz,
                          enum launch_kind kind)
{
    CUkernel k;
    cudaError_t e;
    CUresult rc;

    ENTER_CTX();
    if (bad_config(g, b))
        return ret(cudaErrorInvalidConfiguration);
    if ((e = resolve_func(func, &k)))
        return ret(e);
    if (kind == L_COOP)
        rc = (ptsz ? drv.LaunchCooperativeKernel_ptsz : drv.LaunchCooperativeKernel)(
            (CUfunction)k, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)shmem, stream, args);
    else
        rc = (ptsz ? drv.LaunchKernel_ptsz : drv.LaunchKernel)((CUfunction)k, g.x, g.y, g.z, b.x, b.y, b.z,
                                                               (unsigned)shmem, stream, args, NULL);
    return ret_drv(rc);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    return launch(kernel, gridDim, blockDim, args, sharedMem, stream, 0, L_PLAIN);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return launch(kernel, gridDim, blockDim, args, sharedMem, stream, 1, L_PLAIN);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream, 0, L_PLAIN);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                  cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream, 1, L_PLAIN);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream, 0, L_COOP);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                             size_t sharedMem, cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream, 1, L_COOP);
}

/* Launch attributes are not forwarded: the fake driver ignores them anyway. */
static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, void **args, int ptsz)
{
    CUlaunchConfig c;
    CUkernel k;
    cudaError_t e;

    ENTER_CTX();
    if (!config)
        return ret(cudaErrorInvalidValue);
    if (bad_config(config->gridDim, config->blockDim))
        return ret(cudaErrorInvalidConfiguration);
    if ((e = resolve_func(func, &k)))
        return ret(e);
    memset(&c, 0, sizeof c);
    c.gridDimX = config->gridDim.x;
    c.gridDimY = config->gridDim.y;
    c.gridDimZ = config->gridDim.z;
    c.blockDimX = config->blockDim.x;
    c.blockDimY = config->blockDim.y;
    c.blockDimZ = config->blockDim.z;
    c.sharedMemBytes = (unsigned)config->dynamicSmemBytes;
    c.hStream = config->stream;
    return ret_drv((ptsz ? drv.LaunchKernelEx_ptsz : drv.LaunchKernelEx)(&c, (CUfunction)k, args, NULL));
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return launch_ex(config, func, args, 0);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return launch_ex(config, func, args, 1);
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    struct func_entry *f;

    ENTER();
    if (!name)
        return ret(cudaErrorInvalidValue);
    pthread_mutex_lock(&rt.lock);
    HASH_FIND_PTR(rt.funcs, &func, f);
    if (f)
        *name = f->name;
    pthread_mutex_unlock(&rt.lock);
    if (f)
        return cudaSuccess;
    if (func && drv.KernelGetName(name, (CUkernel)func) == CUDA_SUCCESS)
        return cudaSuccess;
    return ret(cudaErrorInvalidDeviceFunction);
}

/* The driver function behind a host stub in the current context (CUDA 11.0+).  FAKECUDART_NO_FUNC_BY_SYMBOL=1
 * makes it fail, as a runtime without it or a symbol it does not know would (the error is left for
 * cudaGetLastError). */
cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    CUkernel k;
    CUfunction f;
    cudaError_t e;

    ENTER_CTX();
    if (!functionPtr)
        return ret(cudaErrorInvalidValue);
    const char *off = getenv("FAKECUDART_NO_FUNC_BY_SYMBOL");
    if (off && strcmp(off, "1") == 0)
        return ret(cudaErrorInvalidDeviceFunction);
    if ((e = resolve_func(symbolPtr, &k)))
        return ret(e);
    if (drv.KernelGetFunction(&f, k) != CUDA_SUCCESS)
        return ret(cudaErrorInvalidDeviceFunction);
    *functionPtr = (cudaFunction_t)f;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    CUkernel k;
    cudaError_t e;

    ENTER_CTX();
    if (!attr)
        return ret(cudaErrorInvalidValue);
    if ((e = resolve_func(func, &k)))
        return ret(e);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = 49152;
    attr->preferredShmemCarveout = -1;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    CUkernel k;
    cudaError_t e;

    (void)attr;
    (void)value;
    ENTER_CTX();
    if ((e = resolve_func(func, &k)))
        return ret(e);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize)
{
    CUkernel k;
    cudaError_t e;
    int warps;

    (void)dynamicSMemSize;
    ENTER_CTX();
    if (!numBlocks || blockSize <= 0 || blockSize > 1024)
        return ret(cudaErrorInvalidValue);
    if ((e = resolve_func(func, &k)))
        return ret(e);
    warps = (blockSize + 31) / 32;
    *numBlocks = 64 / warps < 32 ? 64 / warps : 32; /* 2048 threads, 32 blocks per SM */
    return cudaSuccess;
}

/* ------------------------------------------------------------------ memory */

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    ENTER_CTX();
    if (!devPtr)
        return ret(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    return ret_drv(drv.MemAlloc((CUdeviceptr *)devPtr, size));
}

cudaError_t cudaFree(void *devPtr)
{
    ENTER_CTX();
    if (!devPtr)
        return cudaSuccess;
    return ret_drv(drv.MemFree((CUdeviceptr)devPtr));
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    ENTER_CTX();
    if (!ptr)
        return ret(cudaErrorInvalidValue);
    if (size == 0) {
        *ptr = NULL;
        return cudaSuccess;
    }
    return ret_drv(drv.MemAllocHost(ptr, size));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    ENTER_CTX();
    if (!pHost)
        return ret(cudaErrorInvalidValue);
    if (size == 0) {
        *pHost = NULL;
        return cudaSuccess;
    }
    return ret_drv(drv.MemHostAlloc(pHost, size, flags));
}

cudaError_t cudaFreeHost(void *ptr)
{
    ENTER_CTX();
    if (!ptr)
        return cudaSuccess;
    return ret_drv(drv.MemFreeHost(ptr));
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    ENTER_CTX();
    if (!devPtr || size == 0)
        return ret(cudaErrorInvalidValue);
    return ret_drv(drv.MemAllocManaged((CUdeviceptr *)devPtr, size, flags));
}

static cudaError_t malloc_async(void **devPtr, size_t size, cudaStream_t s, int ptsz)
{
    ENTER_CTX();
    if (!devPtr)
        return ret(cudaErrorInvalidValue);
    return ret_drv((ptsz ? drv.MemAllocAsync_ptsz : drv.MemAllocAsync)((CUdeviceptr *)devPtr, size, s));
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t s) { return malloc_async(devPtr, size, s, 0); }
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t s) { return malloc_async(devPtr, size, s, 1); }

static cudaError_t free_async(void *devPtr, cudaStream_t s, int ptsz)
{
    ENTER_CTX();
    if (!devPtr)
        return cudaSuccess;
    return ret_drv((ptsz ? drv.MemFreeAsync_ptsz : drv.MemFreeAsync)((CUdeviceptr)devPtr, s));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t s) { return free_async(devPtr, s, 0); }
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t s) { return free_async(devPtr, s, 1); }

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    ENTER_CTX();
    return ret_drv(drv.MemGetInfo(free_bytes, total));
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    unsigned int type = 0, managed = 0;
    int device = 0;

    ENTER_CTX();
    if (!attributes)
        return ret(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof *attributes);
    if (drv.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)ptr) != CUDA_SUCCESS) {
        /* Pageable host memory: not an error since CUDA 11. */
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = (void *)ptr;
        return cudaSuccess;
    }
    drv.PointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)ptr);
    drv.PointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)ptr);
    attributes->device = device;
    if (managed) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->devicePointer = attributes->hostPointer = (void *)ptr;
    } else if (type == CU_MEMORYTYPE_HOST) {
        attributes->type = cudaMemoryTypeHost;
        attributes->devicePointer = attributes->hostPointer = (void *)ptr;
    } else {
        attributes->type = cudaMemoryTypeDevice;
        attributes->devicePointer = (void *)ptr;
    }
    return cudaSuccess;
}

/* ------------------------------------------------------------------ copies and memsets */

static int on_device(const void *p)
{
    unsigned int type = 0;

    return drv.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)p) == CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_DEVICE;
}

/* ptds: the _ptds/_ptsz entry point, whose NULL stream is the per-thread one. Needs ENTER_CTX. */
static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s, int async,
                        int ptds)
{
    CUdeviceptr d = (CUdeviceptr)dst, sp = (CUdeviceptr)src;
    CUresult rc;

    if (n == 0)
        return cudaSuccess;
    if (!dst || !src)
        return ret(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault)
        kind = on_device(src) ? (on_device(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                              : (on_device(dst) ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    switch (kind) {
    case cudaMemcpyHostToDevice:
        rc = async ? (ptds ? drv.MemcpyHtoDAsync_ptsz : drv.MemcpyHtoDAsync)(d, src, n, s)
                   : (ptds ? drv.MemcpyHtoD_ptds : drv.MemcpyHtoD)(d, src, n);
        break;
    case cudaMemcpyDeviceToHost:
        rc = async ? (ptds ? drv.MemcpyDtoHAsync_ptsz : drv.MemcpyDtoHAsync)(dst, sp, n, s)
                   : (ptds ? drv.MemcpyDtoH_ptds : drv.MemcpyDtoH)(dst, sp, n);
        break;
    case cudaMemcpyDeviceToDevice:
        rc = async ? (ptds ? drv.MemcpyDtoDAsync_ptsz : drv.MemcpyDtoDAsync)(d, sp, n, s)
                   : (ptds ? drv.MemcpyDtoD_ptds : drv.MemcpyDtoD)(d, sp, n);
        break;
    case cudaMemcpyHostToHost:
        rc = async ? (ptds ? drv.MemcpyAsync_ptsz : drv.MemcpyAsync)(d, sp, n, s)
                   : (ptds ? drv.Memcpy_ptds : drv.Memcpy)(d, sp, n);
        break;
    default:
        return ret(cudaErrorInvalidMemcpyDirection);
    }
    return ret_drv(rc);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    ENTER_CTX();
    return copy(dst, src, count, kind, NULL, 0, 0);
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    ENTER_CTX();
    return copy(dst, src, count, kind, NULL, 0, 1);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    ENTER_CTX();
    return copy(dst, src, count, kind, stream, 1, 0);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream)
{
    ENTER_CTX();
    return copy(dst, src, count, kind, stream, 1, 1);
}

static cudaError_t memset_rt(void *devPtr, int value, size_t count, cudaStream_t s, int async, int ptds)
{
    CUresult rc;

    ENTER_CTX();
    if (count == 0)
        return cudaSuccess;
    if (!devPtr)
        return ret(cudaErrorInvalidValue);
    if (async)
        rc = (ptds ? drv.MemsetD8Async_ptsz : drv.MemsetD8Async)((CUdeviceptr)devPtr, (unsigned char)value, count, s);
    else
        rc = (ptds ? drv.MemsetD8_ptds : drv.MemsetD8)((CUdeviceptr)devPtr, (unsigned char)value, count);
    return ret_drv(rc);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) { return memset_rt(devPtr, value, count, NULL, 0, 0); }
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) { return memset_rt(devPtr, value, count, NULL, 0, 1); }
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return memset_rt(devPtr, value, count, stream, 1, 0);
}
cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return memset_rt(devPtr, value, count, stream, 1, 1);
}

/* The variable's storage for [offset, offset+count), or NULL with *e set. */
static void *symbol_at(const void *symbol, size_t count, size_t offset, cudaError_t *e)
{
    struct var_entry *v;
    void *p = NULL;

    pthread_mutex_lock(&rt.lock);
    HASH_FIND_PTR(rt.vars, &symbol, v);
    if (!v)
        *e = cudaErrorInvalidSymbol;
    else if (offset > v->size || count > v->size - offset)
        *e = cudaErrorInvalidValue;
    else
        p = (char *)v->shadow + offset;
    pthread_mutex_unlock(&rt.lock);
    return p;
}

/* The shadow is ordinary heap memory, so the direction is given explicitly rather than resolved. */
static cudaError_t to_symbol(const void *symbol, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, int ptds)
{
    cudaError_t e = cudaSuccess;
    void *p;

    ENTER_CTX();
    if (!(p = symbol_at(symbol, count, offset, &e)))
        return ret(e);
    if (kind == cudaMemcpyDefault)
        kind = src && on_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice)
        return ret(cudaErrorInvalidMemcpyDirection);
    return copy(p, src, count, kind, NULL, 0, ptds);
}

static cudaError_t from_symbol(void *dst, const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, int ptds)
{
    cudaError_t e = cudaSuccess;
    void *p;

    ENTER_CTX();
    if (!(p = symbol_at(symbol, count, offset, &e)))
        return ret(e);
    if (kind == cudaMemcpyDefault)
        kind = dst && on_device(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice)
        return ret(cudaErrorInvalidMemcpyDirection);
    return copy(dst, p, count, kind, NULL, 0, ptds);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    return to_symbol(symbol, src, count, offset, kind, 0);
}

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind)
{
    return to_symbol(symbol, src, count, offset, kind, 1);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    return from_symbol(dst, symbol, count, offset, kind, 0);
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind)
{
    return from_symbol(dst, symbol, count, offset, kind, 1);
}

/* ------------------------------------------------------------------ events */

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    ENTER_CTX();
    return ret_drv(drv.EventCreate(event, CU_EVENT_DEFAULT));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    ENTER_CTX();
    if (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))
        return ret(cudaErrorInvalidValue);
    return ret_drv(drv.EventCreate(event, flags)); /* the runtime and driver flag values are the same */
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.EventRecord(event, stream));
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.EventRecord_ptsz(event, stream));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    ENTER_CTX();
    return ret_drv(drv.EventRecordWithFlags(event, stream, flags));
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    ENTER_CTX();
    return ret_drv(drv.EventRecordWithFlags_ptsz(event, stream, flags));
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    ENTER_CTX();
    return ret_drv(drv.EventQuery(event));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    ENTER_CTX();
    return ret_drv(drv.EventSynchronize(event));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    ENTER_CTX();
    return ret_drv(drv.EventElapsedTime(ms, start, end));
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    ENTER_CTX();
    return ret_drv(drv.EventDestroy(event));
}

/* ------------------------------------------------------------------ streams */

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    ENTER_CTX();
    return ret_drv(drv.StreamCreate(pStream, CU_STREAM_DEFAULT));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    ENTER_CTX();
    return ret_drv(drv.StreamCreate(pStream, flags)); /* cudaStreamNonBlocking == CU_STREAM_NON_BLOCKING */
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    ENTER_CTX();
    return ret_drv(drv.StreamCreateWithPriority(pStream, flags, priority));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.StreamDestroy(stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.StreamSynchronize(stream));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.StreamSynchronize_ptsz(stream));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    ENTER_CTX();
    return ret_drv(drv.StreamWaitEvent(stream, (CUevent)event, flags));
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    ENTER_CTX();
    return ret_drv(drv.StreamWaitEvent_ptsz(stream, (CUevent)event, flags));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.StreamQuery(stream));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.StreamQuery_ptsz(stream));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    ENTER_CTX();
    return ret_drv(drv.StreamIsCapturing(stream, (CUstreamCaptureStatus *)pCaptureStatus));
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    ENTER_CTX();
    return ret_drv(drv.StreamIsCapturing_ptsz(stream, (CUstreamCaptureStatus *)pCaptureStatus));
}

/* ------------------------------------------------------------------ stream capture and graphs */

static cudaError_t begin_capture(cudaStream_t stream, enum cudaStreamCaptureMode mode, int ptsz)
{
    ENTER_CTX();
    return ret_drv((ptsz ? drv.StreamBeginCapture_ptsz : drv.StreamBeginCapture)(stream, (CUstreamCaptureMode)mode));
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    return begin_capture(stream, mode, 0);
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    return begin_capture(stream, mode, 1);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    ENTER_CTX();
    return ret_drv(drv.StreamEndCapture(stream, (CUgraph *)pGraph));
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    ENTER_CTX();
    return ret_drv(drv.StreamEndCapture_ptsz(stream, (CUgraph *)pGraph));
}

/* The mode is the calling thread's; the runtime and driver numberings are the same. */
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    ENTER();
    return ret_drv(drv.ThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out, const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    ENTER_CTX();
    return ret_drv(drv.StreamGetCaptureInfo(stream, (CUstreamCaptureStatus *)captureStatus_out, (cuuint64_t *)id_out,
                                            (CUgraph *)graph_out, (const CUgraphNode **)dependencies_out,
                                            (const CUgraphEdgeData **)edgeData_out, numDependencies_out));
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    ENTER_CTX();
    return ret_drv(drv.StreamGetCaptureInfo_ptsz(stream, (CUstreamCaptureStatus *)captureStatus_out, (cuuint64_t *)id_out,
                                                 (CUgraph *)graph_out, (const CUgraphNode **)dependencies_out,
                                                 (const CUgraphEdgeData **)edgeData_out, numDependencies_out));
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    ENTER_CTX();
    return ret_drv(drv.GraphCreate((CUgraph *)pGraph, flags));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    ENTER_CTX();
    return ret_drv(drv.GraphDestroy(graph));
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    ENTER_CTX();
    return ret_drv(drv.GraphGetNodes(graph, (CUgraphNode *)nodes, numNodes));
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    ENTER_CTX();
    return ret_drv(drv.GraphNodeGetType(node, (CUgraphNodeType *)pType)); /* same numbering */
}

/* func is a host stub (or a cudaKernel_t); the driver node gets its kernel as the function. */
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams)
{
    CUDA_KERNEL_NODE_PARAMS p;
    CUkernel k;
    cudaError_t e;

    ENTER_CTX();
    if (!pNodeParams)
        return ret(cudaErrorInvalidValue);
    if (bad_config(pNodeParams->gridDim, pNodeParams->blockDim))
        return ret(cudaErrorInvalidConfiguration);
    if ((e = resolve_func(pNodeParams->func, &k)))
        return ret(e);
    memset(&p, 0, sizeof p);
    p.func = (CUfunction)k;
    p.gridDimX = pNodeParams->gridDim.x;
    p.gridDimY = pNodeParams->gridDim.y;
    p.gridDimZ = pNodeParams->gridDim.z;
    p.blockDimX = pNodeParams->blockDim.x;
    p.blockDimY = pNodeParams->blockDim.y;
    p.blockDimZ = pNodeParams->blockDim.z;
    p.sharedMemBytes = pNodeParams->sharedMemBytes;
    p.kernelParams = pNodeParams->kernelParams;
    p.extra = pNodeParams->extra;
    return ret_drv(drv.GraphAddKernelNode((CUgraphNode *)pGraphNode, graph, (const CUgraphNode *)pDependencies,
                                          numDependencies, &p));
}

/* cudart asks the driver for "cuGraphInstantiate" at 12000, which is cuGraphInstantiateWithFlags. */
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
{
    ENTER_CTX();
    return ret_drv(drv.GraphInstantiate((CUgraphExec *)pGraphExec, graph, flags));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
{
    ENTER_CTX();
    return ret_drv(drv.GraphInstantiateWithFlags((CUgraphExec *)pGraphExec, graph, flags));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.GraphLaunch(graphExec, stream));
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    ENTER_CTX();
    return ret_drv(drv.GraphLaunch_ptsz(graphExec, stream));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    ENTER_CTX();
    return ret_drv(drv.GraphExecDestroy(graphExec));
}

/* ------------------------------------------------------------------ devices */

cudaError_t cudaDeviceSynchronize(void)
{
    ENTER_CTX();
    return ret_drv(drv.CtxSynchronize());
}

/* Destroys the current device's primary context at once (every stream, event and allocation in it);
 * the next call that needs a context creates a fresh one. */
cudaError_t cudaDeviceReset(void)
{
    int d = tl_device;
    CUresult rc;

    ENTER();
    pthread_mutex_lock(&rt.lock);
    rc = drv.PrimaryCtxReset(d);
    rt.retained[d] = 0;
    pthread_mutex_unlock(&rt.lock);
    return ret_drv(rc);
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t e;

    ENTER();
    if (device < 0 || device >= rt.devices)
        return ret(cudaErrorInvalidDevice);
    tl_device = device;
    e = bind_device(device);
    return ret(e);
}

cudaError_t cudaGetDevice(int *device)
{
    CUcontext cur = NULL;
    CUdevice d;

    ENTER();
    if (!device)
        return ret(cudaErrorInvalidValue);
    if (drv.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur && drv.CtxGetDevice(&d) == CUDA_SUCCESS)
        *device = d;
    else
        *device = tl_device;
    return cudaSuccess;
}

/* The real runtime asks the driver (cuCtxGetStreamPriorityRange), which needs a context: the first call
 * creates it here as there.  The range is an H200's (the fake's streams take any priority). */
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    ENTER_CTX();
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    ENTER();
    if (!count)
        return ret(cudaErrorInvalidValue);
    *count = rt.devices;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    ENTER();
    if (!value)
        return ret(cudaErrorInvalidValue);
    return ret_drv(drv.DeviceGetAttribute(value, (CUdevice_attribute)attr, device)); /* same numbering */
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    size_t total = 0;
    int v;

    ENTER();
    if (!prop)
        return ret(cudaErrorInvalidValue);
    if (device < 0 || device >= rt.devices)
        return ret(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    drv.DeviceGetName(prop->name, sizeof prop->name, device);
    drv.DeviceTotalMem(&total, device);
    prop->totalGlobalMem = total;
#define A(field, attr) (drv.DeviceGetAttribute(&v, attr, device), prop->field = v)
    A(sharedMemPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    A(regsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    A(warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    A(memPitch, CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    A(maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    A(maxThreadsDim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    A(maxThreadsDim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    A(maxThreadsDim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    A(maxGridSize[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    A(maxGridSize[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    A(maxGridSize[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    A(totalConstMem, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    A(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    A(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    A(multiProcessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    A(canMapHostMemory, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
    A(concurrentKernels, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
    A(pciBusID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
    A(asyncEngineCount, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
    A(unifiedAddressing, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
    A(memoryBusWidth, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    A(l2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    A(maxThreadsPerMultiProcessor, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    A(sharedMemPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    A(regsPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    A(managedMemory, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
    A(concurrentManagedAccess, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
    A(cooperativeLaunch, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
    A(sharedMemPerBlockOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    A(maxBlocksPerMultiProcessor, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    A(memoryPoolsSupported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
    A(streamPrioritiesSupported, CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
#undef A
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tl_last_error;

    tl_last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return tl_last_error;
}

#define RT_ERRORS(X) \
    X(cudaSuccess, "no error") \
    X(cudaErrorInvalidValue, "invalid argument") \
    X(cudaErrorMemoryAllocation, "out of memory") \
    X(cudaErrorInitializationError, "initialization error") \
    X(cudaErrorCudartUnloading, "driver shutting down") \
    X(cudaErrorInvalidConfiguration, "invalid configuration argument") \
    X(cudaErrorInvalidSymbol, "invalid device symbol") \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy") \
    X(cudaErrorMissingConfiguration, "__global__ function call is not configured") \
    X(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version") \
    X(cudaErrorInvalidDeviceFunction, "invalid device function") \
    X(cudaErrorNoDevice, "no CUDA-capable device is detected") \
    X(cudaErrorInvalidDevice, "invalid device ordinal") \
    X(cudaErrorDeviceUninitialized, "invalid device context") \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle") \
    X(cudaErrorSymbolNotFound, "named symbol not found") \
    X(cudaErrorNotReady, "device not ready") \
    X(cudaErrorLaunchFailure, "unspecified launch failure") \
    X(cudaErrorContextIsDestroyed, "context is destroyed") \
    X(cudaErrorNotSupported, "operation not supported") \
    X(cudaErrorIllegalState, "the operation cannot be performed in the present state") \
    X(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing") \
    X(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture") \
    X(cudaErrorStreamCaptureMerge, "operation would result in a merge of separate capture sequences") \
    X(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began") \
    X(cudaErrorStreamCaptureUnjoined, "capturing stream has unjoined work") \
    X(cudaErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream") \
    X(cudaErrorStreamCaptureImplicit, "operation would make the legacy stream depend on a capturing blocking stream") \
    X(cudaErrorStreamCaptureWrongThread, "attempt to terminate a thread-local capture sequence from another thread") \
    X(cudaErrorUnknown, "unknown error")

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
#define X(code, text) case code: return text;
    RT_ERRORS(X)
#undef X
    default: return "unrecognized error code";
    }
}

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define X(code, text) case code: return #code;
    RT_ERRORS(X)
#undef X
    default: return "unrecognized error code";
    }
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    ENTER();
    if (!driverVersion)
        return ret(cudaErrorInvalidValue);
    return ret_drv(drv.DriverGetVersion(driverVersion));
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return ret(cudaErrorInvalidValue);
    *runtimeVersion = RT_VERSION;
    return cudaSuccess;
}

cudaError_t cudaProfilerStart(void)
{
    ENTER_CTX();
    return cudaSuccess;
}

cudaError_t cudaProfilerStop(void)
{
    ENTER_CTX();
    return cudaSuccess;
}

/* A symbol the driver lacks is not an error here: *funcPtr is NULL and the status says why. */
static cudaError_t entry_point(const char *symbol, void **funcPtr, int version, unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc;

    ENTER();
    if (!symbol || !funcPtr)
        return ret(cudaErrorInvalidValue);
    rc = drv.GetProcAddress(symbol, funcPtr, version, flags, &st);
    if (status)
        *status = (enum cudaDriverEntryPointQueryResult)st; /* same numbering */
    return rc == CUDA_SUCCESS || rc == CUDA_ERROR_NOT_FOUND ? cudaSuccess : ret_drv(rc);
}

static unsigned long long per_thread(unsigned long long flags)
{
    if (!(flags & (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        flags |= cudaEnablePerThreadDefaultStream;
    return flags;
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, RT_VERSION, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, RT_VERSION, per_thread(flags), driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, (int)cudaVersion, per_thread(flags), driverStatus);
}
