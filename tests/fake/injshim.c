/* injshim.c: libinjshim.so, a preload that stands for Nsight Compute's libcuda-injection.so (ncu 2025.3,
 * seen on the H200 with LD_DEBUG=bindings): it exports dlopen, and answers a CUDA runtime's
 * dlopen("libcuda.so.1") with a handle to itself, whose exported cuGetProcAddress_v2 hands out driver
 * entry points found through libc's own dlsym.  So the runtime's driver functions, cuInit included, come
 * from a library libkprof never sees loaded as the driver, and no driver wrapper of libkprof's is called;
 * other callers of dlopen (libkprof itself) get the driver as usual.  Says "injshim: cuGetProcAddress_v2"
 * on stderr once its entry-point query is used.  Built without sanitizer flags, like libdlshim. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlsym_fn)(void *, const char *);
static dlopen_fn real_dlopen;
static dlsym_fn libc_dlsym;
static __typeof__(cuGetProcAddress_v2) *driver_gpa;
static int said;

/* The next dlopen and libc's own dlsym, through dlvsym (which no preload of these tests interposes). */
static void find_real(void)
{
    if (real_dlopen)
        return;
    real_dlopen = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.34");
    if (!real_dlopen)
        real_dlopen = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5");
    void *libc = real_dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    libc_dlsym = (dlsym_fn)dlvsym(libc, "dlsym", "GLIBC_2.34");
    if (!libc_dlsym)
        libc_dlsym = (dlsym_fn)dlvsym(libc, "dlsym", "GLIBC_2.2.5");
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    find_real();
    if (!driver_gpa) {
        void *h = real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        driver_gpa = h ? (__typeof__(driver_gpa))libc_dlsym(h, "cuGetProcAddress_v2") : NULL;
    }
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
        static const char line[] = "injshim: cuGetProcAddress_v2\n";
        if (write(2, line, sizeof line - 1) < 0)
            return CUDA_ERROR_UNKNOWN;
    }
    return driver_gpa ? driver_gpa(symbol, pfn, version, flags, status) : CUDA_ERROR_NOT_INITIALIZED;
}

void *dlopen(const char *file, int mode)
{
    find_real();
    Dl_info caller;
    if (file && strcmp(file, "libcuda.so.1") == 0 && dladdr(__builtin_return_address(0), &caller) &&
        caller.dli_fname && strstr(caller.dli_fname, "libcudart")) {
        Dl_info self;
        if (dladdr((void *)cuGetProcAddress_v2, &self) && self.dli_fname)
            return real_dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    }
    return real_dlopen(file, mode);
}
