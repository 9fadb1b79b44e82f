/* hold.c: placing and releasing holds (hold.h). */
#include "hold.h"
#include "resolve.h"

int kprof_hold_place(const struct kprof_hold *h, CUstream s, unsigned slot, uint32_t seq)
{
    unsigned long long w = (unsigned long long)(h->dwords + (CUdeviceptr)slot * sizeof(uint32_t));
    unsigned long long timeout = KPROF_HOLD_TIMEOUT_NS;
    unsigned int n = seq;
    void *params[] = { &w, &n, &timeout };
    return kprof_drv.cuLaunchKernel(h->gate, 1, 1, 1, 1, 1, 1, 0, s, params, NULL) == CUDA_SUCCESS;
}

void kprof_hold_release(const struct kprof_hold *h, unsigned slot, uint32_t seq)
{
    uint32_t *w = &h->words[slot];
    uint32_t cur = __atomic_load_n(w, __ATOMIC_RELAXED);
    while ((int32_t)(cur - seq) < 0 &&
           !__atomic_compare_exchange_n(w, &cur, seq, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}
