/* dlshim.c: libdlshim.so, a second LD_PRELOAD library that wraps dlsym the way HAMi-core's GPU-sharing
 * library does: its own dlsym is unversioned, it reaches the next one with
 * dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"), and it hands out its own wrappers of cuGetProcAddress_v2
 * and cuMemAlloc_v2 (standing for a memory limit).  It says on stderr which cu* names were looked up
 * through it ("dlshim: dlsym NAME") and each allocation its wrapper saw ("dlshim: cuMemAlloc_v2 BYTES").
 * No libc string functions (under a sanitizer, its dlsym may answer the runtime's own early lookups,
 * before the runtime's string interceptors are set up).  Built without sanitizer flags, like libshim. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn next_dlsym;
static __typeof__(cuMemAlloc_v2) *real_alloc;
static __typeof__(cuGetProcAddress_v2) *real_gpa;

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static void say(const char *what, const char *name, unsigned long n)
{
    char line[256];
    int len = n ? snprintf(line, sizeof line, "dlshim: %s %lu\n", what, n)
                : snprintf(line, sizeof line, "dlshim: %s %s\n", what, name);
    if (len > 0 && write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1) < 0)
        return;
}

static CUresult shim_alloc(CUdeviceptr *p, size_t bytes)
{
    say("cuMemAlloc_v2", NULL, (unsigned long)bytes);
    return real_alloc ? real_alloc(p, bytes) : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult shim_gpa(const char *symbol, void **pfn, int version, cuuint64_t flags,
                         CUdriverProcAddressQueryResult *status)
{
    CUresult r = real_gpa ? real_gpa(symbol, pfn, version, flags, status) : CUDA_ERROR_NOT_INITIALIZED;
    if (r == CUDA_SUCCESS && pfn && *pfn && symbol && same(symbol, "cuMemAlloc")) {
        real_alloc = (__typeof__(real_alloc))*pfn;
        *pfn = (void *)shim_alloc;
    }
    return r;
}

void *dlsym(void *handle, const char *name)
{
    if (!next_dlsym)
        next_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    void *p = next_dlsym(handle, name);
    if (!p || !name || name[0] != 'c' || name[1] != 'u' || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
        return p;
    say("dlsym", name, 0);
    if (same(name, "cuMemAlloc_v2")) {
        real_alloc = (__typeof__(real_alloc))p;
        return (void *)shim_alloc;
    }
    if (same(name, "cuGetProcAddress_v2")) {
        real_gpa = (__typeof__(real_gpa))p;
        return (void *)shim_gpa;
    }
    return p;
}
