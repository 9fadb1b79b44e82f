/* apitable.h: the host-side API table and the host time of context creation (agg/apitable.c). */
#ifndef KPROF_APITABLE_H
#define KPROF_APITABLE_H

#include <stddef.h>
#include <stdint.h>
#include "names.h"

/* One API function's host times: calls, failed calls, total, longest, shortest and median (ns; the median
 * from log-linear buckets, within 6.25% of the middle call's time, clamped to [min_ns, max_ns]); mid_ns,
 * the median as nsys's cuda_api_sum computes it (the mean of the two middle calls for an even count, each
 * read from the same buckets), and stddev_ns, the calls' sample standard deviation (0 for fewer than two). */
struct kprof_api_stat { uint64_t calls, errors, total_ns, max_ns, min_ns, median_ns; double mid_ns, stddev_ns; };

/* Host-side API table: a call and its host time (ns); `api` is an enum kprof_api index.  A launch
 * KPROF_SAMPLE leaves untimed is counted with kprof_api_count when its host time was not read, with
 * kprof_api_record_untimed when it was (one in KPROF_HOST_SAMPLE): the total host time of the untimed
 * launches is estimated from the ones read.  `ok`: the call succeeded.  Thread-safe, lock-free. */
void kprof_api_record(int api, uint64_t host_ns, int ok);
void kprof_api_count(int api, int ok);
void kprof_api_record_untimed(int api, uint64_t host_ns, int ok);

/* One context created: `api` is the program's call, `driver` the driver function that created it (-1:
 * unknown), enum kprof_api indexes; start_ns when its creation began on the process timeline (ns since
 * libkprof started: the time it was recorded less host_ns), so that a context created again after a device
 * reset reads apart from the first; label is what the text report shows (kprof_api_pair_label). */
struct kprof_ctx_init { int device; int api; int driver; uint64_t start_ns, host_ns; char label[96]; };
/* A kprof_ctx_init's start_ns not known: read from a saved report of a libkprof that did not write it
 * (shown as "-", JSON null). */
#define KPROF_START_UNKNOWN UINT64_MAX

/* Context creation on `device`, host_ns long: `api` is the program's call that caused it (the outermost
 * counted call on the thread, or the driver function when none was in progress), `driver` the driver
 * function that created it (-1: unknown, the context seen only after `api` returned); both enum kprof_api
 * indexes.  Called when the creation has just ended (its start is now less host_ns).  The first 64 are kept (a warning when more are created).  Thread-safe (the context creations' lock). */
void kprof_ctx_init_record(int device, int api, int driver, uint64_t host_ns);

/* The api table's part of the report's snapshot: api[i], each API function's figures, read without a
 * lock while calls go on (each figure may be a call apart from another); the contexts created so far, in
 * order (ctx_inits owned; NULL with nctx_inits 0 when out of memory). */
struct kprof_apitable_part {
    struct kprof_api_stat api[KPROF_API_COUNT];
    struct kprof_ctx_init *ctx_inits; size_t nctx_inits;
};
/* Fills *p.  Thread-safe (the context creations' lock). */
void kprof_apitable_snapshot(struct kprof_apitable_part *p);
/* Releases p's contexts array. */
void kprof_apitable_part_free(struct kprof_apitable_part *p);

#endif
