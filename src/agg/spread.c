/* spread.c: a kernel's and a copy aggregate's figures per instance, as nsys stats gives them (count,
 * total, mean, extremes, sample standard deviation, the first launch included): pure functions of an
 * aggregate, linked into libkprof and into tools/kprof-report, which computes them from a saved report.
 * Declared in kernel.h and transfers.h. */
#include <math.h>
#include <string.h>
#include "cuda_api.h"
#include "kernel.h"
#include "transfers.h"

void kprof_copy_instances(const struct kprof_copy *c, struct kprof_spread *o)
{
    memset(o, 0, sizeof *o);
    if (c->timed == 0)
        return;
    o->n = c->timed;
    o->total_ns = c->total_ns;
    o->min_ns = c->min_ns;
    o->max_ns = c->max_ns;
    o->avg_ns = (double)c->total_ns / (double)c->timed;
    o->stddev_ns = c->timed > 1 ? sqrt(c->m2 / (double)(c->timed - 1)) : 0.0;
}

void kprof_kernel_instances(const struct kprof_kernel *k, struct kprof_spread *o)
{
    memset(o, 0, sizeof *o);
    uint64_t rest = k->timed - (uint64_t)k->first_timed; /* the launches after the first, timed */
    if (k->timed == 0)
        return;
    o->n = k->timed;
    o->total_ns = k->total_ns;
    o->avg_ns = (double)k->total_ns / (double)k->timed;
    double mean = rest ? k->mean_ns : 0.0, m2 = rest ? kprof_kernel_m2(k) : 0.0;
    o->min_ns = o->max_ns = k->first_ns;
    if (rest)
        kprof_kernel_min_max(k, &o->min_ns, &o->max_ns);
    if (k->first_timed) {
        if (k->first_ns < o->min_ns)
            o->min_ns = k->first_ns;
        if (k->first_ns > o->max_ns)
            o->max_ns = k->first_ns;
        /* The first launch added to the others' running mean and sum of squares: one more Welford step. */
        double d = (double)k->first_ns - mean;
        mean += d / (double)(rest + 1);
        m2 += d * ((double)k->first_ns - mean);
    }
    o->stddev_ns = k->timed > 1 ? sqrt((m2 > 0.0 ? m2 : 0.0) / (double)(k->timed - 1)) : 0.0;
}

