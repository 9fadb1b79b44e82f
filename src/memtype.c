/* memtype.c: the kind of memory a pointer names, asked of the CUDA driver (cuPointerGetAttributes). */
#include <stdint.h>
#include "cuda_api.h"
#include "resolve.h"
#include "memtype.h"

unsigned int kprof_memory_type(CUdeviceptr p)
{
    /* cuPointerGetAttributes answers 0 with success for memory CUDA does not know (pageable host memory),
     * where cuPointerGetAttribute fails: libkprof's query never shows up as an error. */
    unsigned int type = 0;
    CUpointer_attribute attr = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    void *data = &type;
    if (!p || kprof_drv.cuPointerGetAttributes(1, &attr, &data, p) != CUDA_SUCCESS)
        return 0;
    return type;
}

enum kprof_host_mem kprof_host_mem_of(const void *p)
{
    return kprof_memory_type((CUdeviceptr)(uintptr_t)p) == CU_MEMORYTYPE_HOST ? KPROF_HOST_PINNED : KPROF_HOST_PAGEABLE;
}

enum kprof_host_mem kprof_copy_host_mem(enum kprof_dir dir, const void *dst, const void *src)
{
    switch (dir) {
    case KPROF_HTOD:
    case KPROF_HTOH: return kprof_host_mem_of(src);
    case KPROF_DTOH: return kprof_host_mem_of(dst);
    default: return KPROF_HOST_NONE;
    }
}
