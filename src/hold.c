/* hold.c: placing and releasing holds (hold.h). */
#include "hold.h"
#include "resolve.h"
#include "kprof_config.h"
#include "kprof_hash.h"

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

/* The count of shape `key` in shapes[0..n), before this launch; when no word is left for it, the count of
 * all such launches (shapes[n]) from KPROF_HOLD_FIRST on, so that each is drawn afresh (*shared set). */
static uint32_t shape_count(uint64_t *shapes, unsigned n, uint32_t key, int *shared, int *word)
{
    *shared = 0;
    for (unsigned i = 0; i < n; i++) {
        *word = (int)i;
        uint64_t w = __atomic_load_n(&shapes[i], __ATOMIC_RELAXED);
        if (w == 0) {
            uint64_t mine = (uint64_t)key << 32;
            if (__atomic_compare_exchange_n(&shapes[i], &w, mine + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                return 0;
            /* another launch claimed it first: w is its word now */
        }
        if ((uint32_t)(w >> 32) != key)
            continue;
        uint32_t count = (uint32_t)w;
        if (count < 1u << 31) /* never carried into the key */
            count = (uint32_t)__atomic_fetch_add(&shapes[i], 1, __ATOMIC_RELAXED);
        return count;
    }
    *word = -1;
    *shared = 1;
    return (uint32_t)(KPROF_HOLD_FIRST + __atomic_fetch_add(&shapes[n], 1, __ATOMIC_RELAXED) % (1u << 31));
}

int kprof_hold_word_of(const uint64_t *shapes, unsigned n, uint32_t key)
{
    key |= 1; /* as kprof_hold_drawn stores it */
    for (unsigned i = 0; i < n; i++) {
        uint64_t w = __atomic_load_n(&shapes[i], __ATOMIC_RELAXED);
        if (w == 0)
            return -1; /* claimed in turn: none after a free one */
        if ((uint32_t)(w >> 32) == key)
            return (int)i;
    }
    return -1;
}

void kprof_hold_stop_thinning(uint64_t *shapes, unsigned n)
{
    __atomic_store_n(&shapes[n + 1], 1, __ATOMIC_RELAXED);
}

int kprof_hold_drawn(uint64_t *shapes, unsigned n, uint32_t key, unsigned char *thin, int *word)
{
    *thin = 0;
    *word = -1;
    if (!shapes || !kprof_hold_sampled())
        return 1;
    key |= 1; /* never 0, the mark of a free word */
    int shared;
    uint32_t count = shape_count(shapes, n, key, &shared, word);
    if (count < KPROF_HOLD_FIRST)
        return 2;
    if (!shared && count >= 1u << 31)
        return 0; /* its count no longer moves: the same draw every time, and references enough long since */
    uint64_t every = (uint64_t)kprof_config.hold, full = KPROF_HOLD_THIN_AFTER * every;
    /* Thinned on a shape's own count only (on the shared one, a shape new to it would be drawn at the rate
     * of all the others' launches and get no reference), and not once the kernel's thinning was stopped
     * (lengths that spread too widely for a thinned sample: kprof_hold_stop_thinning). */
    unsigned k = 0;
    if (!shared && !__atomic_load_n(&shapes[n + 1], __ATOMIC_RELAXED))
        while ((uint64_t)count >= full << k) /* count < 2^31: 22 steps at most */
            k++;
    uint64_t h = kprof_mix64((uint64_t)kprof_config.seed ^ kprof_mix64(((uint64_t)key << 32) | count));
    if (h % (every << k) != 0)
        return 0;
    *thin = (unsigned char)k;
    return 1;
}
