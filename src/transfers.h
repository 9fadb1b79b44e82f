/* transfers.h: copies by direction and host memory, and memsets (agg/transfers.c). */
#ifndef KPROF_TRANSFERS_H
#define KPROF_TRANSFERS_H

#include <stddef.h>
#include <stdint.h>
#include "histogram.h"
#include "names.h"

/* Per-direction copy aggregate. */
struct kprof_copy {
    uint64_t count, bytes;     /* successful copies (atomic) */
    uint64_t timed, timed_bytes, total_ns, min_ns, max_ns;
    double mean_ns, m2;        /* Welford running mean and sum of squares of the timed copies' times */
    struct kprof_hist hist;    /* the timed copies' times, for the median; owned (a snapshot's: its own) */
};

/* The aggregate of copies in one direction (`host`: the host side's memory, ignored for DtoD); counts one
 * copy of `bytes`.  The aggregate lives as long as the process.  Thread-safe, lock-free. */
struct kprof_copy *kprof_copy_count(enum kprof_dir dir, enum kprof_host_mem host, size_t bytes);
/* The aggregate of memsets (same shape as a copy's); counts one of `bytes`.  Thread-safe, lock-free. */
struct kprof_copy *kprof_memset_count(size_t bytes);

/* Adds one GPU duration (ns) of a copy of `bytes` to a copy aggregate.  A duration the histogram cannot
 * take for lack of memory is left out of the median only.  Thread-safe (the copies' lock). */
void kprof_copy_add_time(struct kprof_copy *c, uint64_t ns, uint64_t bytes);

/* A copy or memset aggregate's figures as nsys's cuda_gpu_mem_time_sum gives them, over its timed calls;
 * the median from its histogram (kprof_hist_median: within KPROF_HIST_REL_ERROR), 0 when none was timed.
 * Read a snapshot's aggregate (kprof_transfers_snapshot), whose histogram is its own. */
void kprof_copy_instances(const struct kprof_copy *c, struct kprof_spread *out);
double kprof_copy_instances_median(const struct kprof_copy *c);

/* The direction and host memory of a copy aggregate (one kprof_copy_count returned). */
void kprof_copy_describe(const struct kprof_copy *c, enum kprof_dir *dir, enum kprof_host_mem *host);
/* 1 if c is the memset aggregate. */
int kprof_copy_is_memset(const struct kprof_copy *c);

/* The direction of a copy from whether its source and its destination are device memory (1) or not. */
static inline enum kprof_dir kprof_dir_of(int src_device, int dst_device)
{
    return src_device ? (dst_device ? KPROF_DTOD : KPROF_DTOH) : (dst_device ? KPROF_HTOD : KPROF_HTOH);
}

/* The transfers' part of the report's snapshot: every copy aggregate, by direction and host memory, and
 * the memsets', each with a histogram of its own. */
struct kprof_transfers_part {
    struct kprof_copy copies[KPROF_DIR_COUNT][KPROF_HOST_COUNT];
    struct kprof_copy memsets;
};
/* Fills *p; a histogram that cannot be copied for lack of memory is left empty.  After the drain;
 * thread-safe (the copies' lock). */
void kprof_transfers_snapshot(struct kprof_transfers_part *p);
/* Releases p's histograms. */
void kprof_transfers_part_free(struct kprof_transfers_part *p);

#endif
