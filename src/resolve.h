/* resolve.h: the real CUDA functions behind libkprof's wrappers, and the driver functions libkprof calls
 * itself (resolve.c). */
#ifndef KPROF_RESOLVE_H
#define KPROF_RESOLVE_H

#include "cuda_api.h"

/* ---- the runtime ---- */

/* The real runtime functions: KPROF_RUNTIME_WRAPPED and KPROF_RUNTIME_USED entries of api.def, found
 * lazily with dlsym(RTLD_NEXT) because a program may load libcudart after libkprof (Python does). */
struct kprof_runtime {
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) __typeof__(proto) *name;
#define KPROF_RUNTIME_USED(name) __typeof__(name) *name;
#include "api.def"
};
extern struct kprof_runtime kprof_rt;

/* KPROF_REAL's first lookup of a runtime function: looks `name` up with dlsym(RTLD_NEXT) (or in a
 * libcudart loaded in a local scope) and stores it in *slot; returns it, or NULL (after one warning) when
 * no later library defines it.  Thread-safe and idempotent. */
void *kprof_rt_resolve(void **slot, const char *name);

/* libkprof's own questions to the runtime (KPROF_RUNTIME_USED), asked without disturbing the app's
 * last-error state: kprof_rt_quiet_begin says whether the runtime can be asked now (its
 * cudaPeekAtLastError and cudaGetLastError found, and no error of the app's pending); kprof_rt_quiet_end(r)
 * clears the error a failed question left (r, the question's result).  Thread-safe (the last error is per
 * thread). */
int kprof_rt_quiet_begin(void);
void kprof_rt_quiet_end(cudaError_t r);

/* ---- the driver ---- */

/* The driver functions libkprof calls itself (KPROF_DRIVER_USED in api.def), from libcuda.so.1. */
struct kprof_driver {
#define KPROF_DRIVER_USED(name) __typeof__(name) *name;
#define KPROF_DRIVER_USED_IF_PRESENT(name) __typeof__(name) *name; /* NULL when the driver lacks it */
#include "api.def"
};
extern struct kprof_driver kprof_drv;

/* The driver functions libkprof wraps (KPROF_DRIVER_WRAPPED in api.def): index, exported name, the
 * driver's own function (from libcuda.so.1, NULL if it lacks it) and libkprof's wrapper. */
enum kprof_driver_fn {
#define KPROF_DRIVER_WRAPPED(name, cls) KPROF_DRIVER_FN_##name,
#include "api.def"
    KPROF_DRIVER_FN_COUNT
};
extern const char *const kprof_driver_fn_names[KPROF_DRIVER_FN_COUNT];
extern void *kprof_driver_fn_real[KPROF_DRIVER_FN_COUNT];
extern const void *const kprof_driver_fn_wrapper[KPROF_DRIVER_FN_COUNT];

/* 1 once the driver is loaded (stored with release after every entry point): kprof_driver_fn_real_get and
 * kprof_driver_ready then need no pthread_once. */
extern int kprof_driver_loaded;
/* 1 once the program (or a library) has asked the driver for entry points through cuGetProcAddress, as
 * every CUDA runtime does, the one nvcc links into a program by default included (atomic; hook_driver.c).
 * Read at exit to say why nothing was profiled. */
extern int kprof_proc_address_asked;
/* Entry `index` of kprof_driver_fn_real, the driver's function behind a driver wrapper (KPROF_REAL), loading
 * the driver first if needed; NULL when the driver lacks that function.  Thread-safe. */
void *kprof_driver_fn_real_get_slow(int index);
static inline void *kprof_driver_fn_real_get(int index)
{
    if (KPROF_LIKELY(__atomic_load_n(&kprof_driver_loaded, __ATOMIC_ACQUIRE)))
        return kprof_driver_fn_real[index];
    return kprof_driver_fn_real_get_slow(index);
}
/* The same, NULL while the driver is not loaded, never loading it: for a pass-through path that must stay
 * a jump to the real function, with no call of its own to make. */
static inline void *kprof_driver_fn_real_if_loaded(int index)
{
    return __atomic_load_n(&kprof_driver_loaded, __ATOMIC_ACQUIRE) ? kprof_driver_fn_real[index] : NULL;
}

/* Loads libcuda.so.1, every KPROF_DRIVER_USED function and the real functions behind the
 * KPROF_DRIVER_WRAPPED wrappers, once (pthread_once); thread-safe.  Returns 1 when the driver is usable;
 * 0 (after one warning) when it is missing, and libkprof then only passes calls through. */
int kprof_driver_ready_slow(void);
static inline int kprof_driver_ready(void)
{
    return KPROF_LIKELY(__atomic_load_n(&kprof_driver_loaded, __ATOMIC_ACQUIRE)) || kprof_driver_ready_slow();
}

/* Whether libkprof has loaded the driver, without loading it: KPROF_DRIVER_UNTRIED (nothing asked for it
 * yet: no CUDA call while profiling ran), KPROF_DRIVER_LOADED, or KPROF_DRIVER_MISSING, *why then pointing
 * to the reason (static storage; the dlopen error, or the function the driver lacks).  Thread-safe. */
enum { KPROF_DRIVER_UNTRIED, KPROF_DRIVER_LOADED, KPROF_DRIVER_MISSING };
int kprof_driver_state(const char **why);

/* For a process in which nothing asked libkprof for the driver (KPROF_DRIVER_UNTRIED): 1 when libcuda.so.1
 * is loaded in it or can be (loaded, then closed again: call it only at exit), 0 when it cannot be, with
 * *why the loader's message (static storage).  A program whose CUDA runtime is linked into it (nvcc's
 * default) dlopens the driver itself, and when that fails none of its calls reaches libkprof. */
int kprof_driver_loadable(const char **why);

/* Given a driver function's address (as cuGetProcAddress or dlsym found it), returns libkprof's wrapper
 * for it, or NULL when libkprof does not wrap that function.  Matching by address, not by name and
 * version, means a function version libkprof does not know is never replaced by the wrong wrapper. */
const void *kprof_driver_wrapper_for(const void *real);

/* ---- the real function behind a wrapper ---- */

/* The real function `name`: the one behind libkprof's wrapper of it (a KPROF_RUNTIME_WRAPPED or
 * KPROF_DRIVER_WRAPPED entry of api.def), or a runtime function libkprof calls (KPROF_RUNTIME_USED);
 * NULL when it cannot be found.  Thread-safe; one predictable branch once found.  A runtime function is
 * looked up alone, at its first use, with dlsym(RTLD_NEXT) (libcudart may be loaded after libkprof, or
 * not at all, or be linked statically into the program, which then exports only some); a driver one
 * comes from the table filled when libcuda.so.1 is loaded, at once for all of them.  Typed where it is
 * used, so that a wrapper defined before it (a per-thread twin cuda.h may not declare) is enough. */
#define KPROF_REAL(name) ((__typeof__(name) *)kprof_real_##name())

/* The first statement of a wrapper: declares real_, KPROF_REAL(name), or returns the error a missing
 * function gives when there is none: cudaErrorSharedObjectSymbolNotFound from a runtime wrapper (as a
 * missing symbol would fail), CUDA_ERROR_NOT_FOUND from a driver wrapper (a driver that lacks the
 * function cannot have handed the wrapper out; the error is for a caller that found it by its name). */
#define KPROF_REAL_OR_RETURN(name)                                                                 \
    __typeof__(name) *real_ = KPROF_REAL(name);                                                    \
    if (KPROF_UNLIKELY(!real_))                                                                    \
        return kprof_real_missing_##name()

/* For each api.def entry, KPROF_REAL's accessor (kprof_real_NAME) and KPROF_REAL_OR_RETURN's error
 * (kprof_real_missing_NAME), with the type of the library's wrappers. */
#define KPROF_REAL_RUNTIME(name)                                                                   \
    static inline __attribute__((always_inline)) void *kprof_real_##name(void)                     \
    {                                                                                              \
        __typeof__(kprof_rt.name) f = __atomic_load_n(&kprof_rt.name, __ATOMIC_ACQUIRE);           \
        return f ? (void *)f : kprof_rt_resolve((void **)&kprof_rt.name, #name);                   \
    }                                                                                              \
    static inline cudaError_t kprof_real_missing_##name(void) { return cudaErrorSharedObjectSymbolNotFound; }
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) KPROF_REAL_RUNTIME(name)
#define KPROF_RUNTIME_USED(name) KPROF_REAL_RUNTIME(name)
#define KPROF_DRIVER_WRAPPED(name, cls)                                                            \
    static inline __attribute__((always_inline)) void *kprof_real_##name(void)                     \
    {                                                                                              \
        return kprof_driver_fn_real_get(KPROF_DRIVER_FN_##name);                                   \
    }                                                                                              \
    static inline CUresult kprof_real_missing_##name(void) { return CUDA_ERROR_NOT_FOUND; }
#include "api.def"
#undef KPROF_REAL_RUNTIME

/* ---- which CUDA libraries are loaded ---- */

/* The CUDA libraries kprof_cuda_library_loaded asks about. */
enum { KPROF_LIB_DRIVER = 1, KPROF_LIB_RUNTIME = 2 };
/* 1 when a library of `kind` (libcuda.so* for KPROF_LIB_DRIVER, libcudart.so* for KPROF_LIB_RUNTIME) is
 * loaded in the process, in any namespace or scope, or has been (sticky: a program that loaded one is a
 * CUDA program).  Walks the loaded objects (dl_iterate_phdr) until one is seen: not for a launch path.
 * Thread-safe. */
int kprof_cuda_library_loaded(int kind);

#endif
