/* rows.c: each report table's derived figures, computed once per snapshot (rows.h); linked into libkprof
 * and into tools/kprof-report, which takes them from a saved report's snapshot. */
#include <stdlib.h>
#include <string.h>
#include "cuda_api.h"
#include "kernel.h"
#include "transfers.h"
#include "snapshot.h"
#include "rows.h"

/* One kernels-style row's figures. */
static void kernel_row(struct kprof_kernel_row *r, const struct kprof_kernel *k)
{
    memset(r, 0, sizeof *r);
    r->k = k;
    for (int i = 0; i < 3; i++) {
        r->grid[i] = __atomic_load_n(&k->grid[i], __ATOMIC_RELAXED);
        r->block[i] = __atomic_load_n(&k->block[i], __ATOMIC_RELAXED);
    }
    r->total = kprof_kernel_total(k);
    kprof_kernel_steady(k, &r->avg, &r->min, &r->max);
    r->median = kprof_kernel_percentile(k, 50);
    r->p95 = kprof_kernel_percentile(k, 95);
    r->p99 = kprof_kernel_percentile(k, 99);
    r->stddev = kprof_kernel_stddev(k);
    kprof_kernel_instances(k, &r->nsys);
    r->nsys_median = kprof_kernel_instances_median(k);
    static const double q[2] = { 50, 95 };
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 2; i++)
            r->split_known[w][i] = (unsigned char)kprof_kernel_split(k, (enum kprof_split)w, q[i], &r->split_ns[w][i]);
}

/* The rows of the n kernels `rows` into *t (all_ns left to the caller); returns their totals summed. */
static uint64_t kernel_rows(struct kprof_kernel_rows *t, struct kprof_kernel *const *rows, size_t n)
{
    uint64_t all = 0;
    t->rows = n ? malloc(n * sizeof *t->rows) : NULL;
    t->n = t->rows ? n : 0;
    for (size_t i = 0; i < t->n; i++) {
        kernel_row(&t->rows[i], rows[i]);
        t->measured_ns += rows[i]->total_ns;
        all += t->rows[i].total;
    }
    return all;
}

static const char *const operations[KPROF_DIR_COUNT] = {
    [KPROF_HTOH] = "[CUDA memcpy Host-to-Host]", [KPROF_HTOD] = "[CUDA memcpy Host-to-Device]",
    [KPROF_DTOH] = "[CUDA memcpy Device-to-Host]", [KPROF_DTOD] = "[CUDA memcpy Device-to-Device]",
};

static void copy_row(struct kprof_copy_rows *t, const char *direction, const char *host, const char *operation,
                     const struct kprof_copy *c)
{
    struct kprof_copy_row *r = &t->rows[t->n++];
    r->direction = direction;
    r->host = host;
    r->operation = operation;
    r->c = c;
    kprof_copy_instances(c, &r->nsys);
    r->nsys_median = kprof_copy_instances_median(c);
}

void kprof_rows_take(struct kprof_rows *r, const struct kprof_snapshot *s)
{
    memset(r, 0, sizeof *r);
    kernel_rows(&r->kernels, s->k.kernels, s->k.nkernels);
    r->kernels.all_ns = s->k.kernel_total_ns;
    r->graphs.all_ns = kernel_rows(&r->graphs, s->graphs.rows, s->graphs.n);

    uint64_t mem_ns = s->transfers.memsets.total_ns;
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++) {
            const struct kprof_copy *c = &s->transfers.copies[d][h];
            mem_ns += c->total_ns;
            if (c->count)
                copy_row(&r->copies, kprof_dir_names[d], h == KPROF_HOST_NONE ? NULL : kprof_host_mem_names[h],
                         operations[d], c);
        }
    copy_row(&r->memsets, "memset", "", "[CUDA memset]", &s->transfers.memsets);
    r->copies.all_ns = r->memsets.all_ns = mem_ns;

    for (size_t i = 0; i < KPROF_API_COUNT; i++)
        if (kprof_api_counted[i])
            r->api_ns += s->apitable.api[i].total_ns;
}

void kprof_rows_free(struct kprof_rows *r)
{
    free(r->kernels.rows);
    free(r->graphs.rows);
    memset(r, 0, sizeof *r);
}
