/* kernels.h: the kernel table (kernels.c): find a launch's kernel, count and time its launches, snapshot. */
#ifndef KPROF_KERNELS_H
#define KPROF_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "kernel.h"
#include "kprof_config.h"
#include "sample.h"
#include "tls_sets.h"

/* A per-thread cache in front of the launch-key map (kernels.c), looked up inline: KPROF_TLS_SETS sets of
 * two entries (tls_sets.h), in a block of this thread's made at its first miss.  An entry holds while its
 * epoch is kprof_names_epoch (bumped when code is unloaded). */
struct kprof_kernel_slot { const void *key; struct kprof_kernel *k; unsigned epoch; };
struct kprof_kernel_cache { struct kprof_kernel_slot set[KPROF_TLS_SETS][2]; };
extern __thread void *kprof_tls_kernels __attribute__((tls_model("initial-exec"))); /* struct kprof_kernel_cache */
extern unsigned kprof_names_epoch;
/* key's aggregate from this thread's cache, or NULL when it is not there (key NULL included). */
static inline struct kprof_kernel *kprof_kernel_cached(const void *key)
{
    const struct kprof_kernel_cache *c = kprof_tls_kernels;
    if (KPROF_UNLIKELY(c == NULL))
        return NULL;
    const struct kprof_kernel_slot *s = c->set[kprof_tls_set(key)];
    unsigned epoch = __atomic_load_n(&kprof_names_epoch, __ATOMIC_RELAXED);
    if (KPROF_LIKELY(s[0].key == key && key && s[0].epoch == epoch))
        return s[0].k;
    if (s[1].key == key && key && s[1].epoch == epoch)
        return s[1].k;
    return NULL;
}

/* Finds or creates the aggregate for a kernel launched through `key` (a cudaKernel_t or a host stub).
 * The name comes from registration, then the driver, then cudaFuncGetName.  Thread-safe; the returned
 * pointer stays valid for the life of the process.  The _slow function does it without the cache's
 * inline look-up. */
struct kprof_kernel *kprof_kernel_for_slow(const void *key);
static inline struct kprof_kernel *kprof_kernel_for(const void *key)
{
    struct kprof_kernel *k = kprof_kernel_cached(key);
    return KPROF_LIKELY(k != NULL) ? k : kprof_kernel_for_slow(key);
}

/* The same for a kernel launched through the driver API: named by cuFuncGetName/cuKernelGetName (the
 * name copied at once: a module can be unloaded later). */
struct kprof_kernel *kprof_kernel_for_function_slow(CUfunction f);
static inline struct kprof_kernel *kprof_kernel_for_function(CUfunction f)
{
    struct kprof_kernel *k = kprof_kernel_cached(f);
    return KPROF_LIKELY(k != NULL) ? k : kprof_kernel_for_function_slow(f);
}
/* The same for a CUkernel handle known to be one (a graph kernel node's `kern`): named by cuKernelGetName
 * first, so that no cuFuncGetName is asked about it and fails. */
struct kprof_kernel *kprof_kernel_for_kernel(CUkernel k);

/* KPROF_GROUP=shape: the entry of kernel k for one launch shape, created on first use.  Thread-safe. */
struct kprof_kernel *kprof_kernel_shaped(struct kprof_kernel *k, const unsigned grid[3], const unsigned block[3]);

/* The entry a launch of k with this shape counts in: k itself, or its shape's entry under
 * KPROF_GROUP=shape.  NULL stays NULL. */
static inline struct kprof_kernel *kprof_kernel_select(struct kprof_kernel *k, dim3 grid, dim3 block)
{
    if (!k || kprof_config.group != KPROF_GROUP_SHAPE)
        return k;
    unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };
    return kprof_kernel_shaped(k, g, b);
}

/* Counts one launch made while its stream was capturing (it runs only when the graph is launched).
 * Thread-safe, lock-free. */
void kprof_kernel_captured(struct kprof_kernel *k);

/* A module or library was unloaded (cuModuleUnload, cuLibraryUnload): its kernel handles may be reused for
 * other kernels, so the launch keys are forgotten (the kernels' aggregates stay) and named again at their
 * next launch.  Thread-safe. */
void kprof_names_code_unloaded(void);

/* Name registry fed by __cudaRegisterFunction and __cudaGetKernel.  Thread-safe; strings are copied. */
void kprof_names_register(const void *host_stub, const char *mangled);
void kprof_names_bind(const void *kernel_handle, const void *host_stub);

/* Counts one successful launch of k with its shape; returns 1 if it was the kernel's first.  Thread-safe,
 * lock-free. */
int kprof_kernel_count(struct kprof_kernel *k, dim3 grid, dim3 block);

/* Notes the shape of a launch of k (informational: the last one wins; a KPROF_GROUP=shape entry's shape is
 * its key).  Stores only a shape that differs from the one noted, so that threads launching k alike only
 * read its cache line.  Relaxed loads and stores: race-free, lock-free. */
static inline void kprof_kernel_shape(struct kprof_kernel *k, dim3 grid, dim3 block)
{
    if (k->parent)
        return;
    if (__atomic_load_n(&k->grid[0], __ATOMIC_RELAXED) == grid.x &&
        __atomic_load_n(&k->grid[1], __ATOMIC_RELAXED) == grid.y &&
        __atomic_load_n(&k->grid[2], __ATOMIC_RELAXED) == grid.z &&
        __atomic_load_n(&k->block[0], __ATOMIC_RELAXED) == block.x &&
        __atomic_load_n(&k->block[1], __ATOMIC_RELAXED) == block.y &&
        __atomic_load_n(&k->block[2], __ATOMIC_RELAXED) == block.z)
        return;
    __atomic_store_n(&k->grid[0], grid.x, __ATOMIC_RELAXED);
    __atomic_store_n(&k->grid[1], grid.y, __ATOMIC_RELAXED);
    __atomic_store_n(&k->grid[2], grid.z, __ATOMIC_RELAXED);
    __atomic_store_n(&k->block[0], block.x, __ATOMIC_RELAXED);
    __atomic_store_n(&k->block[1], block.y, __ATOMIC_RELAXED);
    __atomic_store_n(&k->block[2], block.z, __ATOMIC_RELAXED);
}

/* A launch KPROF_SAMPLE left untimed (kprof_launch_want) is counted without an atomic add on a counter
 * that other launching threads share: its number in the thread's shard of k->seq counts it, and the
 * statistics add the untimed numbers to calls when they are read (kprof_kernels_snapshot), less those of
 * untimed launches that failed or were captured, which the launch reports here (KPROF_SAMPLE=auto, whose
 * numbers do not say which were timed: each that succeeded counted here, in the shard's untimed).  Its
 * shape is noted only while the kernel has none (kprof_kernel_shape: the last timed launch's, but a
 * kernel whose timed launches all failed would have none: a grid of 0 launches nothing).  After
 * kprof_sample_this for the same launch.  Thread-safe, lock-free. */
static inline __attribute__((always_inline)) void
kprof_kernel_untimed_done(struct kprof_kernel *k, int counted, dim3 grid, dim3 block)
{
    if (kprof_config.sample == 0) { /* auto: its numbers say nothing of which were timed: counted here */
        if (counted)
            __atomic_fetch_add(&k->seq[kprof_tls_seq_shard - 1].untimed, 1, __ATOMIC_RELAXED);
    } else if (!counted)
        __atomic_fetch_add(&k->untimed_lost, 1, __ATOMIC_RELAXED);
    if (counted && KPROF_UNLIKELY(__atomic_load_n(&k->grid[0], __ATOMIC_RELAXED) == 0))
        kprof_kernel_shape(k, grid, block);
}
/* Adds one timed launch of kernel s->target, as the harvester read it, to its aggregate under one taking
 * of the kernels' times lock: its GPU duration (s->dur_ns; KPROF_TARGET_KERNEL_FIRST: its first launch),
 * its weight s->weight (1/p, the launch's odds of being timed under KPROF_SAMPLE=auto, else 1) in the
 * total's estimate, and, when known (has_split, has_queue), its launch call's host time and queue time
 * counted s->weight times in units of 1/KPROF_SPLIT_UNITS launch, so that their percentiles describe
 * every launch and not the start of the run that auto times most of.  Thread-safe. */
void kprof_kernel_add_sample(const struct kprof_sample *s);
/* Adds ns (< 0 too; totals stay >= 0) to k's time after its first launch (kprof_sample's adjust). */
void kprof_kernel_adjust(struct kprof_kernel *k, double ns);

/* Zeroes k's figures (counts, times, histogram), keeping its name, shape and launch keys: a forked child's
 * fresh start (names registered by the parent's modules stay valid in the child).  Not thread-safe: from
 * a fork child handler. */
void kprof_kernel_reset(struct kprof_kernel *k);

/* Demangles a kernel name with the C++ runtime's __cxa_demangle (looked up at run time); returns a
 * malloc'd string the caller frees (a copy of `mangled` when it is not a C++ name, cannot be demangled or
 * is over 64 KiB), or NULL when out of memory.  Names over 32 bytes are demangled on a short-lived
 * libkprof thread with a 16 MiB stack (the caller waits), so a thread with a small stack never overflows
 * it.  Thread-safe; call it without libkprof's locks held. */
char *kprof_demangle(const char *mangled);

/* The kernels' part of the report's snapshot (kprof_kernels_snapshot): arrays owned by the caller. */
struct kprof_kernels_part {
    struct kprof_kernel **kernels;   /* sorted by total_ns, descending (kprof_kernels_sort) */
    size_t nkernels;
    struct kprof_kernel **captured;  /* kernels launched while capturing, by count */
    size_t ncaptured;
    size_t nfiltered;                /* kernels KPROF_INCLUDE/KPROF_EXCLUDE left out */
    uint64_t kernel_total_ns;
};
/* Fills *p (zeroed by the caller).  After the drain; thread-safe. */
void kprof_kernels_snapshot(struct kprof_kernels_part *p);
/* Releases p's arrays (the kernels themselves live as long as the process). */
void kprof_kernels_part_free(struct kprof_kernels_part *p);

/* Sorts v[0 .. n - 1] in the report's order: by total time (graph replays included), then calls, both
 * descending, then mangled name; or, with by_captured, by launches made while capturing, then mangled name.
 * Each kernel's counts are read once before the sort (launches still under way may move them, and a sort
 * whose comparisons change their answers is undefined); with no memory for those, v is left unsorted.
 * Thread-safe (atomic reads). */
void kprof_kernels_sort(struct kprof_kernel **v, size_t n, int by_captured);

#endif
