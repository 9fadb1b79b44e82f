/* snapshot.h: the read-only snapshot of the statistics that the report writers read. */
#ifndef KPROF_SNAPSHOT_H
#define KPROF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "calibrate.h"
#include "kernels.h"
#include "stats.h"
#include "sample.h"

/* Read-only snapshot for the report writers (taken under the statistics lock, after the drain): each
 * module's part (kernels.h, stats.h) and what the timing layer and the process add. */
struct kprof_snapshot {
    struct kprof_kernels_part k;     /* the kernels (kernels.h) */
    struct kprof_stats_part st;      /* copies, memsets, devices, trace, allocations, api, contexts (stats.h) */
    struct kprof_kernel **graphs;    /* graph rows with launches, sorted likewise; array owned */
    size_t ngraphs;
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

#endif
