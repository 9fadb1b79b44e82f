/* instance.c: the mark of a copy of libkprof in the process, and telling copies apart. */
#include <dlfcn.h>
#include "config.h"
#include "log.h"
#include "dlsym_next.h"
#include "instance.h"

/* The one export that is not a CUDA entry point or dlsym: the mark of a copy of libkprof in the process.
 * A second copy (another file) finds the first one's with dlsym(RTLD_DEFAULT) and stays out of the way
 * (kprof_init), and libkprof's dlsym tells any copy's exports apart with it (kprof_is_libkprof). */
/* In a section of its own: AddressSanitizer leaves it alone (two copies' exported markers would be an
 * ODR violation to it, and it would export an __odr_asan symbol besides). */
__attribute__((section(".rodata.kprof_marker"))) static const char instance_marker[] =
    "libkprof " PACKAGE_VERSION;
/* The exported name; this copy's own marker is instance_marker (a reference to the exported name would
 * bind to the first copy's). */
extern const char kprof_instance_marker[sizeof instance_marker]
    __attribute__((alias("instance_marker"), visibility("default")));

int kprof_is_libkprof(const void *p)
{
    static void *self_base;
    Dl_info info;
    void *self = __atomic_load_n(&self_base, __ATOMIC_RELAXED);
    if (!self && dladdr(instance_marker, &info))
        __atomic_store_n(&self_base, self = info.dli_fbase, __ATOMIC_RELAXED);
    if (!p || !dladdr(p, &info))
        return 0;
    if (info.dli_fbase == self)
        return 1;
    /* Another object: does it export the marker?  (Not the main program, whose scope is global.) */
    if (!info.dli_fname || !info.dli_fname[0])
        return 0;
    void *base = info.dli_fbase;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    const char *m = kprof_real_dlsym(h, "kprof_instance_marker");
    int copy = m && dladdr(m, &info) && info.dli_fbase == base;
    dlclose(h); /* NOLOAD took a reference; the object stays loaded by whoever loaded it */
    return copy;
}

/* 1 (after one warning) when another copy of libkprof comes before this one in the lookup order: the
 * program calls that copy's functions, which then reach this one's, and both would report. */
int kprof_another_copy_first(void)
{
    const char *m = kprof_real_dlsym(RTLD_DEFAULT, "kprof_instance_marker");
    if (!m || m == instance_marker)
        return 0;
    Dl_info other, self;
    kprof_warn("another copy of libkprof is loaded first (%s); this one (%s) stays disabled and passes "
               "every call through",
               dladdr(m, &other) && other.dli_fname ? other.dli_fname : "?",
               dladdr(instance_marker, &self) && self.dli_fname ? self.dli_fname : "?");
    return 1;
}
