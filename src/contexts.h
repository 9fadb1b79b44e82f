/* contexts.h: the CUDA contexts libkprof has seen and the driver's initialisation (call.c). */
#ifndef KPROF_CONTEXTS_H
#define KPROF_CONTEXTS_H

#include <stdint.h>
#include "cuda_api.h"

/* A call that creates contexts returned ctx after host_ns of host time: if libkprof had not seen ctx,
 * that time goes to the `context init` row of `device`, attributed to the program's call in progress on
 * this thread (the outermost counted call, if any, else `api`) and to `api`, the driver function that
 * created it, and is left out of the enclosing call's own host time.  Thread-safe. */
void kprof_context_created(CUcontext ctx, CUdevice device, int api, uint64_t host_ns);

/* A successful cuInit took host_ns: the first successful driver initialisation is part of creating the
 * first context, so it joins that context's `context init` row and, like it, is left out of the enclosing
 * call's own host time.  Thread-safe. */
void kprof_driver_initialized(uint64_t host_ns);

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
/* A context was destroyed (or a device reset): no thread's current context is taken as known any more
 * (struct kprof_call's ctx_assumed).  Thread-safe. */
void kprof_contexts_changed(void);

#endif
