/* driver.h: the CUDA driver as libkprof loads and wraps it (driver.c). */
#ifndef KPROF_DRIVER_H
#define KPROF_DRIVER_H

#include "cuda_api.h"
#include "names.h"

/* The driver functions libkprof calls itself (KPROF_DRIVER_USED in api.def), from libcuda.so.1. */
struct kprof_driver {
#define KPROF_DRIVER_USED(name) __typeof__(name) *name;
#define KPROF_DRIVER_USED_IF_PRESENT(name) __typeof__(name) *name; /* NULL when the driver lacks it */
#include "api.def"
};
extern struct kprof_driver kprof_drv;

/* The driver functions libkprof wraps (KPROF_DRIVER_WRAPPED in api.def): index, exported name, the
 * driver's own function (from libcuda.so.1, NULL if it lacks it) and libkprof's wrapper. */
enum kprof_dh_index {
#define KPROF_DRIVER_WRAPPED(name, cls) KPROF_DHI_##name,
#include "api.def"
    KPROF_DH_COUNT
};
extern const char *const kprof_dh_names[KPROF_DH_COUNT];
extern void *kprof_dh_real[KPROF_DH_COUNT];
extern const void *const kprof_dh_wrapper[KPROF_DH_COUNT];

/* The driver's function behind a driver wrapper (loading the driver first if needed): kprof_dh_real_get
 * returns entry `index` of kprof_dh_real, NULL when the driver lacks that function.  Thread-safe.  Not
 * KPROF_REAL_RT (resolve.h): every driver function comes from libcuda.so.1, loaded once for all of them. */
#define KPROF_REAL_DRV(name) ((__typeof__(name) *)kprof_dh_real_get(KPROF_DHI_##name))
/* 1 once the driver is loaded (stored with release after every entry point): kprof_dh_real_get and
 * kprof_driver_ready then need no pthread_once. */
extern int kprof_driver_loaded;
/* 1 once the program (or a library) has asked the driver for entry points through cuGetProcAddress, as
 * every CUDA runtime does, the one nvcc links into a program by default included (atomic; hook_driver.c).
 * Read at exit to say why nothing was profiled. */
extern int kprof_proc_address_asked;
void *kprof_dh_real_get_slow(int index);
static inline void *kprof_dh_real_get(int index)
{
    if (KPROF_LIKELY(__atomic_load_n(&kprof_driver_loaded, __ATOMIC_ACQUIRE)))
        return kprof_dh_real[index];
    return kprof_dh_real_get_slow(index);
}

/* The first statement of a driver wrapper: declares real_, the driver's function `name`, or returns
 * CUDA_ERROR_NOT_FOUND when the driver lacks it (a driver that lacks it cannot have handed the wrapper
 * out; the error is for a caller that found the wrapper by its exported name). */
#define KPROF_REAL_DRV_OR_FAIL(name)                                                               \
    __typeof__(name) *real_ = KPROF_REAL_DRV(name);                                                \
    if (KPROF_UNLIKELY(!real_))                                                                    \
        return CUDA_ERROR_NOT_FOUND

/* Loads libcuda.so.1, every KPROF_DRIVER_USED function and the real functions behind the
 * KPROF_DRIVER_WRAPPED wrappers, once (pthread_once); thread-safe.  Returns 1 when the driver is usable; 0 (after one warning) when it
 * is missing, and libkprof then only passes calls through. */
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

/* Given a driver function's address (as cuGetProcAddress or dlsym found it), returns libkprof's wrapper
 * for it, or NULL when libkprof does not wrap that function.  Matching by address, not by name and
 * version, means a function version libkprof does not know is never replaced by the wrong wrapper. */
const void *kprof_driver_wrapper_for(const void *real);

/* ---- the memory a copy's pointers name ---- */

/* The CUmemorytype of the memory at p (CU_POINTER_ATTRIBUTE_MEMORY_TYPE), or 0 for memory the driver does
 * not know (pageable host memory) or a NULL p.  Asked with cuPointerGetAttributes, which, unlike
 * cuPointerGetAttribute, succeeds on unknown memory: the query is never an error in the app's process.
 * Thread-safe; the driver must be loaded (kprof_driver_ready). */
unsigned int kprof_memory_type(CUdeviceptr p);
/* 1 if p is device memory (a device allocation, an array, or managed memory), 0 for host memory or
 * memory the driver does not know (ordinary host memory).  For copies whose direction the caller left to
 * the pointers (cudaMemcpyDefault, cuMemcpy, unified 2D/3D sides).  Thread-safe, as kprof_memory_type. */
static inline int kprof_is_device_memory(CUdeviceptr p)
{
    unsigned int type = kprof_memory_type(p);
    return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY || type == CU_MEMORYTYPE_UNIFIED;
}
/* A host pointer's memory kind, from the driver: pinned if the driver knows it, else pageable. */
enum kprof_host_mem kprof_host_mem_of(const void *p);
/* The host memory kind of a copy in direction dir (its host side; NONE for DtoD). */
enum kprof_host_mem kprof_copy_host_mem(enum kprof_dir dir, const void *dst, const void *src);

#endif
