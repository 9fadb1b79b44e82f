/* preload.h: loading a kernel's module before its first launch is timed (preload.c). */
#ifndef KPROF_PRELOAD_H
#define KPROF_PRELOAD_H

#include <stdint.h>
#include "cuda_api.h"
#include "tls_sets.h"

/* A kernel handle (CUfunction, CUkernel, or a runtime launch key) and the context it was made ready in. */
struct kprof_loaded_key {
    const void *handle;
    CUcontext ctx;
    unsigned epoch;     /* kprof_preload_epoch when made ready (a module unload makes it stale) */
};
extern unsigned kprof_preload_epoch;
/* The handles this thread found made ready in a context: KPROF_TLS_SETS sets of two (tls_sets.h), in a
 * block of this thread's made at its first miss. */
struct kprof_ready_cache { struct kprof_loaded_key set[KPROF_TLS_SETS][2]; };
extern __thread void *kprof_tls_ready __attribute__((tls_model("initial-exec"))); /* struct kprof_ready_cache */

/* The first launch of a kernel in a context loads its module there (lazy loading): host work that would
 * sit between the launch's start event and the kernel.  kprof_preload does that loading before the start
 * event is recorded (cuFuncIsLoaded / cuFuncLoad, after cuKernelGetFunction for a CUkernel), once per
 * handle and context; later launches find the pair in a per-thread cache (kprof_tls_ready).  `runtime`: the
 * handle is a runtime launch key (a cudaKernel_t, or a host function pointer, turned into its function
 * through the runtime's cudaGetFuncBySymbol).  k (NULL: none) is the launch's kernel: its own entry
 * (kprof_kernel_root) gets the size of the function's parameter block in param_bytes once it is known
 * (cuFuncGetParamInfo for its last parameter, param_count known: written atomically, left alone
 * otherwise).  Needs the
 * CUDA 12.4 driver functions; without them it does nothing.  Thread-safe. */
struct kprof_kernel;
void kprof_preload_slow(const void *handle, CUcontext ctx, int runtime, struct kprof_kernel *k);
/* The launch this thread is making may load its kernel itself (handle NULL: it will not): a kernel libkprof
 * could not load first (a runtime launch by host function pointer, a driver older than 12.4) whose launch in
 * this context has not yet succeeded.  Such a loading "might require context synchronization" (CUDA
 * Programming Guide, Lazy Loading), which would wait for ever for a hold placed before the launch and
 * released after it: kprof_timing_begin places none then.  Set by kprof_preload. */
extern __thread struct kprof_loaded_key kprof_tls_may_load __attribute__((tls_model("initial-exec")));
static inline void kprof_preload(const void *handle, CUcontext ctx, int runtime, struct kprof_kernel *k)
{
    const struct kprof_ready_cache *c = kprof_tls_ready;
    if (KPROF_UNLIKELY(kprof_tls_may_load.handle != NULL))
        kprof_tls_may_load.handle = NULL;
    if (!handle || !ctx)
        return;
    if (KPROF_LIKELY(c != NULL)) {
        const struct kprof_loaded_key *r = c->set[kprof_tls_set(handle)];
        unsigned epoch = __atomic_load_n(&kprof_preload_epoch, __ATOMIC_RELAXED);
        if (KPROF_LIKELY(r[0].handle == handle && r[0].ctx == ctx && r[0].epoch == epoch) ||
            (r[1].handle == handle && r[1].ctx == ctx && r[1].epoch == epoch))
            return;
    }
    kprof_preload_slow(handle, ctx, runtime, k);
}
/* After the launch kprof_tls_may_load names: once one succeeded, its kernel is loaded in the context.
 * Clears kprof_tls_may_load.  Thread-safe. */
void kprof_preload_launched_slow(int ok);
static inline void kprof_preload_launched(int ok)
{
    if (KPROF_UNLIKELY(kprof_tls_may_load.handle != NULL))
        kprof_preload_launched_slow(ok);
}
/* Notes a handle known to be a CUkernel (from cuLibraryGetKernel or __cudaGetKernel).  Thread-safe. */
void kprof_preload_note_kernel(const void *handle);
/* A module or library was unloaded, or a context ended (its modules with it; a context made later, a
 * primary context after a reset in particular, may get its handle): what was loaded ahead of first
 * launches is forgotten (see kprof_names_code_unloaded).  Thread-safe. */
void kprof_preload_code_unloaded(void);

#endif
