/* kernel.c: the figures read from one kernel's histograms (kernel.h). */
#include <stdint.h>
#include <string.h>
#include "histogram.h"
#include "kernel.h"

/* v (ns) brought within the shortest and longest launch measured in full (the first included) when some of
 * the kernel's launches were read with a learned offset (kernel.h, offset_min_ns): those launches'
 * readings, whose spread is not that of the kernel's lengths, are in hist (full_hist, which the figures
 * come from then, has none of them; its buckets' representatives may still fall outside). */
static double within_measured(const struct kprof_kernel *k, double v)
{
    if (k->offset_min_ns == UINT64_MAX || k->min_ns == UINT64_MAX)
        return v;
    double lo = (double)k->min_ns, hi = (double)k->max_ns;
    if (k->first_timed && (double)k->first_ns < lo)
        lo = (double)k->first_ns;
    if (k->first_timed && (double)k->first_ns > hi)
        hi = (double)k->first_ns;
    return v < lo ? lo : v > hi ? hi : v;
}

/* Whether the percentiles come from the launches measured in full (kernel.h, full_hist): some launch was
 * read with a learned offset, and some after the first was measured in full. */
static int from_full(const struct kprof_kernel *k)
{
    return k->offset_min_ns != UINT64_MAX && kprof_hist_count(&k->full_hist) > 0;
}

static double instances_median(const struct kprof_kernel *k)
{
    if (k->w_sum > 0.0 || from_full(k)) { /* auto, or KPROF_HOLD=N's launches measured in full: weighed (the
                                           * launches each stands for), the first (w = 1) included */
        struct kprof_hist h;
        memset(&h, 0, sizeof h);
        kprof_hist_merge(&h, from_full(k) ? &k->full_hist : &k->hist);
        if (k->first_timed)
            kprof_hist_add_n(&h, k->first_ns, KPROF_SPLIT_UNITS);
        double m = (double)kprof_hist_percentile_units(&h, 50.0, KPROF_SPLIT_UNITS);
        kprof_hist_free(&h);
        return m;
    }
    return kprof_hist_median(&k->hist, k->first_timed ? &k->first_ns : NULL);
}

static uint64_t percentile(const struct kprof_kernel *k, double q)
{
    if (from_full(k))
        return kprof_hist_percentile_units(&k->full_hist, q, KPROF_SPLIT_UNITS);
    if (kprof_hist_count(&k->hist) > 0)
        return kprof_hist_percentile_units(&k->hist, q, k->w_sum > 0.0 ? KPROF_SPLIT_UNITS : 1);
    return k->first_timed ? k->first_ns : 0;
}

double kprof_kernel_instances_median(const struct kprof_kernel *k)
{
    return within_measured(k, instances_median(k));
}

uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q)
{
    return (uint64_t)within_measured(k, (double)percentile(k, q));
}

int kprof_kernel_split(const struct kprof_kernel *k, enum kprof_split which, double q, uint64_t *ns)
{
    const struct kprof_hist *h = which == KPROF_SPLIT_QUEUE ? &k->queue_hist : &k->launch_hist;
    if (kprof_hist_count(h) == 0)
        return 0;
    *ns = kprof_hist_percentile_units(h, q, KPROF_SPLIT_UNITS);
    return 1;
}
