/* kprof_hash.h: uthash as libkprof uses it. */
#ifndef KPROF_HASH_H
#define KPROF_HASH_H

/* uthash tables never abort the app on out-of-memory: the entry is just not added. */
#define HASH_NONFATAL_OOM 1
#include <stdint.h>
#include <stdlib.h>
#include <uthash.h>

/* splitmix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
 * the draws of KPROF_SAMPLE=auto and of KPROF_HOLD=N. */
static inline uint64_t kprof_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Empties the table `head` (entries linked by their `hh` handle), freeing each entry with free(). */
#define KPROF_HASH_FREE_ALL(head)                                                                  \
    do {                                                                                           \
        __typeof__(head) e_, t_;                                                                   \
        HASH_ITER(hh, head, e_, t_) {                                                              \
            HASH_DEL(head, e_);                                                                    \
            free(e_);                                                                              \
        }                                                                                          \
    } while (0)

#endif
