/* kernel.h: one kernel's aggregate (struct kprof_kernel) and the figures read from it. */
#ifndef KPROF_KERNEL_H
#define KPROF_KERNEL_H

#include <math.h>
#include <stdint.h>
#include "kprof_hash.h"
#include "histogram.h"
#include "sampling.h"

#define KPROF_KERNEL_HOLD_SHAPES 24

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
    uint64_t steady_ns, min_ns, max_ns; /* over the timed launches after the first, but those below */
    /* The same over the launches read with a learned offset (KPROF_HOLD=N's launches not drawn, timing/offsets.c):
     * such a launch's own reading is its mean's, not its own length, so Min and Max are the launches measured
     * in full where there is one (kprof_kernel_steady). */
    uint64_t offset_min_ns, offset_max_ns;
    double mean_ns, m2;        /* Welford running mean and sum of squares, launches after the first */
    double adjust_rest;        /* what kprof_kernel_adjust has taken but not yet added to total_ns and
                                * steady_ns, which take whole ns: within half a ns of 0, or below 0 by
                                * what they could not take without going below 0 */
    /* KPROF_SAMPLE=auto: over the timed launches after the first, the sums of w, w x and w x^2 (w = 1/p, a
     * launch's odds of being timed: x in ns), so that Avg and StdDev describe every launch and not the
     * start of the run that auto times most of; 0 otherwise (then hist counts each launch once, else
     * w x KPROF_SPLIT_UNITS times) */
    double w_sum, wx_sum, wxx_sum;
    struct kprof_hist hist;    /* durations of the launches after the first, for percentiles */
    /* KPROF_HOLD=N: the same of the launches after the first measured in full, each counted as the launches
     * it stands for (2^thin, struct kprof_sample), in KPROF_SPLIT_UNITS of a launch: the percentiles and
     * median once some launch was read with a learned offset (offset_min_ns), whose reading is right on
     * average but is not its own length */
    struct kprof_hist full_hist;
    /* The same launches' sums of w, w x and w x^2 (w the launches each stands for, x in ns): their standard
     * deviation is the StdDev then (kprof_kernel_m2) */
    double full_w, full_wx, full_wxx;
    unsigned grid[3], block[3];/* launch shape: the group's (KPROF_GROUP=shape) or the last one seen */
    struct kprof_kernel *shapes; /* KPROF_GROUP=shape: one entry per launch shape (uthash by shape) */
    struct kprof_kernel *parent;
    unsigned shape_key[6];
    uint64_t captured;         /* launches made while their stream was capturing into a graph (atomic) */
    uint64_t graph_calls;      /* of calls, those run as kernel nodes of graph launches (atomic): timed with
                                * their graph, not here */
    int in_conditional;        /* a kernel node of a conditional graph body: launches there are unknown */
    /* KPROF_SAMPLE=N and auto: the launches offered for timing so far, counted per launching thread's
     * shard (kprof_sample_this), and auto's untimed ones: each shard on a cache line of its own, so that
     * threads launching one kernel share no counter (an atomic add that 4 launching threads shared cost
     * each launch about 0.1 us on an H100).  seq_gap keeps the first shard's line apart from the fields
     * before it. */
    char seq_gap[KPROF_CACHE_LINE];
    struct kprof_seq_shard seq[KPROF_SEQ_SHARDS];
    int seq_first_drawn;       /* 1 once some shard has drawn number 0: the kernel's first launch (atomic) */
    unsigned seq_shards_used;  /* KPROF_SAMPLE=auto: bit i set once shard i has counted a launch (atomic) */
    struct kprof_sampling sampling; /* KPROF_SAMPLE=auto */
    int estimated;             /* in a snapshot (auto) or a saved report (any sampling): est_* hold the
                                * total's estimate and the half-width of its 95% interval, ns */
    double est_total_ns, est_ci95_ns;
    int checked;               /* in a snapshot, KPROF_AUTO_CHECK=1: check_* hold what KPROF_SAMPLE=auto would
                                * have estimated (total and 95% half-width, ns) from the launches it would
                                * have timed (check_timed of them), every launch having been timed */
    double check_total_ns, check_ci95_ns;
    uint64_t check_timed;
    uint64_t untimed_lost;     /* of them, launches left untimed that failed or were captured (atomic) */
    uint64_t folded;           /* untimed launches already added to calls (the kernels' times lock) */
    int is_graph;              /* a graphs-table row: a graph exec, its launches timed as one pair */
    /* The size of its parameter block (bytes; cuFuncGetParamInfo), 0 while unknown: the GPU takes the
     * parameters in after the event before the kernel, so its pairs hold more hand-off the larger it is
     * (calibrate.h, param_ns_per_kib).  Set on the kernel's own entry (not a KPROF_GROUP=shape entry's)
     * at its first launch in a context (kprof_preload; atomic). */
    unsigned param_bytes;
    int param_count;           /* its parameters, from its demangled name (kprof_kernel_param_count); -1: unknown */
    /* Host versus device time (kprof_kernel_split): over the timed launches, the launch calls' host times
     * and the queue times from each call's start to its kernel's start, in ns (the kernels' times lock). */
    struct kprof_hist launch_hist, queue_hist;
    /* KPROF_HOLD=N: per launch shape and situation, a word counting its draws, the shared count of the
     * shapes past them and the flag that stops thinning (kprof_hold_drawn, kprof_hold_stop_thinning; atomic) */
    uint64_t hold_shapes[KPROF_KERNEL_HOLD_SHAPES + 2];
    /* KPROF_HOLD=N, per kind of hold (enum kprof_offset_kind's HELD, HELD_KERNEL): the kernel's launch
     * shapes whose references' mean is not yet known closely (timing/offsets.c, BLIND_REL_SE; harvest
     * passes only), and 1 once it has some and none of them is (atomic): its launches not drawn due that
     * kind of hold may then leave out the question whether their stream was idle (timing.c, timing_end). */
    unsigned blind_unsure[2];
    unsigned char blind_ok[2];
    /* Per draw word of hold_shapes (a shape in one situation, hold.h), as blind_unsure and blind_ok for
     * the kernel: its entries (one a context) whose references' mean is not yet known closely (harvest
     * passes only), and 1 once it has some and none of them is (atomic): its launches not drawn then read
     * blind even while another shape of the kernel does not. */
    unsigned hold_unsure[KPROF_KERNEL_HOLD_SHAPES];
    unsigned char hold_sure[KPROF_KERNEL_HOLD_SHAPES];
    /* Harvest passes only (timing/harvest.c, idle_stop_mean): the launches after the first read as usual,
     * their count and sum (ns), and their launch shape; mixed once a second shape was read. */
    uint64_t usual_n;
    double usual_sum_ns;
    unsigned usual_shape[6];
    int usual_mixed;
    UT_hash_handle hh;         /* by mangled name, or by shape among a parent's shapes */
};

/* A kernel's shortest and longest timed launch after the first (ns): of those measured in full, or, when
 * every one was read with a learned offset, of those (KPROF_HOLD=N). */
static inline void kprof_kernel_min_max(const struct kprof_kernel *k, uint64_t *min, uint64_t *max)
{
    int full = k->min_ns != UINT64_MAX;
    *min = full ? k->min_ns : k->offset_min_ns;
    *max = full ? k->max_ns : k->offset_max_ns;
}

/* A kernel's average, minimum and maximum GPU time in ns, over its timed launches after the first, or
 * over the first alone when it is the only one timed.  Returns 0 when no launch was timed. */
static inline int kprof_kernel_steady(const struct kprof_kernel *k, double *avg, uint64_t *min, uint64_t *max)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (n > 0) {
        *avg = k->w_sum > 0.0 ? k->wx_sum / k->w_sum : (double)k->steady_ns / (double)n;
        kprof_kernel_min_max(k, min, max);
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
/* The sum of squares (ns^2) of the launches after the first about their mean, as Welford's m2: k->m2, or
 * once some launch was read with a learned offset (KPROF_HOLD=N), whose reading is right on average but
 * not its own length, that of the launches measured in full, each weighing the launches it stands for,
 * scaled to the launches after the first: StdDev then describes the same launches as Min, Max and the
 * percentiles (a new-user helper read StdDev 0.341 us beside Min = Max = 1.000).  The JSON report's
 * steady_m2 (kprof report reads it back into m2, with no full_w). */
static inline double kprof_kernel_m2(const struct kprof_kernel *k)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (k->offset_min_ns == UINT64_MAX || k->full_w <= 1.0 || n < 2)
        return k->m2;
    double var = (k->full_wxx - k->full_wx * k->full_wx / k->full_w) / (k->full_w - 1.0);
    return var > 0.0 ? var * (double)(n - 1) : 0.0;
}
/* The timed launches' own spread (unweighted) after the first, a variance (ns^2): the floor of auto's
 * interval (kprof_sample_estimate) and its warm-up (kprof_sample_warmup). */
static inline double kprof_kernel_var_timed(const struct kprof_kernel *k)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    return n > 1 ? kprof_kernel_m2(k) / (double)(n - 1) : 0.0;
}
/* Its square root, ns. */
static inline double kprof_kernel_stddev_timed(const struct kprof_kernel *k)
{
    return sqrt(kprof_kernel_var_timed(k));
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

/* A kernel's launches: k->calls read with an atomic load (launches still under way add to it while the
 * report reads it, e.g. detached threads at exit). */
static inline uint64_t kprof_kernel_calls(const struct kprof_kernel *k)
{
    return __atomic_load_n(&k->calls, __ATOMIC_RELAXED);
}

/* A kernel's graph launches (k->graph_calls, atomic load as kprof_kernel_calls). */
static inline uint64_t kprof_kernel_graph_calls(const struct kprof_kernel *k)
{
    return __atomic_load_n(&k->graph_calls, __ATOMIC_RELAXED);
}

/* Whether some launch of k was seen inside a conditional graph body (atomic load as kprof_kernel_calls). */
static inline int kprof_kernel_in_conditional(const struct kprof_kernel *k)
{
    return __atomic_load_n(&k->in_conditional, __ATOMIC_RELAXED);
}

/* k's launches into a capturing stream (k->captured, atomic load as kprof_kernel_calls). */
static inline uint64_t kprof_kernel_captures(const struct kprof_kernel *k)
{
    return __atomic_load_n(&k->captured, __ATOMIC_RELAXED);
}

/* A kernel's launches outside graphs: the ones that can be timed one by one. */
static inline uint64_t kprof_kernel_direct(const struct kprof_kernel *k)
{
    uint64_t calls = kprof_kernel_calls(k), graph = kprof_kernel_graph_calls(k);
    return calls > graph ? calls - graph : 0;
}

/* A kernel's total GPU time in ns over its launches outside graphs (a graph's kernels are timed with their
 * graph, in the graphs table): measured when every such launch was timed, else (KPROF_SAMPLE=N) estimated
 * from the timed ones: measured total x direct launches / timed; KPROF_SAMPLE=auto: the snapshot's
 * estimate (kernels.c). */
static inline uint64_t kprof_kernel_total(const struct kprof_kernel *k)
{
    if (k->estimated)
        return (uint64_t)(k->est_total_ns + 0.5);
    /* Atomic loads: the harvester stores both (under the kernels' times lock) while reports read them. */
    uint64_t direct = kprof_kernel_direct(k), timed = __atomic_load_n(&k->timed, __ATOMIC_RELAXED),
             total = __atomic_load_n(&k->total_ns, __ATOMIC_RELAXED);
    if (timed == 0 || timed >= direct)
        return total;
    return (uint64_t)((double)total * (double)direct / (double)timed + 0.5);
}

/* KPROF_AUTO_CHECK=1, in a snapshot: 1 when k has auto's estimate beside its measured total and auto would
 * have left some of its launches untimed (the kernels whose totals auto would have estimated). */
static inline int kprof_kernel_checked(const struct kprof_kernel *k)
{
    return k->checked && k->check_timed < kprof_kernel_direct(k);
}

/* KPROF_AUTO_CHECK=1: 1 when k's measured total (every launch timed) lies inside the 95% interval of auto's
 * estimate, check_total_ns +- check_ci95_ns. */
static inline int kprof_kernel_check_inside(const struct kprof_kernel *k)
{
    double d = (double)kprof_kernel_total(k) - k->check_total_ns;
    return (d < 0.0 ? -d : d) <= k->check_ci95_ns + 0.5; /* the total is rounded to a whole ns */
}

/* k's own entry (a KPROF_GROUP=shape entry's parent), where its parameter block is kept; NULL for NULL. */
static inline struct kprof_kernel *kprof_kernel_root(struct kprof_kernel *k)
{
    return k && k->parent ? k->parent : k;
}

/* k's parameter block size (bytes; 0: unknown), kept on its own entry (kprof_kernel_root).  Thread-safe. */
static inline unsigned kprof_kernel_param_bytes(const struct kprof_kernel *k)
{
    return __atomic_load_n(&(k->parent ? k->parent : k)->param_bytes, __ATOMIC_RELAXED);
}

#endif
