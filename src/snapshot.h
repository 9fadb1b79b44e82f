/* snapshot.h: the read-only snapshot of the statistics that the report writers read. */
#ifndef KPROF_SNAPSHOT_H
#define KPROF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "calibrate.h"
#include "kernels.h"
#include "stats.h"
#include "sample.h"

/* Read-only snapshot for the report writers (taken under the statistics lock, after the drain). */
/* One API function's host times: calls, failed calls, total, longest, shortest and median (ns; the median
 * from log-linear buckets, within 6.25% of the middle call's time, clamped to [min_ns, max_ns]); mid_ns,
 * the median as nsys's cuda_api_sum computes it (the mean of the two middle calls for an even count, each
 * read from the same buckets), and stddev_ns, the calls' sample standard deviation (0 for fewer than two). */
struct kprof_api_stat { uint64_t calls, errors, total_ns, max_ns, min_ns, median_ns; double mid_ns, stddev_ns; };
/* One context created: `api` is the program's call, `driver` the driver function that created it (-1:
 * unknown), enum kprof_api indexes; label is what the text report shows (kprof_api_pair_label). */
struct kprof_ctx_init { int device; int api; int driver; uint64_t host_ns; char label[96]; };
struct kprof_alloc_stat { uint64_t count, bytes, frees, freed_bytes, host_ns, in_use, peak; };
/* Per device: the sum of its kernels' GPU times and their union (the time the device was busy with at
 * least one kernel); the two differ when streams overlap.  uuid: "GPU-<8>-<4>-<4>-<4>-<12 hex digits>" as
 * nvidia-smi writes it, or "" when the driver could not say. */
struct kprof_device_stat { int device; uint64_t kernel_ns, busy_ns, kernels; char uuid[41]; };

/* One timed call for the Chrome trace (KPROF_TRACE). */
struct kprof_trace_event {
    uint64_t start_ns, dur_ns;   /* process timeline */
    const void *target;          /* struct kprof_kernel * or struct kprof_copy * */
    uint64_t bytes;
    unsigned grid[3], block[3];
    int device;
    unsigned stream_index;
    unsigned char kind;          /* enum kprof_target_kind */
    unsigned char pred, shared;  /* kernels: as in struct kprof_sample */
    uint32_t taken_ns;           /* kernels: ns taken off the pair, at most UINT32_MAX */
};
struct kprof_stream_name { int device; char *name; };

struct kprof_snapshot {
    struct kprof_kernel **kernels;   /* sorted by total_ns, descending; array owned by the snapshot */
    size_t nkernels;
    struct kprof_kernel **graphs;    /* graph rows with launches, sorted likewise; array owned */
    size_t ngraphs;
    struct kprof_kernel **captured;  /* kernels launched while capturing, by count; array owned */
    size_t ncaptured;
    size_t nfiltered;                /* kernels KPROF_INCLUDE/KPROF_EXCLUDE left out */
    uint64_t kernel_total_ns;
    struct kprof_copy copies[KPROF_DIR_COUNT][KPROF_HOST_COUNT]; /* each with a histogram of its own */
    struct kprof_copy memsets;
    struct kprof_device_stat *devices; size_t ndevices; /* owned by the snapshot */
    const struct kprof_trace_event *trace; size_t ntrace; /* not owned: valid after the drain */
    uint64_t trace_dropped;
    const struct kprof_stream_name *streams; size_t nstreams;
    struct kprof_alloc_stat alloc[KPROF_MEM_COUNT];
    struct kprof_api_stat api[KPROF_API_COUNT];
    struct kprof_ctx_init *ctx_inits; size_t nctx_inits;
    struct kprof_event_counters events;
    struct kprof_calibration calibs[16]; size_t ncalibs; /* one per context timed (the first 16) */
    uint64_t wall_ns;
    long pid;
    char command[256];
    char host[64];
};
/* Fills *s from every module (snapshot.c); release with kprof_snapshot_free().  Returns 0 when CUDA was never
 * used (no report then).  After the drain; thread-safe. */
int kprof_snapshot_take(struct kprof_snapshot *s);
void kprof_snapshot_free(struct kprof_snapshot *s);

/* The kernels' part of *s (kernels.c), s zeroed first by the caller: the kernels (sorted), the captured
 * kernels and the number filtered out.  Returns 1 when a kernel was counted. */
int kprof_kernels_snapshot(struct kprof_snapshot *s);
/* The statistics' part of *s (stats.c): copies, memsets, allocations, devices, the api table, context
 * creations and the trace. */
void kprof_stats_snapshot(struct kprof_snapshot *s);

/* qsort comparator of struct kprof_kernel * by total time (graph replays included), then calls, then
 * mangled name: the report's order. */
int kprof_kernel_by_total_desc(const void *a, const void *b);

#endif
