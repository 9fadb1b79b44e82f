/* snapshot.h: the read-only snapshot of the statistics that the report writers read. */
#ifndef KPROF_SNAPSHOT_H
#define KPROF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "calibrate.h"
#include "kernels.h"
#include "transfers.h"
#include "allocs.h"
#include "apitable.h"
#include "devices.h"
#include "sample.h"
#include "rows.h"

/* The statistics besides the kernels, each module's snapshot (transfers.h, allocs.h, apitable.h,
 * devices.h): arrays owned by the snapshot (devices, ctx_inits, the copies' histograms), the trace borrowed
 * (valid after the drain). */
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

/* Read-only snapshot for the report writers (taken after the drain, each module's under its own lock):
 * each module's part and what the timing layer and the process add. */
struct kprof_snapshot {
    struct kprof_kernels_part k;     /* the kernels (kernels.h) */
    struct kprof_stats_part st;      /* copies, memsets, devices, trace, allocations, api, contexts */
    struct kprof_kernel **graphs;    /* graph rows with launches, sorted likewise; array owned */
    size_t ngraphs;
    struct kprof_event_counters events;
    struct kprof_calibration calibs[16]; size_t ncalibs; /* one per context timed (the first 16) */
    uint64_t wall_ns;
    long pid;
    char command[256];
    char host[64];
    struct kprof_rows rows;          /* every table's derived figures, computed once (rows.h) */
};
/* Fills *s from every module, then its rows (kprof_rows_take: s stays where it is); release with
 * kprof_snapshot_free().  Returns 0 when CUDA was never
 * used (no report then).  After the drain; thread-safe. */
int kprof_snapshot_take(struct kprof_snapshot *s);
void kprof_snapshot_free(struct kprof_snapshot *s);

#endif
