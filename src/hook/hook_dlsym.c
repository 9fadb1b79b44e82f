/* hook_dlsym.c: the C half of libkprof's dlsym (the trampoline is dlsym_trampoline.S): hands out driver
 * wrappers for the driver functions libkprof wraps, hides libkprof's own CUDA exports from
 * dlsym(RTLD_DEFAULT) while no CUDA library is loaded, and passes everything else to the next dlsym
 * (dlsym_next.c). */
#include <dlfcn.h>
#include <string.h>
#include "cuda_api.h"
#include "kprof_config.h"
#include "dlsym_next.h"
#include "call.h"
#include "instance.h"
#include "resolve.h"

/* The sanitizer runtimes look their interceptors up with dlsym before they have set themselves up, so
 * the code that runs on every dlsym call must not be instrumented. */
#define KPROF_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

/* What kprof_dlsym_hook() returns for "answer NULL" (it has set dlerror); the trampoline returns NULL. */
#define KPROF_DLSYM_NOT_FOUND ((void *)1)

/* ---- dlsym(RTLD_DEFAULT, "cuInit") in a program without CUDA ------------------------------------ */

/* dlsym(RTLD_DEFAULT, name) for a CUDA-looking name: while no CUDA library that defines such names is
 * loaded, libkprof's own exported function (or another copy's) must not answer it, or a program's "is CUDA
 * here?" check would see CUDA.  Returns NULL to pass the lookup on unchanged, else the answer: what a
 * library after libkprof defines, or KPROF_DLSYM_NOT_FOUND (dlerror set by that failed lookup).  Not on
 * any launch path. */
static void *default_lookup(const char *name)
{
    /* A runtime name (cuda*, __cuda*) needs a runtime loaded, a driver name (cu*) the driver. */
    const char *n = name[0] == '_' ? name + 2 : name;
    if (kprof_cuda_library_loaded(n[2] == 'd' && n[3] == 'a' ? KPROF_LIB_RUNTIME : KPROF_LIB_DRIVER))
        return NULL;
    void *p = kprof_real_dlsym(RTLD_DEFAULT, name);
    if (!p || !kprof_is_libkprof(p))
        return NULL; /* someone else's definition (or none): glibc answers as without libkprof */
    p = kprof_real_dlsym(RTLD_NEXT, name);
    if (p && kprof_is_libkprof(p)) /* a second copy of libkprof: no more a CUDA library than this one */
        p = kprof_real_dlsym(RTLD_NEXT, " kprof: no such symbol"); /* NULL, with dlerror set */
    return p ? p : KPROF_DLSYM_NOT_FOUND;
}

/* Called by the trampoline with dlsym's arguments.  Returns a wrapper (or other answer) to hand out
 * instead, KPROF_DLSYM_NOT_FOUND to answer NULL, or NULL to let the next dlsym answer (always having made
 * sure kprof_dlsym_next is set).  Sets dlerror only when it answers NULL. */
__attribute__((visibility("hidden"))) void *kprof_dlsym_hook(void *handle, const char *name);
KPROF_NO_SANITIZE void *kprof_dlsym_hook(void *handle, const char *name)
{
    if (KPROF_UNLIKELY(!__atomic_load_n(&kprof_dlsym_next, __ATOMIC_ACQUIRE)))
        kprof_dlsym_find_next();
    /* cu* and __cu* names only; plain character tests: the sanitizers' own early lookups must not reach
     * their (not yet set up) string interceptors. */
    if (!name)
        return NULL;
    const char *n = name[0] == '_' && name[1] == '_' ? name + 2 : name;
    if (n[0] != 'c' || n[1] != 'u')
        return NULL;
    if (handle == RTLD_DEFAULT)
        return default_lookup(name);
    /* Wrappers only for cu* names looked up in a specific library: RTLD_DEFAULT finds libkprof's exported
     * wrappers once CUDA is loaded, and RTLD_NEXT must stay relative to its caller. */
    /* Also inside a runtime wrapper: cudart looks its driver up during its first call, and its driver
     * calls must reach the wrappers (which pass through while a runtime wrapper is counting). */
    if (n != name || handle == RTLD_NEXT || kprof_config.disabled)
        return NULL;
    int known = 0;
    for (int i = 0; i < KPROF_DRIVER_FN_COUNT && !known; i++)
        known = strcmp(name, kprof_driver_fn_names[i]) == 0;
    if (!known)
        return NULL;
    kprof_tls_depth++;
    /* The next dlsym's answer: libcuda's own function, or another interposer's wrapper of it (libkprof's
     * wrapper then calls that one, and both tools see the call). */
    void *real = __atomic_load_n(&kprof_dlsym_next, __ATOMIC_RELAXED)(handle, name);
    const void *w = kprof_driver_wrapper_for(real); /* only the function the chain hands out is wrapped */
    kprof_tls_depth--;
    return (void *)w;
}
