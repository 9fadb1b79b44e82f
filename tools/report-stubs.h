/* report-stubs.h: a kernel row read back from a report (report-read.c), with the percentiles that
 * kprof_kernel_percentile (report-stubs.c) answers from, since a report holds no histogram. */
#ifndef KPROF_REPORT_STUBS_H
#define KPROF_REPORT_STUBS_H

#include <stdint.h>
#include "kernels.h"

struct kprof_saved_kernel {
    struct kprof_kernel k;     /* first: the writers see &k */
    uint64_t median_ns, p95_ns, p99_ns;
};

#endif
