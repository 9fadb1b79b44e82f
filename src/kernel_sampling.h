/* kernel_sampling.h: KPROF_SAMPLE for one kernel (whether this launch of it is timed) and what KPROF_HOLD=N
 * draws by (hold.h). */
#ifndef KPROF_KERNEL_SAMPLING_H
#define KPROF_KERNEL_SAMPLING_H

#include <stdint.h>
#include "cuda_api.h"
#include "hold.h"
#include "kernel.h"
#include "kprof_config.h"
#include "kprof_hash.h"
#include "sampling.h"

/* The shard of k's launch counters this thread counts in (struct kprof_seq_shard; sampling.h). */
static inline __attribute__((always_inline)) struct kprof_seq_shard *
kprof_seq_shard_of(struct kprof_kernel *k)
{
    unsigned shard = kprof_tls_seq_shard;
    if (KPROF_UNLIKELY(shard == 0))
        shard = kprof_seq_shard_assign();
    return &k->seq[shard - 1];
}

/* KPROF_SAMPLE=auto (and KPROF_AUTO_CHECK's draws): kprof_sample_auto for this launch of k.  Its number is
 * j x m, j its number in this thread's shard and m the shards that have counted launches of k: the
 * kernel's launch number as far as the shards keep pace, so that T threads launching one kernel time
 * about as many launches as one thread making them all (with j alone, each thread had a warm-up of its
 * own: T times as many timed launches, 0.14 us a launch more on an H100 with 4 threads).  The odds
 * follow from the number, so the estimate weighs each launch by its own whatever the pace. */
static inline int kprof_sample_auto_this(struct kprof_kernel *k)
{
    struct kprof_seq_shard *sh = kprof_seq_shard_of(k);
    unsigned shard = (unsigned)(sh - k->seq);
    uint64_t j = __atomic_fetch_add(&sh->n, 1, __ATOMIC_RELAXED);
    unsigned used = __atomic_load_n(&k->seq_shards_used, __ATOMIC_RELAXED);
    if (KPROF_UNLIKELY(!(used & (1u << shard))))
        used = __atomic_or_fetch(&k->seq_shards_used, 1u << shard, __ATOMIC_RELAXED);
    return kprof_sample_auto(&k->sampling, k->mangled, j * (uint64_t)__builtin_popcount(used), shard);
}

/* KPROF_SAMPLE=N: 1 when this launch of k is to be timed: the kernel's first (number 0 of the shard that
 * counts it first, reported as First: kprof_tls_sample_first), then numbers N, 2N... of each thread's
 * shard (a shard's number 0 otherwise untimed, so that threads that come and go time no more); auto: as
 * kprof_sample_auto chooses.  KPROF_AUTO_CHECK=1: always 1, with auto's choice made alongside and left in
 * kprof_tls_sample_weight (1/p when auto would have timed the launch, 0 when not).  Lock-free. */
static inline __attribute__((always_inline)) int kprof_sample_this(struct kprof_kernel *k)
{
    if (KPROF_LIKELY(kprof_config.sample == 1) || !k) {
        if (KPROF_UNLIKELY(kprof_config.auto_check) && k)
            kprof_tls_sample_weight = k->is_graph                  ? 1.0f
                                      : kprof_sample_auto_this(k) ? kprof_tls_sample_weight
                                                                   : 0.0f;
        return 1;
    }
    if (kprof_config.sample == 0) {
        if (k->is_graph) { /* a replay's time is never extrapolated */
            kprof_tls_sample_weight = 1.0f;
            return 1;
        }
        return kprof_sample_auto_this(k);
    }
    /* The shard's `due` is read before the number is taken, and every `due` stored is the first multiple of
     * N after the number of the thread that stored it: one whose number was taken after this one's (and
     * whose store this read cannot see: the release and acquire of n's add order them) cannot have passed
     * this number.  So a number below the `due` read is no multiple of N, and only about one launch in N
     * divides (a 64-bit division, 10 to 40 cycles, was on every launch). */
    struct kprof_seq_shard *sh = kprof_seq_shard_of(k);
    uint64_t due = __atomic_load_n(&sh->due, __ATOMIC_RELAXED);
    uint64_t seq = __atomic_fetch_add(&sh->n, 1, __ATOMIC_ACQ_REL);
    if (KPROF_LIKELY(seq < due))
        return 0;
    if (KPROF_UNLIKELY(seq == 0)) { /* timed only as the kernel's first: a thread's own first is not */
        if (__atomic_exchange_n(&k->seq_first_drawn, 1, __ATOMIC_RELAXED))
            return 0;
        kprof_tls_sample_first = k;
        return 1;
    }
    uint64_t rest = seq % (uint64_t)kprof_config.sample;
    __atomic_store_n(&sh->due, seq - rest + (uint64_t)kprof_config.sample, __ATOMIC_RELAXED);
    return rest == 0;
}

/* KPROF_HOLD=N: kernel k's words for its draws (NULL when k is unknown or the draw is off), their number
 * in *n, and in *key the launch's shape, a hash of every bit of grid and block. */
static inline uint64_t *kprof_hold_words(struct kprof_kernel *k, dim3 grid, dim3 block, uint32_t *key, unsigned *n)
{
    *key = 0;
    *n = KPROF_KERNEL_HOLD_SHAPES;
    if (!k || !kprof_hold_sampled())
        return NULL;
    *key = kprof_hold_shape_key(grid.x, grid.y, grid.z, block.x, block.y, block.z);
    return k->hold_shapes;
}

#endif
