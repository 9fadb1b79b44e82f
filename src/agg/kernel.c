/* kernel.c: the figures read from one kernel's histograms (kernel.h). */
#include <stdint.h>
#include <string.h>
#include "histogram.h"
#include "kernel.h"

double kprof_kernel_instances_median(const struct kprof_kernel *k)
{
    if (k->w_sum > 0.0) { /* auto: the weighed median of every timed launch, the first (w = 1) included */
        struct kprof_hist h;
        memset(&h, 0, sizeof h);
        kprof_hist_merge(&h, &k->hist);
        if (k->first_timed)
            kprof_hist_add_n(&h, k->first_ns, KPROF_SPLIT_UNITS);
        double m = (double)kprof_hist_percentile_units(&h, 50.0, KPROF_SPLIT_UNITS);
        kprof_hist_free(&h);
        return m;
    }
    return kprof_hist_median(&k->hist, k->first_timed ? &k->first_ns : NULL);
}

uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q)
{
    if (kprof_hist_count(&k->hist) > 0)
        return kprof_hist_percentile_units(&k->hist, q, k->w_sum > 0.0 ? KPROF_SPLIT_UNITS : 1);
    return k->first_timed ? k->first_ns : 0;
}

int kprof_kernel_split(const struct kprof_kernel *k, enum kprof_split which, double q, uint64_t *ns)
{
    const struct kprof_hist *h = which == KPROF_SPLIT_QUEUE ? &k->queue_hist : &k->launch_hist;
    if (kprof_hist_count(h) == 0)
        return 0;
    *ns = kprof_hist_percentile_units(h, q, KPROF_SPLIT_UNITS);
    return 1;
}
