/* hold.c: placing and releasing holds (hold.h). */
#include "hold.h"
#include "clock.h"
#include "driver.h"
#include "fork.h"

static long overdue; /* holds released after kprof_hold gave up */

int kprof_hold_place(struct kprof_hold *h, CUstream s, unsigned slot, uint32_t seq)
{
    unsigned long long w = (unsigned long long)(h->dwords + (CUdeviceptr)slot * sizeof(uint32_t));
    unsigned long long timeout = KPROF_HOLD_TIMEOUT_NS;
    unsigned int n = seq;
    void *params[] = { &w, &n, &timeout };
    __atomic_store_n(&h->placed_ns[slot], kprof_now_ns(), __ATOMIC_RELAXED);
    return kprof_drv.cuLaunchKernel(h->gate, 1, 1, 1, 1, 1, 1, 0, s, params, NULL) == CUDA_SUCCESS;
}

void kprof_hold_release(struct kprof_hold *h, unsigned slot, uint32_t seq)
{
    uint32_t *w = &h->words[slot];
    uint32_t cur = __atomic_load_n(w, __ATOMIC_RELAXED);
    while ((int32_t)(cur - seq) < 0 &&
           !__atomic_compare_exchange_n(w, &cur, seq, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    if (kprof_now_ns() - __atomic_load_n(&h->placed_ns[slot], __ATOMIC_RELAXED) > KPROF_HOLD_TIMEOUT_NS)
        __atomic_add_fetch(&overdue, 1, __ATOMIC_RELAXED);
}

long kprof_holds_overdue(void)
{
    return __atomic_load_n(&overdue, __ATOMIC_RELAXED);
}

static int fork_prepare(void)
{
    return 1;
}

static void fork_parent(void)
{
}

/* The child's counts start afresh, as the other event counters (timing/pool.c). */
static void fork_child(void)
{
    overdue = 0;
}

KPROF_FORK_MODULE(holds, 20, fork_prepare, fork_parent, fork_child)
