/* allocs.h: allocations and frees by kind of memory, with the bytes in use (agg/allocs.c). */
#ifndef KPROF_ALLOCS_H
#define KPROF_ALLOCS_H

#include <stddef.h>
#include <stdint.h>
#include "names.h"

/* One kind of memory's figures: allocations and their bytes, frees of known allocations and their bytes,
 * the calls' host time (ns, allocations and frees), and the bytes in use now and at most. */
struct kprof_alloc_stat { uint64_t count, bytes, frees, freed_bytes, host_ns, in_use, peak; };

/* Allocations: counts one of `bytes` at ptr, or a free of ptr (its size looked up from the allocation).
 * host_ns is the call's host time.  Live allocations are remembered so that a free knows its size; a free
 * of a pointer not remembered (NULL, allocated before libkprof or out of memory when it was) counts only
 * its host time.  ctx: the CUDA context (a CUcontext) the allocation belongs to (NULL when not known), for
 * kprof_allocs_context_gone.  Thread-safe (the allocations' lock). */
void kprof_alloc_record(enum kprof_mem kind, void *ptr, size_t bytes, uint64_t host_ns, const void *ctx);
void kprof_free_record(enum kprof_mem kind, void *ptr, uint64_t host_ns);
/* A free of device or managed memory (cuMemFree frees either): managed if ptr is a live managed
 * allocation, else device. */
void kprof_free_record_device(void *ptr, uint64_t host_ns);
/* Context ctx was destroyed (cudaDeviceReset, cuCtxDestroy, the primary context's reset or last release):
 * the memory allocated in it went with it, device, pinned and managed alike, and is no longer in use
 * (nor counted as freed: the app freed nothing).  NULL: nothing.  Thread-safe (the allocations' lock). */
void kprof_allocs_context_gone(const void *ctx);

/* The allocations' part of the report's snapshot: each kind of memory's figures, alloc[kind]. */
struct kprof_allocs_part { struct kprof_alloc_stat alloc[KPROF_MEM_COUNT]; };
/* Fills *p.  Thread-safe (the allocations' lock). */
void kprof_allocs_snapshot(struct kprof_allocs_part *p);
/* Releases nothing: the part owns no memory (for the snapshot's list of parts, snapshot.h). */
static inline void kprof_allocs_part_free(struct kprof_allocs_part *p)
{
    (void)p;
}

#endif
