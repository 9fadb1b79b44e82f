/* hook_cupti.c: CUPTI's activity switches, seen on their way to CUPTI, so that libkprof runs no kernel of
 * its own while another tool in the process records kernels (torch.profiler through Kineto, for one). */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include "calibrate.h"
#include "cuda_api.h"
#include "dlsym_next.h"
#include "log.h"

/* From CUPTI's cupti_result.h and cupti_activity.h (CUDA 12 and 13), declared here so that libkprof builds
 * without the CUPTI headers: CUptiResult and CUpti_ActivityKind are enums (ints); the two kinds that record
 * kernels. */
enum {
    CUPTI_OK = 0,
    CUPTI_UNKNOWN = 999,
    KIND_KERNEL = 3,
    KIND_CONCURRENT_KERNEL = 10,
};

/* What is on: bit 0 CUPTI_ACTIVITY_KIND_KERNEL, bit 1 CONCURRENT_KERNEL, for the whole process (CUPTI
 * keeps one switch per kind, so enabling twice needs one disable); bits 2 and up count the contexts with
 * either enabled through cuptiActivityEnableContext.  kprof_kernels_traced is this, nonzero while any is
 * on. */
int kprof_kernels_traced;

static int kind_bit(int kind)
{
    return kind == KIND_KERNEL ? 1 : kind == KIND_CONCURRENT_KERNEL ? 2 : 0;
}

KPROF_EXPORT int cuptiActivityEnable(int kind);
KPROF_EXPORT int cuptiActivityEnableAndDump(int kind);
KPROF_EXPORT int cuptiActivityDisable(int kind);
KPROF_EXPORT int cuptiActivityEnableContext(CUcontext c, int kind);
KPROF_EXPORT int cuptiActivityDisableContext(CUcontext c, int kind);
KPROF_EXPORT int cuptiFinalize(void);

/* Never happens while CUPTI is loaded, and a call can only reach libkprof's export from code linked
 * against CUPTI: said once. */
static void warn_missing(const char *name)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        kprof_warn("cannot find CUPTI's %s (no libcupti loaded?); it answers CUPTI_ERROR_UNKNOWN", name);
}

/* dl_iterate_phdr callback: the path of the first loaded object named libcupti*, copied to data (PATH_MAX
 * bytes); opened after the walk, outside the loader's lock. */
static int find_cupti(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *name = info->dlpi_name ? info->dlpi_name : "", *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libcupti", 8) != 0 || strlen(name) >= PATH_MAX)
        return 0;
    strcpy((char *)data, name);
    return 1;
}

/* CUPTI's function `name`, or NULL.  Not RTLD_NEXT: CUPTI is usually in a local scope (a dependency of a
 * library dlopened without RTLD_GLOBAL, as libtorch's, or of a tool loaded through CUDA_INJECTION64_PATH),
 * which a lookup from libkprof does not search; the loaded libcupti is found by name instead (one per
 * process: its soname, libcupti.so.13, is loaded once). */
static void *cupti_real(void **slot, const char *name, void *mine)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    char path[PATH_MAX] = "";
    void *h = dl_iterate_phdr(find_cupti, path) ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL; /* never closed */
    f = h ? kprof_real_dlsym(h, name) : NULL;
    if (!f || f == mine)
        f = kprof_real_dlsym(RTLD_NEXT, name);
    if (f == mine)
        f = NULL;
    if (f)
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    else
        warn_missing(name);
    return f;
}

#define CUPTI_FORWARD(name, params, args)                                                                      \
    static void *real_##name;                                                                                  \
    static int forward_##name params                                                                           \
    {                                                                                                          \
        int (*f) params = (int (*) params)cupti_real(&real_##name, #name, (void *)name);                       \
        return f ? f args : CUPTI_UNKNOWN;                                                                     \
    }
CUPTI_FORWARD(cuptiActivityEnable, (int kind), (kind))
CUPTI_FORWARD(cuptiActivityEnableAndDump, (int kind), (kind))
CUPTI_FORWARD(cuptiActivityDisable, (int kind), (kind))
CUPTI_FORWARD(cuptiActivityEnableContext, (CUcontext c, int kind), (c, kind))
CUPTI_FORWARD(cuptiActivityDisableContext, (CUcontext c, int kind), (c, kind))
CUPTI_FORWARD(cuptiFinalize, (void), ())

/* CUPTI's answer r to switching `kind` on (on 1) or off process-wide, noted when it is a kernel kind. */
static int noted(int r, int kind, int on)
{
    if (r == CUPTI_OK && kind_bit(kind)) {
        if (on)
            __atomic_fetch_or(&kprof_kernels_traced, kind_bit(kind), __ATOMIC_RELAXED);
        else
            __atomic_fetch_and(&kprof_kernels_traced, ~kind_bit(kind), __ATOMIC_RELAXED);
    }
    return r;
}

/* cuptiActivityEnable, cuptiActivityEnableAndDump, cuptiActivityDisable (CUPTI activity API): CUPTI's
 * answer, unchanged; a kernel kind noted on or off once CUPTI has switched it. */
KPROF_EXPORT int cuptiActivityEnable(int kind)
{
    return noted(forward_cuptiActivityEnable(kind), kind, 1);
}

KPROF_EXPORT int cuptiActivityEnableAndDump(int kind)
{
    return noted(forward_cuptiActivityEnableAndDump(kind), kind, 1);
}

KPROF_EXPORT int cuptiActivityDisable(int kind)
{
    return noted(forward_cuptiActivityDisable(kind), kind, 0);
}

/* cuptiActivityEnableContext / DisableContext: one context's switch; counted (never below 0), not told
 * apart by context: libkprof's own kernels stay off while any context is traced. */
KPROF_EXPORT int cuptiActivityEnableContext(CUcontext c, int kind)
{
    int r = forward_cuptiActivityEnableContext(c, kind);
    if (r == CUPTI_OK && kind_bit(kind))
        __atomic_fetch_add(&kprof_kernels_traced, 4, __ATOMIC_RELAXED);
    return r;
}

KPROF_EXPORT int cuptiActivityDisableContext(CUcontext c, int kind)
{
    int r = forward_cuptiActivityDisableContext(c, kind);
    int cur = __atomic_load_n(&kprof_kernels_traced, __ATOMIC_RELAXED);
    while (r == CUPTI_OK && kind_bit(kind) && cur >= 4 &&
           !__atomic_compare_exchange_n(&kprof_kernels_traced, &cur, cur - 4, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return r;
}

/* cuptiFinalize: CUPTI detaches, every switch off. */
KPROF_EXPORT int cuptiFinalize(void)
{
    int r = forward_cuptiFinalize();
    if (r == CUPTI_OK)
        __atomic_store_n(&kprof_kernels_traced, 0, __ATOMIC_RELAXED);
    return r;
}
