/* report-stubs.h: a kernel row read back from a report (report-read.c), with the percentiles that
 * kprof_kernel_percentile (report-stubs.c) answers from, since a report holds no histogram. */
#ifndef KPROF_REPORT_STUBS_H
#define KPROF_REPORT_STUBS_H

#include <stdint.h>
#include "kernel.h"
#include "transfers.h"

struct kprof_saved_kernel {
    struct kprof_kernel k;     /* first: the writers see &k */
    uint64_t median_ns, p95_ns, p99_ns;
    double instances_median_ns; /* nsys's median, the first launch included (kprof_kernel_instances_median) */
    /* kprof_kernel_split's answers, [enum kprof_split][0: median, 1: p95]; known 0 where the report has
     * null (or, from an older report, nothing) */
    uint64_t split_ns[2][2];
    unsigned char split_known[2][2];
};

/* Records the nsys median (ns) read back for the copy or memset aggregate c, which
 * kprof_copy_instances_median then answers (a report holds no histogram).  Not thread-safe. */
void kprof_saved_copy_median(const struct kprof_copy *c, double median_ns);

#endif
