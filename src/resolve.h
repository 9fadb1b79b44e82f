/* resolve.h: the real CUDA runtime functions behind libkprof's runtime wrappers (resolve.c). */
#ifndef KPROF_RESOLVE_H
#define KPROF_RESOLVE_H

#include "cuda_api.h"

/* The real runtime functions: KPROF_RUNTIME_WRAPPED and KPROF_RUNTIME_USED entries of api.def, found
 * lazily with dlsym(RTLD_NEXT) because a program may load libcudart after libkprof (Python does). */
struct kprof_runtime {
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) __typeof__(proto) *name;
#define KPROF_RUNTIME_USED(name) __typeof__(name) *name;
#include "api.def"
};
extern struct kprof_runtime kprof_rt;

/* Looks `name` up with dlsym(RTLD_NEXT) and stores it in *slot; returns it, or NULL (after one warning)
 * when no later library defines it.  Thread-safe and idempotent. */
void *kprof_rt_resolve(void **slot, const char *name);

/* The real runtime function `name` (a KPROF_RUNTIME_WRAPPED or KPROF_RUNTIME_USED entry), found on first
 * use: one predictable branch once resolved; NULL when no later library defines it.  Thread-safe.  Unlike the
 * driver's (KPROF_REAL_DRV in driver.h, one table filled when libcuda.so.1 is loaded), each runtime
 * function is looked up alone and late: libcudart may be loaded after libkprof, or not at all, or be
 * linked statically into the program (then only the functions it exports are found). */
#define KPROF_REAL_RT(name)                                                                        \
    (__atomic_load_n(&kprof_rt.name, __ATOMIC_ACQUIRE)                                             \
         ? kprof_rt.name                                                                           \
         : (__typeof__(kprof_rt.name))kprof_rt_resolve((void **)&kprof_rt.name, #name))

/* libkprof's own questions to the runtime (KPROF_RUNTIME_USED), asked without disturbing the app's last-error
 * state: kprof_rt_quiet_begin says whether the runtime can be asked now (its cudaPeekAtLastError and
 * cudaGetLastError found, and no error of the app's pending); kprof_rt_quiet_end(r) clears the error a
 * failed question left (r, the question's result).  Thread-safe (the last error is per thread). */
int kprof_rt_quiet_begin(void);
void kprof_rt_quiet_end(cudaError_t r);

/* The first statement of a runtime wrapper: declares real_, the real function `name`, or returns
 * cudaErrorSharedObjectSymbolNotFound (as a missing symbol would fail) when it cannot be found.  The
 * driver's wrappers use KPROF_REAL_DRV_OR_FAIL (driver.h): another lookup, another error code. */
#define KPROF_REAL_RT_OR_FAIL(name)                                                                \
    __typeof__(kprof_rt.name) real_ = KPROF_REAL_RT(name);                                         \
    if (KPROF_UNLIKELY(!real_))                                                                    \
        return cudaErrorSharedObjectSymbolNotFound

/* The CUDA libraries kprof_cuda_library_loaded asks about. */
enum { KPROF_LIB_DRIVER = 1, KPROF_LIB_RUNTIME = 2 };
/* 1 when a library of `kind` (libcuda.so* for KPROF_LIB_DRIVER, libcudart.so* for KPROF_LIB_RUNTIME) is
 * loaded in the process, in any namespace or scope, or has been (sticky: a program that loaded one is a
 * CUDA program).  Walks the loaded objects (dl_iterate_phdr) until one is seen: not for a launch path.
 * Thread-safe. */
int kprof_cuda_library_loaded(int kind);

#endif
