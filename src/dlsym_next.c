/* dlsym_next.c: the dlsym after libkprof's in the chain of definitions, for the trampoline and for
 * libkprof's own lookups. */
#include <dlfcn.h>
#include "cuda_api.h"
#include "kprof_config.h"
#include "dlsym_next.h"

/* The sanitizer runtimes look their interceptors up with dlsym before they have set themselves up, so
 * the code that runs on every dlsym call must not be instrumented. */
#define KPROF_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

/* The next dlsym in the chain of definitions after libkprof, whatever version it is exported under:
 * glibc's, or another preloaded library's dlsym (a second interposer, which then sees every lookup that
 * libkprof passes on).  The trampoline jumps through it.  Hidden, so the trampoline reaches it
 * PC-relative.  Set once (idempotently) by kprof_dlsym_find_next(). */
kprof_dlsym_fn kprof_dlsym_next;

/* A dlsym exported under glibc's version nodes after libkprof: glibc's own, or the trampoline of another
 * copy of libkprof (which jumps to glibc's).  libkprof's own lookups go through it, so that RTLD_NEXT
 * passed to it resolves relative to libkprof even when kprof_dlsym_next is a C wrapper of someone else's
 * (whose own call to glibc would make RTLD_NEXT relative to itself).  Published before kprof_dlsym_next. */
static kprof_dlsym_fn real_dlsym;

KPROF_NO_SANITIZE void kprof_dlsym_find_next(void)
{
    /* dlvsym is not interposed, and RTLD_NEXT from here skips libkprof's own dlsym.  dlvsym only finds
     * a definition exported under the version asked for: it passes over an unversioned dlsym of another
     * preload, which the unversioned lookup below finds. */
    kprof_dlsym_fn real = (kprof_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real)
        real = (kprof_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    /* Called from here, RTLD_NEXT is relative to libkprof: the first dlsym after it, of any version. */
    kprof_dlsym_fn next = real ? (kprof_dlsym_fn)real(RTLD_NEXT, "dlsym") : NULL;
    if (!next)
        next = real;
    __atomic_store_n(&real_dlsym, real, __ATOMIC_RELAXED);
    __atomic_store_n(&kprof_dlsym_next, next, __ATOMIC_RELEASE);
}

void *kprof_real_dlsym(void *handle, const char *name)
{
    if (KPROF_UNLIKELY(!__atomic_load_n(&kprof_dlsym_next, __ATOMIC_ACQUIRE)))
        kprof_dlsym_find_next();
    return __atomic_load_n(&real_dlsym, __ATOMIC_RELAXED)(handle, name);
}

void *kprof_next_dlsym(void *handle, const char *name)
{
    if (KPROF_UNLIKELY(!__atomic_load_n(&kprof_dlsym_next, __ATOMIC_ACQUIRE)))
        kprof_dlsym_find_next();
    return __atomic_load_n(&kprof_dlsym_next, __ATOMIC_RELAXED)(handle, name);
}

