/* snapshot.h: the read-only snapshot of the statistics that the report writers read. */
#ifndef KPROF_SNAPSHOT_H
#define KPROF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "kernels.h"
#include "graphs.h"
#include "transfers.h"
#include "allocs.h"
#include "apitable.h"
#include "devices.h"
#include "timing.h"
#include "rows.h"

/* The modules' parts of the snapshot, in the order they are taken (each after the drain, under the
 * module's own lock): X(module, member) embeds the module's struct kprof_<module>_part as `member`, filled
 * by kprof_<module>_snapshot() and released by kprof_<module>_part_free(), both declared in the module's
 * header.  A module with a part of the report adds its line here (snapshot.c and the struct below expand
 * it). */
#define KPROF_SNAPSHOT_PARTS(X) \
    X(kernels, k)               /* kernels.h: the kernels, launched and captured */ \
    X(transfers, transfers)     /* transfers.h: copies and memsets */ \
    X(devices, devices)         /* devices.h: devices' busy time and the trace */ \
    X(apitable, apitable)       /* apitable.h: the api table and context creation */ \
    X(allocs, allocs)           /* allocs.h: allocations */ \
    X(graphs, graphs)           /* graphs.h: graphs timed as a whole */ \
    X(events, events)           /* timing.h: the timing layer's counters and calibrations */

/* Read-only snapshot for the report writers: each module's part, what the process adds, and every
 * table's derived rows. */
struct kprof_snapshot {
#define KPROF_PART_MEMBER(module, member) struct kprof_##module##_part member;
    KPROF_SNAPSHOT_PARTS(KPROF_PART_MEMBER)
#undef KPROF_PART_MEMBER
    uint64_t wall_ns;
    long pid;
    long rank;                       /* the launcher's rank of the process (kprof_config.rank); -1: none */
    char command[256];
    char host[64];
    struct kprof_rows rows;          /* every table's derived figures, computed once (rows.h) */
};
/* Fills *s: every module's part (KPROF_SNAPSHOT_PARTS), the devices' UUIDs, what the process adds, then
 * its rows (kprof_rows_take: s stays where it is).  Returns 0 when no kernel was counted and CUDA was never
 * used (no report then).  After the drain; thread-safe.  Release with kprof_snapshot_free(). */
int kprof_snapshot_take(struct kprof_snapshot *s);
/* Releases what kprof_snapshot_take allocated (the rows, then each part), and zeroes *s. */
void kprof_snapshot_free(struct kprof_snapshot *s);

#endif
