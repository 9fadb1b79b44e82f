/* memtype.h: the kind of memory a pointer names, as the CUDA driver knows it (memtype.c). */
#ifndef KPROF_MEMTYPE_H
#define KPROF_MEMTYPE_H

#include "cuda_api.h"
#include "names.h"

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
