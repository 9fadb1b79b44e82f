/* rows.h: the report's tables as rows whose derived figures (percentiles, nsys's spreads, estimates,
 * shares' denominators) are computed once per snapshot (rows.c), so that the writers only format them. */
#ifndef KPROF_ROWS_H
#define KPROF_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "histogram.h"
#include "kernel.h"
#include "transfers.h"

struct kprof_snapshot;

/* A kernels-style row (a kernel, or a graph timed as a whole) and its figures, as kernel.h reads them. */
struct kprof_kernel_row {
    const struct kprof_kernel *k;  /* borrowed from the snapshot */
    /* Its launch shape, read once (atomic loads: launches still under way store it, kprof_kernel_shape) */
    unsigned grid[3], block[3];
    uint64_t total;                /* kprof_kernel_total */
    double avg;                    /* kprof_kernel_steady's avg, min and max; 0 when no launch was timed */
    uint64_t min, max;
    uint64_t median, p95, p99;     /* kprof_kernel_percentile 50, 95, 99 */
    double stddev;                 /* kprof_kernel_stddev */
    struct kprof_spread nsys;      /* kprof_kernel_instances */
    double nsys_median;            /* kprof_kernel_instances_median */
    /* kprof_kernel_split [enum kprof_split][0: median, 1: p95], and whether it has a value */
    uint64_t split_ns[2][2];
    unsigned char split_known[2][2];
};
/* A kernels-style table: rows[0 .. n - 1] (owned), in the snapshot's order; all_ns, the total each row's
 * share is of (the kernels' kernel_total_ns, or the graphs' totals summed); measured_ns, the rows' measured
 * totals (total_ns) summed, what nsys's Time (%) is a share of. */
struct kprof_kernel_rows { struct kprof_kernel_row *rows; size_t n; uint64_t all_ns, measured_ns; };

/* A row of the copies table, or the memsets' row: its labels (operation: as nsys's cuda_gpu_mem_time_sum
 * names it; host NULL for a copy with no host side, "" for memsets), its aggregate (borrowed from the
 * snapshot) and nsys's figures of it (kprof_copy_instances, kprof_copy_instances_median). */
struct kprof_copy_row {
    const char *direction, *host, *operation;
    const struct kprof_copy *c;
    struct kprof_spread nsys;
    double nsys_median;
};
/* The copies with a call, by direction then host memory, or the memsets alone (one row, "memset", with or
 * without a call); all_ns: the GPU time of every timed copy and memset, what nsys's Time (%) shares out. */
struct kprof_copy_rows {
    struct kprof_copy_row rows[KPROF_DIR_COUNT * KPROF_HOST_COUNT];
    size_t n;
    uint64_t all_ns;
};

/* Every table's derived rows.  The captured, allocations, devices and context_init tables read the
 * snapshot's own arrays (nothing derived); the api table's rows are the snapshot's too, api_ns their
 * share's denominator: the host time of the APIs counted. */
struct kprof_rows {
    struct kprof_kernel_rows kernels, graphs;
    struct kprof_copy_rows copies, memsets;
    uint64_t api_ns;
};

/* Fills *r from the snapshot s, which must be complete and stay where it is while r is used (the rows
 * point into it).  A kernels-style table whose rows cannot be allocated is left empty.  Release with
 * kprof_rows_free().  Not thread-safe on r; s is only read. */
void kprof_rows_take(struct kprof_rows *r, const struct kprof_snapshot *s);
/* Releases what kprof_rows_take allocated in r, and zeroes it. */
void kprof_rows_free(struct kprof_rows *r);

#endif
