/* cuda_api.h: the CUDA headers as libkprof reads them, the API table's runtime declarations, and the
 * attributes every layer uses. */
#ifndef KPROF_CUDA_API_H
#define KPROF_CUDA_API_H

/* cuda.h as NVIDIA's own driver build reads it: every exported version of a function (cuMemAlloc_v2,
 * cuLaunchKernel_ptsz, cuGetProcAddress with 4 arguments...) declared under its own name with its own
 * prototype, and no name remapped by a macro.  libkprof always names the exported function it means. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include "cudart_private.h"

/* Only interposed CUDA entry points are exported; everything else is hidden (-fvisibility=hidden). */
#define KPROF_EXPORT __attribute__((visibility("default")))
#define KPROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define KPROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Every runtime and driver function of the API table is declared with CUDA's own type. */
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) extern __typeof__(proto) name;
#include "api.def"

#endif
