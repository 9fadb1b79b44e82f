/* preload.c: loads a kernel into its context before the start event of its first launch there, so that
 * lazy module loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) happens outside the pair. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "clock.h"
#include "call.h"
#include "module.h"
#include "kernel.h"
#include "preload.h"
#include "resolve.h"

struct loaded {
    struct kprof_loaded_key key;
    int unsure;         /* libkprof could not load it, and no launch of it has succeeded yet */
    UT_hash_handle hh;
};
struct kernel_handle {
    const void *handle;
    UT_hash_handle hh;
};

static struct {
    pthread_mutex_t lock;
    struct loaded *loaded;          /* (handle, context) pairs already made ready */
    struct kernel_handle *kernels;  /* handles known to be CUkernels (not CUfunctions) */
} pl = { .lock = PTHREAD_MUTEX_INITIALIZER };

__thread void *kprof_tls_ready __attribute__((tls_model("initial-exec")));
static struct kprof_tls_blocks ready_caches = { sizeof(struct kprof_ready_cache), NULL };
__thread struct kprof_loaded_key kprof_tls_may_load __attribute__((tls_model("initial-exec")));
unsigned kprof_preload_epoch;

void kprof_preload_note_kernel(const void *handle)
{
    if (!handle)
        return;
    struct kernel_handle *e;
    pthread_mutex_lock(&pl.lock);
    HASH_FIND_PTR(pl.kernels, &handle, e);
    if (!e && (e = calloc(1, sizeof *e)) != NULL) {
        e->handle = handle;
        HASH_ADD_PTR(pl.kernels, handle, e);
    }
    pthread_mutex_unlock(&pl.lock);
}

/* The driver function behind a host function pointer (cudaLaunchKernel's `func`, as CUDA 12's nvcc and
 * PyTorch launch) in the current context, from the runtime that will launch it (cudaGetFuncBySymbol,
 * CUDA 11.0+), asked without disturbing the app's last-error state: only when no error is pending, and
 * clearing the one a failed lookup leaves (kprof_rt_quiet_begin/end).  The runtime's own driver
 * calls are not the app's (kprof_tls_depth).  NULL when there is none. */
static CUfunction function_from_runtime(const void *func)
{
    __typeof__(cudaGetFuncBySymbol) *get_func = KPROF_REAL(cudaGetFuncBySymbol);
    if (!get_func || !kprof_rt_quiet_begin())
        return NULL;
    CUfunction f = NULL;
    kprof_tls_depth++;
    cudaError_t r = get_func((cudaFunction_t *)&f, func);
    kprof_rt_quiet_end(r);
    kprof_tls_depth--;
    return r == cudaSuccess ? f : NULL;
}

/* The size of f's parameter block (bytes: its last parameter's offset plus size, cuFuncGetParamInfo,
 * CUDA 12.4), f having `count` parameters; 0 when the driver cannot say, count is unknown (-1) or 0.
 * Only the last parameter is asked: an index past it would be an error (tools such as compute-sanitizer
 * report every error a driver call returns). */
static unsigned param_bytes_of(CUfunction f, int count)
{
    size_t off = 0, size = 0;
    if (!kprof_drv.cuFuncGetParamInfo || count <= 0 ||
        kprof_drv.cuFuncGetParamInfo(f, (size_t)count - 1, &off, &size) != CUDA_SUCCESS)
        return 0;
    return off + size < 0xffffffffu ? (unsigned)(off + size) : 0;
}

/* Loads the function behind handle in the current context if it is not loaded yet.  A CUkernel is first
 * turned into its function for the current context (cuKernelGetFunction); a host function pointer (a
 * runtime launch key that is no CUkernel) into the runtime's function for it; a handle of unknown kind
 * is tried as a CUfunction, then as a CUkernel.  kk->param_bytes (kk not NULL) gets the function's parameter
 * block (param_bytes_of; left alone when unknown).  Returns 1 when the function is known to be loaded. */
static int load(const void *handle, int is_kernel, int runtime, struct kprof_kernel *kk)
{
    if (!kprof_drv.cuFuncIsLoaded || !kprof_drv.cuFuncLoad)
        return 0;
    CUfunction f = (CUfunction)handle;
    CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_LOADED;
    CUresult r;
    if (runtime && !is_kernel) {
        f = function_from_runtime(handle);
        if (!f)
            return 0; /* its first launch loads it: kprof_tls_may_load */
        r = kprof_drv.cuFuncIsLoaded(&state, f);
    } else {
        if (is_kernel &&
            (!kprof_drv.cuKernelGetFunction || kprof_drv.cuKernelGetFunction(&f, (CUkernel)handle) != CUDA_SUCCESS))
            return 0;
        r = kprof_drv.cuFuncIsLoaded(&state, f);
        if (r == CUDA_ERROR_INVALID_HANDLE && !is_kernel && kprof_drv.cuKernelGetFunction &&
            kprof_drv.cuKernelGetFunction(&f, (CUkernel)handle) == CUDA_SUCCESS) {
            kprof_preload_note_kernel(handle); /* a CUkernel made where libkprof did not see it */
            r = kprof_drv.cuFuncIsLoaded(&state, f);
        }
    }
    if (r == CUDA_SUCCESS && state != CU_FUNCTION_LOADING_STATE_LOADED)
        r = kprof_drv.cuFuncLoad(f);
    unsigned bytes = r == CUDA_SUCCESS && kk ? param_bytes_of(f, kk->param_count) : 0;
    if (bytes)
        __atomic_store_n(&kk->param_bytes, bytes, __ATOMIC_RELAXED);
    return r == CUDA_SUCCESS;
}

void kprof_preload_slow(const void *handle, CUcontext ctx, int runtime, struct kprof_kernel *kk)
{
    struct kprof_loaded_key key = { handle, ctx, __atomic_load_n(&kprof_preload_epoch, __ATOMIC_RELAXED) };
    struct loaded *e;
    struct kernel_handle *k;
    pthread_mutex_lock(&pl.lock);
    HASH_FIND(hh, pl.loaded, &key, 2 * sizeof(void *), e);
    HASH_FIND_PTR(pl.kernels, &handle, k);
    int unsure = e && e->unsure;
    pthread_mutex_unlock(&pl.lock);
    if (!e) {
        unsure = !load(handle, k != NULL, runtime, kprof_kernel_root(kk));
        if ((e = calloc(1, sizeof *e)) != NULL) {
            e->key = key;
            e->unsure = unsure;
            struct loaded *old;
            pthread_mutex_lock(&pl.lock);
            HASH_FIND(hh, pl.loaded, &key, 2 * sizeof(void *), old);
            if (!old)
                HASH_ADD(hh, pl.loaded, key, 2 * sizeof(void *), e);
            else
                unsure = old->unsure;
            pthread_mutex_unlock(&pl.lock);
            if (old)
                free(e);
        }
    }
    if (unsure) /* this launch may load it: asked again at the next, until one has succeeded */
        kprof_tls_may_load = key;
    else {
        struct kprof_ready_cache *c = kprof_tls_block(&ready_caches, &kprof_tls_ready);
        if (c) {
            struct kprof_loaded_key *set = c->set[kprof_tls_set(handle)];
            set[1] = set[0]; /* the older of the two goes */
            set[0] = key;
        }
    }
}

void kprof_preload_launched_slow(int ok)
{
    struct kprof_loaded_key key = kprof_tls_may_load;
    kprof_tls_may_load.handle = NULL;
    if (!ok)
        return;
    struct loaded *e;
    pthread_mutex_lock(&pl.lock);
    HASH_FIND(hh, pl.loaded, &key, 2 * sizeof(void *), e);
    if (e && e->key.epoch == key.epoch)
        e->unsure = 0;
    pthread_mutex_unlock(&pl.lock);
}

void kprof_preload_code_unloaded(void)
{
    pthread_mutex_lock(&pl.lock);
    KPROF_HASH_FREE_ALL(pl.loaded);
    __atomic_add_fetch(&kprof_preload_epoch, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pl.lock);
}

/* fork(): the tables are whole when the lock is had (it is held only around table updates, never across a
 * driver call); waited for at most 200 ms, as the other modules' locks are. */
static int fork_held;

static int fork_prepare(void)
{
    struct timespec t = kprof_deadline_ms(200);
    fork_held = pthread_mutex_timedlock(&pl.lock, &t) == 0;
    return fork_held;
}

static void fork_parent(void)
{
    if (fork_held)
        pthread_mutex_unlock(&pl.lock);
}

static void fork_child(void)
{
    pthread_mutex_init(&pl.lock, NULL);
}

/* In a forked child the parent's contexts are gone: nothing it loaded is loaded here.  The CUkernel
 * handles noted stay (a handle's kind does not change).  The epoch moves on, so that no thread's cache
 * block (the parent's exited threads' too, which the child's threads may take: tls_sets.h) holds. */
static void preload_reset(void)
{
    KPROF_HASH_FREE_ALL(pl.loaded);
    __atomic_add_fetch(&kprof_preload_epoch, 1, __ATOMIC_RELAXED);
    if (kprof_tls_ready)
        memset(kprof_tls_ready, 0, sizeof(struct kprof_ready_cache));
    kprof_tls_may_load.handle = NULL;
}

KPROF_MODULE(preload, 40, fork_prepare, fork_parent, fork_child, preload_reset)
