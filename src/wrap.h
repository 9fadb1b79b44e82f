/* wrap.h: the KPROF_WRAP_* bodies that hook_runtime.c's and hook_driver.c's wrappers share. */
#ifndef KPROF_WRAP_H
#define KPROF_WRAP_H

#include <stdint.h>
#include "call.h"
#include "stats.h"

/* The bodies that runtime (cudaError_t, cudaSuccess) and driver (CUresult, CUDA_SUCCESS) wrappers share:
 * `call` is the real call, evaluated once; the wrapper returns exactly its result. */

/* Host time only (synchronisation, stream creation...). */
#define KPROF_WRAP_HOST(api, type, success, call)                                                  \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        type r_ = (call);                                                                          \
        kprof_call_end(&c_, r_ == (success));                                                      \
        return r_;                                                                                 \
    } while (0)

/* A call whose success is recorded afterwards: `record` runs when it succeeded and `cond` holds, with
 * ns_ its host time (context creation left out). */
#define KPROF_WRAP_RECORD(api, type, success, cond, record, call)                                  \
    do {                                                                                           \
        struct kprof_call c_;                                                                      \
        if (!kprof_call_begin(&c_, (api)))                                                         \
            return (call);                                                                         \
        type r_ = (call);                                                                          \
        uint64_t ns_ = kprof_call_end(&c_, r_ == (success));                                       \
        if (r_ == (success) && (cond))                                                             \
            record;                                                                                \
        (void)ns_;                                                                                 \
        return r_;                                                                                 \
    } while (0)

/* An allocation of `bytes` whose address the call stores at ptrp (kind: enum kprof_mem). */
#define KPROF_WRAP_ALLOC(api, type, success, kind, ptrp, bytes, call)                              \
    KPROF_WRAP_RECORD(api, type, success, (ptrp),                                                  \
                      kprof_alloc_record((kind), (void *)(uintptr_t) * (ptrp), (bytes), ns_), call)

/* A free of ptr: `record` is the statistics call for a successful one (ns_ is its host time). */
#define KPROF_WRAP_FREE(api, type, success, record, ptr, call)                                     \
    KPROF_WRAP_RECORD(api, type, success, (ptr), record, call)

#endif
