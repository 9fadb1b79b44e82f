/* kernels.h: per-kernel aggregates, their names and launch counts (kernels.c). */
#ifndef KPROF_KERNELS_H
#define KPROF_KERNELS_H

#include <math.h>
#include <stdint.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "histogram.h"
#include "kprof_config.h"
#include "sample.h"
#include "sampling.h"

/* Per-kernel aggregate, one per mangled name; lives until the process exits.  calls is counted on the
 * launching thread; the time fields are updated by the harvester under the kernels' times lock (kernels.c). */
struct kprof_kernel {
    char *mangled;             /* owned */
    char *name;                /* demangled (or as KPROF_NAMES says), owned */
    char *base;                /* KPROF_NAMES=base: the text report's name (kprof_kernel_base_name), owned;
                                * NULL otherwise */
    int selected;              /* 0 when KPROF_INCLUDE/KPROF_EXCLUDE leave it out: passed through */
    uint64_t calls;            /* successful launches (atomic) */
    uint64_t timed;            /* launches with a completed event pair, the first included */
    uint64_t total_ns;         /* GPU time of every timed launch */
    int first_timed;           /* 1 when the first launch was timed; its time is first_ns */
    uint64_t first_ns;
    uint64_t steady_ns, min_ns, max_ns; /* over the timed launches after the first */
    double mean_ns, m2;        /* Welford running mean and sum of squares, launches after the first */
    /* KPROF_SAMPLE=auto: over the timed launches after the first, the sums of w, w x and w x^2 (w = 1/p, a
     * launch's odds of being timed: x in ns), so that Avg and StdDev describe every launch and not the
     * start of the run that auto times most of; 0 otherwise (then hist counts each launch once, else
     * w x KPROF_SPLIT_UNITS times) */
    double w_sum, wx_sum, wxx_sum;
    struct kprof_hist hist;    /* durations of the launches after the first, for percentiles */
    unsigned grid[3], block[3];/* launch shape: the group's (KPROF_GROUP=shape) or the last one seen */
    struct kprof_kernel *shapes; /* KPROF_GROUP=shape: one entry per launch shape (uthash by shape) */
    struct kprof_kernel *parent;
    unsigned shape_key[6];
    uint64_t captured;         /* launches made while their stream was capturing into a graph (atomic) */
    uint64_t graph_calls;      /* of calls, those run as kernel nodes of graph launches (atomic): timed with
                                * their graph, not here */
    int in_conditional;        /* a kernel node of a conditional graph body: launches there are unknown */
    uint64_t seq;              /* KPROF_SAMPLE: launches offered for timing so far (atomic) */
    struct kprof_sampling sampling; /* KPROF_SAMPLE=auto */
    int estimated;             /* in a snapshot (auto) or a saved report (any sampling): est_* hold the
                                * total's estimate and the half-width of its 95% interval, ns */
    double est_total_ns, est_ci95_ns;
    uint64_t untimed_lost;     /* of them, launches left untimed that failed or were captured (atomic) */
    uint64_t folded;           /* untimed launches already added to calls (the kernels' times lock) */
    int is_graph;              /* a graphs-table row: a graph exec, its launches timed as one pair */
    /* Host versus device time (kprof_kernel_split): over the timed launches, the launch calls' host times
     * and the queue times from each call's start to its kernel's start, in ns (the kernels' times lock). */
    struct kprof_hist launch_hist, queue_hist;
    UT_hash_handle hh;         /* by mangled name, or by shape among a parent's shapes */
};

/* KPROF_GROUP=shape: the entry of kernel k for one launch shape, created on first use.  Thread-safe. */
struct kprof_kernel *kprof_kernel_shaped(struct kprof_kernel *k, const unsigned grid[3], const unsigned block[3]);

/* A kernel's average, minimum and maximum GPU time in ns, over its timed launches after the first, or
 * over the first alone when it is the only one timed.  Returns 0 when no launch was timed. */
static inline int kprof_kernel_steady(const struct kprof_kernel *k, double *avg, uint64_t *min, uint64_t *max)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (n > 0) {
        *avg = k->w_sum > 0.0 ? k->wx_sum / k->w_sum : (double)k->steady_ns / (double)n;
        *min = k->min_ns;
        *max = k->max_ns;
        return 1;
    }
    if (k->first_timed) {
        *avg = (double)k->first_ns;
        *min = *max = k->first_ns;
        return 1;
    }
    return 0;
}

/* A kernel's mean GPU time so far (ns), from its timed launches; 0 when none was timed.  Lock-free (a racy
 * read of counters the harvester updates: an estimate for decisions, never reported). */
static inline double kprof_kernel_mean_ns(const struct kprof_kernel *k)
{
    uint64_t n = __atomic_load_n(&k->timed, __ATOMIC_RELAXED);
    uint64_t total = __atomic_load_n(&k->total_ns, __ATOMIC_RELAXED);
    return n ? (double)total / (double)n : 0.0;
}

/* Spread of a kernel's launches after the first: percentile q (0-100) from its histogram (relative
 * error at most KPROF_HIST_REL_ERROR) and the sample standard deviation (from steady_ns's Welford m2, or
 * under KPROF_SAMPLE=auto from the weighed sums), in ns; the first launch alone when it is the only one
 * timed.  The standard deviation is inline so that
 * kprof-report, which links the report writers but not kernel.c, computes it with the same arithmetic. */
uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q);
/* The timed launches' own spread (unweighted), for the floor of auto's interval (kprof_sample_estimate). */
static inline double kprof_kernel_stddev_timed(const struct kprof_kernel *k)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    return n > 1 ? sqrt(k->m2 / (double)(n - 1)) : 0.0;
}
static inline double kprof_kernel_stddev(const struct kprof_kernel *k)
{
    if (k->w_sum <= 0.0)
        return kprof_kernel_stddev_timed(k);
    /* KPROF_SAMPLE=auto: each timed launch stands for w launches */
    double var = k->w_sum > 1.0 && k->timed - (uint64_t)k->first_timed > 1
                     ? (k->wxx_sum - k->wx_sum * k->wx_sum / k->w_sum) / (k->w_sum - 1.0)
                     : 0.0;
    return var > 0.0 ? sqrt(var) : 0.0;
}

/* The split nsys's cuda_kern_exec_sum makes of a kernel's launches, over its timed launches (the first
 * included; under KPROF_SAMPLE=auto each weighing 1/p, kprof_kernel_add_sample): KPROF_SPLIT_LAUNCH, the
 * launch call's host time (CLOCK_MONOTONIC around the real call), or
 * KPROF_SPLIT_QUEUE, the time from the call's start to the kernel's start on the GPU (read on the host
 * clock, docs/accuracy.md).  Returns 1 and sets *ns to percentile q (nearest rank, within
 * KPROF_HIST_REL_ERROR) when at least one launch has it, else 0.  Read after the drain (the report's
 * snapshot); kprof-report answers from the saved report (tools/report-stubs.c). */
enum kprof_split { KPROF_SPLIT_LAUNCH, KPROF_SPLIT_QUEUE };
int kprof_kernel_split(const struct kprof_kernel *k, enum kprof_split which, double q, uint64_t *ns);
/* The host and queue time histograms count a launch of weight w as w x KPROF_SPLIT_UNITS (see
 * kprof_kernel_add_sample). */
#define KPROF_SPLIT_UNITS 16

/* A kernel's figures as nsys's cuda_gpu_kern_sum gives them: over every timed launch, the first included
 * (its measured total_ns, not kprof_kernel_total's estimate); the median from the histogram with the
 * first launch added (kprof_hist_median: within KPROF_HIST_REL_ERROR), 0 when none was timed.  Read
 * after the drain (the report's snapshot), as the other figures are. */
void kprof_kernel_instances(const struct kprof_kernel *k, struct kprof_spread *out);
double kprof_kernel_instances_median(const struct kprof_kernel *k);

/* A small per-thread cache in front of the launch-key map (stats.c), looked up inline: launch loops hit
 * it every time.  An entry holds while its epoch is kprof_names_epoch (bumped when code is unloaded). */
#define KPROF_TLS_KERNELS 16
struct kprof_kernel_slot { const void *key; struct kprof_kernel *k; unsigned epoch; };
extern __thread struct kprof_kernel_slot kprof_tls_kernels[KPROF_TLS_KERNELS] __attribute__((tls_model("initial-exec")));
extern unsigned kprof_names_epoch;
static inline struct kprof_kernel_slot *kprof_kernel_slot(const void *key)
{
    return &kprof_tls_kernels[(((uintptr_t)key >> 4) ^ ((uintptr_t)key >> 12)) % KPROF_TLS_KERNELS];
}

/* Finds or creates the aggregate for a kernel launched through `key` (a cudaKernel_t or a host stub).
 * The name comes from registration, then the driver, then cudaFuncGetName.  Thread-safe; the returned
 * pointer stays valid for the life of the process.  The _slow function does it without the cache's
 * inline look-up. */
struct kprof_kernel *kprof_kernel_for_slow(const void *key);
static inline struct kprof_kernel *kprof_kernel_for(const void *key)
{
    const struct kprof_kernel_slot *s = kprof_kernel_slot(key);
    if (KPROF_LIKELY(s->key == key && key && s->epoch == __atomic_load_n(&kprof_names_epoch, __ATOMIC_RELAXED)))
        return s->k;
    return kprof_kernel_for_slow(key);
}

/* The same for a kernel launched through the driver API: named by cuFuncGetName/cuKernelGetName (the
 * name copied at once: a module can be unloaded later). */
struct kprof_kernel *kprof_kernel_for_function_slow(CUfunction f);
static inline struct kprof_kernel *kprof_kernel_for_function(CUfunction f)
{
    const struct kprof_kernel_slot *s = kprof_kernel_slot(f);
    if (KPROF_LIKELY(s->key == (const void *)f && f && s->epoch == __atomic_load_n(&kprof_names_epoch, __ATOMIC_RELAXED)))
        return s->k;
    return kprof_kernel_for_function_slow(f);
}
/* The same for a CUkernel handle known to be one (a graph kernel node's `kern`): named by cuKernelGetName
 * first, so that no cuFuncGetName is asked about it and fails. */
struct kprof_kernel *kprof_kernel_for_kernel(CUkernel k);

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

/* A kernel's launches outside graphs: the ones that can be timed one by one. */
static inline uint64_t kprof_kernel_direct(const struct kprof_kernel *k)
{
    return k->calls > k->graph_calls ? k->calls - k->graph_calls : 0;
}

/* A kernel's total GPU time in ns over its launches outside graphs (a graph's kernels are timed with their
 * graph, in the graphs table): measured when every such launch was timed, else (KPROF_SAMPLE=N) estimated
 * from the timed ones: measured total x direct launches / timed; KPROF_SAMPLE=auto: the snapshot's
 * estimate (kernels.c). */
static inline uint64_t kprof_kernel_total(const struct kprof_kernel *k)
{
    if (k->estimated)
        return (uint64_t)(k->est_total_ns + 0.5);
    uint64_t direct = kprof_kernel_direct(k);
    if (k->timed == 0 || k->timed >= direct)
        return k->total_ns;
    return (uint64_t)((double)k->total_ns * (double)direct / (double)k->timed + 0.5);
}

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
 * its key).  Relaxed stores: race-free, lock-free. */
static inline void kprof_kernel_shape(struct kprof_kernel *k, dim3 grid, dim3 block)
{
    if (k->parent)
        return;
    __atomic_store_n(&k->grid[0], grid.x, __ATOMIC_RELAXED);
    __atomic_store_n(&k->grid[1], grid.y, __ATOMIC_RELAXED);
    __atomic_store_n(&k->grid[2], grid.z, __ATOMIC_RELAXED);
    __atomic_store_n(&k->block[0], block.x, __ATOMIC_RELAXED);
    __atomic_store_n(&k->block[1], block.y, __ATOMIC_RELAXED);
    __atomic_store_n(&k->block[2], block.z, __ATOMIC_RELAXED);
}

/* A launch KPROF_SAMPLE left untimed (kprof_launch_want) is counted without an atomic add of its own: its
 * number in k->seq counts it, and the statistics add the untimed numbers to calls when they are read
 * (kprof_stats_snapshot), less those of untimed launches that failed or were captured, which the launch
 * reports here (KPROF_SAMPLE=auto: counted at once).  Thread-safe, lock-free. */
static inline void kprof_kernel_untimed_done(struct kprof_kernel *k, int counted, dim3 grid, dim3 block)
{
    if (kprof_config.sample == 0) { /* auto: its numbers are its own (struct kprof_sampling), count here */
        if (counted)
            kprof_kernel_count(k, grid, block);
        return;
    }
    if (counted)
        kprof_kernel_shape(k, grid, block);
    else
        __atomic_fetch_add(&k->untimed_lost, 1, __ATOMIC_RELAXED);
}
/* Adds one timed launch of kernel s->target, as the harvester read it, to its aggregate under one taking
 * of the kernels' times lock: its GPU duration (s->dur_ns; KPROF_TARGET_KERNEL_FIRST: its first launch),
 * its weight s->weight (1/p, the launch's odds of being timed under KPROF_SAMPLE=auto, else 1) in the
 * total's estimate, and, when known (has_split, has_queue), its launch call's host time and queue time
 * counted s->weight times in units of 1/KPROF_SPLIT_UNITS launch, so that their percentiles describe
 * every launch and not the start of the run that auto times most of (kprof_copy_add_time in stats.h
 * does the same for a copy).  Thread-safe. */
void kprof_kernel_add_sample(const struct kprof_sample *s);

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
    struct kprof_kernel **kernels;   /* sorted by total_ns, descending (kprof_kernel_by_total_desc) */
    size_t nkernels;
    struct kprof_kernel **captured;  /* kernels launched while capturing, by count */
    size_t ncaptured;
    size_t nfiltered;                /* kernels KPROF_INCLUDE/KPROF_EXCLUDE left out */
    uint64_t kernel_total_ns;
};
/* Fills *p (zeroed by the caller).  Returns 1 when a kernel was counted.  After the drain; thread-safe. */
int kprof_kernels_snapshot(struct kprof_kernels_part *p);

/* qsort comparator of struct kprof_kernel * by total time (graph replays included), then calls, then
 * mangled name: the report's order. */
int kprof_kernel_by_total_desc(const void *a, const void *b);

#endif
