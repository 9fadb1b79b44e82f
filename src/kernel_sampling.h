/* kernel_sampling.h: KPROF_SAMPLE for one kernel: whether this launch of it is timed. */
#ifndef KPROF_KERNEL_SAMPLING_H
#define KPROF_KERNEL_SAMPLING_H

#include <stdint.h>
#include "cuda_api.h"
#include "kernel.h"
#include "kprof_config.h"
#include "sampling.h"

/* KPROF_SAMPLE=N: 1 when this launch of k is to be timed (the first, then every Nth); KPROF_SAMPLE=auto:
 * as kprof_sample_auto chooses.  Lock-free. */
static inline int kprof_sample_this(struct kprof_kernel *k)
{
    if (KPROF_LIKELY(kprof_config.sample == 1) || !k)
        return 1;
    if (kprof_config.sample == 0) {
        if (k->is_graph) { /* a replay's time is never extrapolated */
            kprof_tls_sample_weight = 1.0f;
            return 1;
        }
        return kprof_sample_auto(&k->sampling, k->mangled);
    }
    return __atomic_fetch_add(&k->seq, 1, __ATOMIC_RELAXED) % (uint64_t)kprof_config.sample == 0;
}

#endif
