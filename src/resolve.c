/* resolve.c: the real CUDA runtime functions behind libkprof's runtime wrappers (kprof_rt), found in the
 * libcudart loaded after libkprof, and forgotten when that library is unloaded (libkprof's dlclose). */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "cuda_api.h"
#include "log.h"
#include "dlsym_next.h"
#include "resolve.h"

struct kprof_runtime kprof_rt;

/* glibc's dlclose (libkprof exports a dlclose of its own, below); found once. */
static int (*real_dlclose)(void *);
static pthread_once_t real_dlclose_once = PTHREAD_ONCE_INIT;

static void real_dlclose_find(void)
{
    real_dlclose = (int (*)(void *))kprof_real_dlsym(RTLD_NEXT, "dlclose");
}

/* dlclose for libkprof's own handles: straight to glibc's. */
static int own_dlclose(void *h)
{
    pthread_once(&real_dlclose_once, real_dlclose_find);
    return real_dlclose ? real_dlclose(h) : -1;
}

/* The libraries the kprof_rt functions came from: each one's load address (dladdr's dli_fbase) and one
 * of its functions, to ask dladdr after a dlclose whether it is still loaded there.  Under rt_libs.lock;
 * n is also read without it (atomically) by dlclose, which does nothing while it is 0. */
#define RT_LIBS 8
static struct {
    pthread_mutex_t lock;
    int n;
    struct { void *base; void *fn; } lib[RT_LIBS];
} rt_libs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Notes the library that defines fn (a function kprof_rt is about to hold); call with rt_libs.lock. */
static void rt_lib_note(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fbase)
        return;
    for (int i = 0; i < rt_libs.n; i++)
        if (rt_libs.lib[i].base == info.dli_fbase)
            return;
    if (rt_libs.n < RT_LIBS) {
        rt_libs.lib[rt_libs.n].base = info.dli_fbase;
        rt_libs.lib[rt_libs.n].fn = fn;
        __atomic_store_n(&rt_libs.n, rt_libs.n + 1, __ATOMIC_RELEASE);
    }
}

/* After a dlclose: if a library that kprof_rt's functions came from is no longer loaded at its address,
 * forget every kprof_rt function, so that each is looked up again at its next call (in the libcudart
 * loaded by then, wherever it is).  Never called on the hot path. */
static void rt_check_unloaded(void)
{
    pthread_mutex_lock(&rt_libs.lock);
    int gone = 0;
    for (int i = 0; i < rt_libs.n && !gone; i++) {
        Dl_info info;
        gone = !dladdr(rt_libs.lib[i].fn, &info) || info.dli_fbase != rt_libs.lib[i].base;
    }
    if (gone) {
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) __atomic_store_n(&kprof_rt.name, NULL, __ATOMIC_RELEASE);
#define KPROF_RUNTIME_USED(name) __atomic_store_n(&kprof_rt.name, NULL, __ATOMIC_RELEASE);
#include "api.def"
        __atomic_store_n(&rt_libs.n, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&rt_libs.lock);
    if (gone)
        kprof_info("the CUDA runtime was unloaded; its functions will be looked up again");
}

KPROF_EXPORT int dlclose(void *handle)
{
    pthread_once(&real_dlclose_once, real_dlclose_find);
    if (!real_dlclose)
        return -1; /* cannot happen with glibc */
    int r = real_dlclose(handle);
    if (r == 0 && __atomic_load_n(&rt_libs.n, __ATOMIC_ACQUIRE) > 0) {
        int saved = errno;
        rt_check_unloaded();
        errno = saved;
    }
    return r;
}

/* dl_iterate_phdr callback: looks `name` up in each loaded libcudart (one loaded with RTLD_LOCAL, by a
 * plugin or a Python extension, is invisible to RTLD_NEXT but still calls libkprof's wrappers). */
struct find_arg { const char *name; void *fn; };
static int find_in_cudart(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find_arg *a = data;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (!base || strncmp(base, "libcudart.so", 12) != 0)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return 0;
    a->fn = kprof_real_dlsym(h, a->name);
    own_dlclose(h); /* NOLOAD took a reference; the library stays loaded by whoever loaded it */
    return a->fn != NULL;
}

void *kprof_rt_resolve(void **slot, const char *name)
{
    void *fn = kprof_real_dlsym(RTLD_NEXT, name);
    if (!fn) {
        struct find_arg a = { name, NULL };
        dl_iterate_phdr(find_in_cudart, &a);
        fn = a.fn;
    }
    if (!fn) {
        kprof_warn("no CUDA runtime defines %s after libkprof; the call fails with "
                   "cudaErrorSharedObjectSymbolNotFound", name);
        return NULL;
    }
    pthread_mutex_lock(&rt_libs.lock);
    rt_lib_note(fn);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt_libs.lock);
    return fn;
}


int kprof_rt_quiet_begin(void)
{
    return KPROF_REAL_RT(cudaPeekAtLastError) && KPROF_REAL_RT(cudaGetLastError) &&
           kprof_rt.cudaPeekAtLastError() == cudaSuccess;
}

void kprof_rt_quiet_end(cudaError_t r)
{
    if (r != cudaSuccess)
        kprof_rt.cudaGetLastError();
}

/* Bit 1: a CUDA driver library (libcuda.so*) has been seen loaded; bit 2: a CUDA runtime (libcudart.so*).
 * Sticky: a program that loaded one is a CUDA program. */
static int cuda_seen;

static int is_cuda_library(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    int kind = !base                                  ? 0
               : strncmp(base, "libcuda.so", 10) == 0   ? 1
               : strncmp(base, "libcudart.so", 12) == 0 ? 2
                                                        : 0;
    return kind == *(int *)data;
}

int kprof_cuda_library_loaded(int kind)
{
    if (__atomic_load_n(&cuda_seen, __ATOMIC_RELAXED) & kind)
        return 1;
    if (!dl_iterate_phdr(is_cuda_library, &kind))
        return 0;
    __atomic_fetch_or(&cuda_seen, kind, __ATOMIC_RELAXED);
    return 1;
}
