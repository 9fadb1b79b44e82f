/* tls_sets.h: per-thread caches keyed by a kernel's launch handle (kernels.h, preload.h): the set a key
 * falls in; and per-thread blocks, handed on at thread exit (tls_sets.c), which hold those caches and the
 * API table's per-thread counts (agg/apitable.c). */
#ifndef KPROF_TLS_SETS_H
#define KPROF_TLS_SETS_H

#include <stddef.h>
#include <stdint.h>

/* The per-thread caches in front of the kernel map (kernels.c) and of the kernels made ready (preload.c)
 * are keyed by a launch handle (a host function, a cudaKernel_t, a CUfunction or a CUkernel): each holds
 * KPROF_TLS_SETS sets of two entries, a key's set taken from its address bits, and a key new to its set
 * evicts the older of the two.  A model's step launches tens to hundreds of kernels in turn (the eager
 * decode loop of tests/gpu/decode_loop.py 42, 24 of them every token): with 16 entries, one a set, most of
 * its launches missed both caches and took their maps' locks, about 0.4 us a launch on the H200
 * (docs/performance.md, "Per-thread caches for many kernels").  At 6 KiB each they live on the heap, a
 * thread's taken at its first miss (kprof_tls_block): in static TLS they would not fit where libkprof is
 * loaded by dlopen (tests/secure-execution-reads-no-settings.sh), whose static TLS must fit the space
 * glibc keeps spare. */
#define KPROF_TLS_SETS 128

/* The set of `key` (0 to KPROF_TLS_SETS - 1).  Handles are at least 16 bytes apart. */
static inline unsigned kprof_tls_set(const void *key)
{
    uintptr_t a = (uintptr_t)key;
    return (unsigned)((a >> 4) ^ (a >> 11)) % KPROF_TLS_SETS;
}

/* The blocks of one kind of per-thread data: `size` bytes each (zeroed when first made), listed in `list`
 * (never freed).  Define one per kind, e.g. `static struct kprof_tls_blocks b = { sizeof(struct x) };`. */
struct kprof_tls_blocks {
    size_t size;
    struct tls_block *list;
};

/* This thread's block of `kind` in *slot (a __thread pointer of the calling thread): when *slot is NULL, a
 * block of that kind no thread holds (another thread's, given back at its exit: a cache's entries hold
 * for any thread) or a new one, zeroed.  At the thread's exit (a thread-specific key's destructor) its
 * blocks are given back and its slots set to NULL; a call after that, from another destructor, gets none.
 * The blocks are never freed, so their number is that of the threads holding them at once, and a fork
 * child keeps its parent's other threads' blocks held (reachable, not leaked).  NULL when none can be had
 * (out of memory, no thread-specific key left, more than 4 slots on one thread, the thread exiting): the
 * caller goes on without.  Per thread; lock-free. */
void *kprof_tls_block(struct kprof_tls_blocks *kind, void **slot);

/* The blocks of `kind` made so far, held or not, in turn, for readers that sum what every thread wrote:
 * kprof_tls_blocks_next(kind, NULL) is the newest, then kprof_tls_blocks_next(kind, data) the one made
 * before `data`; NULL after the last.  Lock-free. */
void *kprof_tls_blocks_next(struct kprof_tls_blocks *kind, void *data);

#endif
