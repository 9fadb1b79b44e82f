/* stats.h: what stats.c counts besides kernels, copies, allocations and API calls: samples, the trace. */
#ifndef KPROF_STATS_H
#define KPROF_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "names.h"
#include "sample.h"
#include "transfers.h"
#include "allocs.h"
#include "apitable.h"

/* Aggregates one completed sample (kernel time and its histogram, copy time, the device's busy time,
 * the trace).  Called by the harvester; thread-safe (statistics lock). */
void kprof_sample_record(const struct kprof_sample *s);

/* Names stream number `index` (on `device`) for the trace; the string is copied.  Thread-safe. */
void kprof_stream_named(unsigned index, int device, const char *name);

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
