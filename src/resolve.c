/* resolve.c: the real CUDA functions behind libkprof's wrappers: the runtime's (kprof_rt), found in the
 * libcudart loaded after libkprof and forgotten when that library is unloaded (libkprof's dlclose); the
 * driver's and the driver functions libkprof calls itself (kprof_drv), loaded at once from libcuda.so.1. */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "cuda_api.h"
#include "log.h"
#include "kprof_config.h"
#include "dlsym_next.h"
#include "resolve.h"

/* ---- the runtime ---- */

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


/* Through the pointers KPROF_REAL returns (atomic loads), never a plain read of kprof_rt's slots, which
 * another thread may be filling (a ThreadSanitizer report a breaker helper found). */
int kprof_rt_quiet_begin(void)
{
    __typeof__(cudaPeekAtLastError) *peek = KPROF_REAL(cudaPeekAtLastError);
    return peek && KPROF_REAL(cudaGetLastError) && peek() == cudaSuccess;
}

void kprof_rt_quiet_end(cudaError_t r)
{
    __typeof__(cudaGetLastError) *get = KPROF_REAL(cudaGetLastError);
    if (r != cudaSuccess && get)
        get();
}

/* ---- the driver ---- */

struct kprof_driver kprof_drv;

const char *const kprof_driver_fn_names[KPROF_DRIVER_FN_COUNT] = {
#define KPROF_DRIVER_WRAPPED(name, cls) #name,
#include "api.def"
};
void *kprof_driver_fn_real[KPROF_DRIVER_FN_COUNT];

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static int driver_ok;
/* KPROF_DRIVER_* (resolve.h), stored once driver_load has run; why it failed, written before. */
static int driver_state;
static char driver_why[256];

static void driver_load(void)
{
    /* The app's cudart dlopens the same library, so this adds no second copy; RTLD_LOCAL keeps
     * libkprof's lookup from changing anyone's symbol resolution. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        /* No driver: the program's own CUDA calls fail as they would without libkprof; nothing to say
         * unless asked. */
        const char *why = dlerror();
        snprintf(driver_why, sizeof driver_why, "%s", why ? why : "libcuda.so.1 not found");
        __atomic_store_n(&driver_state, KPROF_DRIVER_MISSING, __ATOMIC_RELEASE);
        kprof_info("cannot load the CUDA driver (%s); passing every call through", driver_why);
        return;
    }
    /* An explicit handle finds libcuda's own definitions, never libkprof's exported wrappers.  The
     * functions behind the wrappers are what the next dlsym hands out: another dlsym interposer preloaded
     * after libkprof may answer with its own wrapper, which libkprof's then calls. */
    for (int i = 0; i < KPROF_DRIVER_FN_COUNT; i++)
        kprof_driver_fn_real[i] = kprof_next_dlsym(h, kprof_driver_fn_names[i]);
#define KPROF_DRIVER_USED_IF_PRESENT(name)                                                \
    kprof_drv.name = (__typeof__(kprof_drv.name))kprof_real_dlsym(h, #name);
#define KPROF_DRIVER_USED(name)                                                           \
    kprof_drv.name = (__typeof__(kprof_drv.name))kprof_real_dlsym(h, #name);              \
    if (!kprof_drv.name) {                                                                \
        kprof_warn("the CUDA driver lacks %s; passing every call through", #name);       \
        snprintf(driver_why, sizeof driver_why, "libcuda.so.1 lacks %s", #name);          \
        __atomic_store_n(&driver_state, KPROF_DRIVER_MISSING, __ATOMIC_RELEASE);          \
        return;                                                                           \
    }
#include "api.def"
    driver_ok = 1;
    __atomic_store_n(&driver_state, KPROF_DRIVER_LOADED, __ATOMIC_RELEASE);
    __atomic_store_n(&kprof_driver_loaded, 1, __ATOMIC_RELEASE);
}

int kprof_driver_state(const char **why)
{
    int st = __atomic_load_n(&driver_state, __ATOMIC_ACQUIRE);
    if (why)
        *why = st == KPROF_DRIVER_MISSING ? driver_why : NULL;
    return st;
}

int kprof_driver_loadable(const char **why)
{
    static char loader_why[256];
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        return 1;
    }
    const char *e = dlerror();
    snprintf(loader_why, sizeof loader_why, "%s", e ? e : "libcuda.so.1 not found");
    *why = loader_why;
    return 0;
}

int kprof_driver_loaded;

int kprof_driver_ready_slow(void)
{
    pthread_once(&driver_once, driver_load);
    return driver_ok;
}

void *kprof_driver_fn_real_get_slow(int index)
{
    pthread_once(&driver_once, driver_load);
    return kprof_driver_fn_real[index];
}

const void *kprof_driver_wrapper_for(const void *real)
{
    if (!real || !kprof_driver_ready() || kprof_config.disabled)
        return NULL;
    for (int i = 0; i < KPROF_DRIVER_FN_COUNT; i++)
        if (kprof_driver_fn_real[i] == real)
            return kprof_driver_fn_wrapper[i];
    return NULL;
}

/* ---- which CUDA libraries are loaded ---- */

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
