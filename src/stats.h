/* stats.h: what stats.c counts besides kernels, copies and allocations: the API table, samples. */
#ifndef KPROF_STATS_H
#define KPROF_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "names.h"
#include "sample.h"
#include "transfers.h"
#include "allocs.h"

/* Aggregates one completed sample (kernel time and its histogram, copy time, the device's busy time,
 * the trace).  Called by the harvester; thread-safe (statistics lock). */
void kprof_sample_record(const struct kprof_sample *s);

/* Names stream number `index` (on `device`) for the trace; the string is copied.  Thread-safe. */
void kprof_stream_named(unsigned index, int device, const char *name);

/* Host-side API table: a call and its host time (ns).  A launch KPROF_SAMPLE leaves untimed is counted
 * with kprof_api_count when its host time was not read, with kprof_api_record_untimed when it was (one
 * in KPROF_HOST_SAMPLE): the total host time of the untimed launches is estimated from the ones read.
 * `ok`: the call succeeded.  Thread-safe, lock-free. */
void kprof_api_record(int api, uint64_t host_ns, int ok);
void kprof_api_count(int api, int ok);
void kprof_api_record_untimed(int api, uint64_t host_ns, int ok);

/* Context creation on `device`, host_ns long: `api` is the program's call that caused it (the outermost
 * counted call on the thread, or the driver function when none was in progress), `driver` the driver
 * function that created it (-1: unknown, the context seen only after `api` returned); both enum kprof_api
 * indexes.  The first 64 are kept.  Thread-safe. */
void kprof_ctx_init_record(int device, int api, int driver, uint64_t host_ns);

/* One API function's host times: calls, failed calls, total, longest, shortest and median (ns; the median
 * from log-linear buckets, within 6.25% of the middle call's time, clamped to [min_ns, max_ns]); mid_ns,
 * the median as nsys's cuda_api_sum computes it (the mean of the two middle calls for an even count, each
 * read from the same buckets), and stddev_ns, the calls' sample standard deviation (0 for fewer than two). */
struct kprof_api_stat { uint64_t calls, errors, total_ns, max_ns, min_ns, median_ns; double mid_ns, stddev_ns; };
/* One context created: `api` is the program's call, `driver` the driver function that created it (-1:
 * unknown), enum kprof_api indexes; label is what the text report shows (kprof_api_pair_label). */
struct kprof_ctx_init { int device; int api; int driver; uint64_t host_ns; char label[96]; };
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

/* The statistics' part of the report's snapshot (kprof_stats_snapshot): arrays owned by the caller
 * (devices, ctx_inits), the trace borrowed (valid after the drain). */
struct kprof_stats_part {
    struct kprof_copy copies[KPROF_DIR_COUNT][KPROF_HOST_COUNT]; /* each with a histogram of its own */
    struct kprof_copy memsets;
    struct kprof_device_stat *devices; size_t ndevices;
    const struct kprof_trace_event *trace; size_t ntrace;
    uint64_t trace_dropped;
    const struct kprof_stream_name *streams; size_t nstreams;
    struct kprof_alloc_stat alloc[KPROF_MEM_COUNT];
    struct kprof_api_stat api[KPROF_API_COUNT];
    struct kprof_ctx_init *ctx_inits; size_t nctx_inits;
};
/* Fills *p (zeroed by the caller): copies, memsets, allocations, devices, the api table, context creations
 * and the trace.  After the drain; thread-safe (the statistics' locks). */
void kprof_stats_snapshot(struct kprof_stats_part *p);

#endif
