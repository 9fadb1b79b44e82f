/* report-stubs.c: what libkprof's report writers (linked into kprof-report) take from the parts of the
 * library that kprof-report does not link (config.c, kernels.c, transfers.c, calibrate.c: they need the
 * CUDA driver and the interposed process): the configuration, and a saved report's percentiles and medians
 * in place of the histograms they come from.  The name tables are the library's own: src/names.c (linked
 * in) and calibrate.h. */
#include <string.h>
#include "kprof_config.h"
#include "kernel.h"
#include "transfers.h"
#include "calibrate.h"
#include "report-stubs.h"

/* The writers read the format settings from here: kprof_saved_apply() sets the report's own. */
struct kprof_config kprof_config = { .format = KPROF_FORMAT_TEXT, .sample = 1 };

/* The saved percentiles of a kernel read back (struct kprof_saved_kernel); the writers ask for 50, 95
 * and 99 only, any other q reads 0. */
uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q)
{
    const struct kprof_saved_kernel *sk = (const struct kprof_saved_kernel *)k; /* k is its first member */
    return q == 50.0 ? sk->median_ns : q == 95.0 ? sk->p95_ns : q == 99.0 ? sk->p99_ns : 0;
}

/* The saved host versus device split of a kernel (struct kprof_saved_kernel): the writers ask for the
 * median and p95 only, any other q has no value. */
int kprof_kernel_split(const struct kprof_kernel *k, enum kprof_split which, double q, uint64_t *ns)
{
    const struct kprof_saved_kernel *sk = (const struct kprof_saved_kernel *)k; /* k is its first member */
    int i = q == 50.0 ? 0 : q == 95.0 ? 1 : -1;
    if (i < 0 || !sk->split_known[which][i])
        return 0;
    *ns = sk->split_ns[which][i];
    return 1;
}

/* nsys's medians of a saved report, read back (report-read.c): a kernel's is in its saved row, a copy
 * aggregate's in this table (at most one per direction and host memory, and the memsets). */
double kprof_kernel_instances_median(const struct kprof_kernel *k)
{
    return ((const struct kprof_saved_kernel *)k)->instances_median_ns; /* k is its first member */
}

static struct {
    const struct kprof_copy *c;
    double median_ns;
} copy_medians[KPROF_DIR_COUNT * KPROF_HOST_COUNT + 1];
static size_t ncopy_medians;

void kprof_saved_copy_median(const struct kprof_copy *c, double median_ns)
{
    for (size_t i = 0; i < ncopy_medians; i++)
        if (copy_medians[i].c == c) {
            copy_medians[i].median_ns = median_ns;
            return;
        }
    if (ncopy_medians < sizeof copy_medians / sizeof copy_medians[0])
        copy_medians[ncopy_medians++] = (__typeof__(copy_medians[0])){ c, median_ns };
}

double kprof_copy_instances_median(const struct kprof_copy *c)
{
    for (size_t i = 0; i < ncopy_medians; i++)
        if (copy_medians[i].c == c)
            return copy_medians[i].median_ns;
    return 0.0;
}
