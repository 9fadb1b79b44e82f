/* hook_dlsym.c: the C half of libkprof's dlsym (the trampoline is dlsym_trampoline.S): hands out driver
 * wrappers for the driver functions libkprof wraps, and finds glibc's dlsym for everything else. */
#include <dlfcn.h>
#include <string.h>
#include "kprof.h"

/* The sanitizer runtimes look their interceptors up with dlsym before they have set themselves up, so
 * the code that runs on every dlsym call must not be instrumented. */
#define KPROF_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

/* glibc's dlsym; the trampoline jumps through it.  Hidden, so the trampoline reaches it PC-relative. */
__attribute__((visibility("hidden"))) void *(*kprof_dlsym_next)(void *, const char *);

KPROF_NO_SANITIZE static void find_next_dlsym(void)
{
    /* dlvsym is not interposed, and RTLD_NEXT from here skips libkprof's own dlsym. */
    void *(*next)(void *, const char *) = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!next)
        next = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&kprof_dlsym_next, next, __ATOMIC_RELEASE);
}

void *kprof_real_dlsym(void *handle, const char *name)
{
    if (KPROF_UNLIKELY(!__atomic_load_n(&kprof_dlsym_next, __ATOMIC_ACQUIRE)))
        find_next_dlsym();
    return kprof_dlsym_next(handle, name);
}

/* Called by the trampoline with dlsym's arguments.  Returns a wrapper to hand out instead, or NULL to let
 * glibc's dlsym answer (always having made sure kprof_dlsym_next is set).  Never sets dlerror. */
__attribute__((visibility("hidden"))) void *kprof_dlsym_hook(void *handle, const char *name);
KPROF_NO_SANITIZE void *kprof_dlsym_hook(void *handle, const char *name)
{
    if (KPROF_UNLIKELY(!__atomic_load_n(&kprof_dlsym_next, __ATOMIC_ACQUIRE)))
        find_next_dlsym();
    /* Only cu* names looked up in a specific library: RTLD_DEFAULT already finds libkprof's exported
     * wrappers, and RTLD_NEXT must stay relative to its caller. */
    /* Also inside a runtime wrapper: cudart looks its driver up during its first call, and its driver
     * calls must reach the wrappers (which pass through while a runtime wrapper is counting). */
    if (!name || name[0] != 'c' || name[1] != 'u' || handle == RTLD_DEFAULT || handle == RTLD_NEXT ||
        kprof_config.disabled)
        return NULL;
    int known = 0;
    for (int i = 0; i < KPROF_DH_COUNT && !known; i++)
        known = strcmp(name, kprof_dh_names[i]) == 0;
    if (!known)
        return NULL;
    kprof_tls_depth++;
    void *real = kprof_dlsym_next(handle, name);
    const void *w = kprof_driver_wrapper_for(real); /* only libcuda's own function gets the wrapper */
    kprof_tls_depth--;
    return (void *)w;
}
