/* tls_sets.h: per-thread caches keyed by a kernel's launch handle (kernels.h, preload.h): the set a key
 * falls in, and the per-thread blocks that hold them (tls_sets.c). */
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
 * thread's made at its first miss (kprof_tls_block): in static TLS they would not fit where libkprof is
 * loaded by dlopen (tests/secure-execution-reads-no-settings.sh), whose static TLS must fit the space
 * glibc keeps spare. */
#define KPROF_TLS_SETS 128

/* The set of `key` (0 to KPROF_TLS_SETS - 1).  Handles are at least 16 bytes apart. */
static inline unsigned kprof_tls_set(const void *key)
{
    uintptr_t a = (uintptr_t)key;
    return (unsigned)((a >> 4) ^ (a >> 11)) % KPROF_TLS_SETS;
}

/* This thread's block in *slot (a __thread pointer of the calling thread), made of `size` zeroed bytes if
 * there is none yet; freed when the thread exits (a thread-specific key's destructor), *slot set back to
 * NULL then (a call after that makes it again: the destructor runs again).  NULL when it cannot be made
 * (out of memory, no thread-specific key left, more than 4 slots on one thread): the caller goes on without
 * it.  Per thread, lock-free after the first call in the process. */
void *kprof_tls_block(void **slot, size_t size);

#endif
