/* resolve.h: the real CUDA runtime functions behind libkprof's runtime wrappers (resolve.c). */
#ifndef KPROF_RESOLVE_H
#define KPROF_RESOLVE_H

#include "cuda_api.h"

/* The real runtime functions: KPROF_RT and KPROF_RTUSE entries of api.def, found lazily with
 * dlsym(RTLD_NEXT) because a program may load libcudart after libkprof (Python does). */
struct kprof_runtime {
#define KPROF_RT(name, proto, cls) __typeof__(proto) *name;
#define KPROF_RTUSE(name) __typeof__(name) *name;
#include "api.def"
};
extern struct kprof_runtime kprof_rt;

/* Looks `name` up with dlsym(RTLD_NEXT) and stores it in *slot; returns it, or NULL (after one warning)
 * when no later library defines it.  Thread-safe and idempotent. */
void *kprof_rt_resolve(void **slot, const char *name);

/* The real function behind a wrapper: one predictable branch once resolved. */
#define KPROF_REAL(name)                                                                           \
    (__atomic_load_n(&kprof_rt.name, __ATOMIC_ACQUIRE)                                             \
         ? kprof_rt.name                                                                           \
         : (__typeof__(kprof_rt.name))kprof_rt_resolve((void **)&kprof_rt.name, #name))

#endif
