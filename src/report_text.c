/* report_text.c: the human-readable report: aligned tables under fixed "== libkprof: <section> ==" headers
 * that scripts can find. */
#include <stdlib.h>
#include <string.h>
#include "cuda_api.h"
#include "calibrate.h"
#include "kprof_config.h"
#include "kernels.h"
#include "stats.h"
#include "snapshot.h"
#include "report.h"
#include "units.h"
#include "columns.h"


/* "Label (unit)" into buf. */
static const char *head(char *buf, size_t n, const char *label, struct kprof_unit u)
{
    snprintf(buf, n, "%s (%s)", label, u.name);
    return buf;
}

static void context_init(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: context init ==\n");
    if (!s->nctx_inits) {
        fprintf(f, "  (no context created through an intercepted call)\n");
        return;
    }
    fprintf(f, "%6s %14s  %s\n", "Device", "Host time (ms)", "Created by");
    for (size_t i = 0; i < s->nctx_inits; i++)
        fprintf(f, "%6d %14.3f  %s\n", s->ctx_inits[i].device, (double)s->ctx_inits[i].host_ns / 1e6,
                kprof_api_names[s->ctx_inits[i].api]);
}

/* A kernels-style table of rows (kernels, or graphs timed as a whole), under `section`. */
static void kernel_table(FILE *f, const char *section, const char *empty, struct kprof_kernel *const *rows,
                         size_t n, uint64_t all_ns, int top)
{
    fprintf(f, "== libkprof: %s ==\n", section);
    if (n == 0) {
        fprintf(f, "  (%s)\n", empty);
        return;
    }
    /* Totals in one unit (AUTO), per-launch figures in another (AUTO2): a long-running kernel's total
     * must not turn every per-launch column into 0.001. */
    struct kprof_kernel_rows t = { rows, n, all_ns };
    struct kprof_unit units[KPROF_TU_AUTO_COUNT];
    kprof_text_units(KPROF_TABLE_kernels, &t, n, NULL, units);
    int shapes = kprof_config.group == KPROF_GROUP_SHAPE && !rows[0]->is_graph;
    const char *labels[KPROF_COLUMN_COUNT] = { [KPROF_COL_kernels_name] = rows[0]->is_graph ? "Graph"
                                               : shapes ? "Kernel [grid] [block]" : NULL };
    kprof_text_header(f, KPROF_TABLE_kernels, units, labels);
    size_t shown = n;
    if (top && kprof_config.top > 0 && (size_t)kprof_config.top < shown)
        shown = (size_t)kprof_config.top;
    for (size_t i = 0; i < shown; i++) {
        const struct kprof_kernel *k = rows[i];
        kprof_text_row(f, KPROF_TABLE_kernels, &t, i, units);
        /* The row's shape, and the launches whose time is not in this row, after its name. */
        if (shapes)
            fprintf(f, " [%u,%u,%u] [%u,%u,%u]", k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                    k->block[2]);
        if (k->graph_calls)
            fprintf(f, "  [%llu of the calls in graphs: timed there]", (unsigned long long)k->graph_calls);
        if (k->in_conditional)
            fprintf(f, "  [also in conditional graph bodies: launches there unknown]");
        fputc('\n', f);
    }
    if (shown < n) {
        uint64_t rest = 0;
        for (size_t i = shown; i < n; i++)
            rest += kprof_kernel_total(rows[i]);
        fprintf(f, "  (%zu more kernel%s, %.2f%% of kernel time, not shown: KPROF_TOP=%ld)\n", n - shown,
                n - shown == 1 ? "" : "s",
                all_ns ? 100.0 * (double)rest / (double)all_ns : 0.0, kprof_config.top);
    }
}

static void kernels(FILE *f, const struct kprof_snapshot *s)
{
    kernel_table(f, "kernels", "no kernel launches", s->kernels, s->nkernels, s->kernel_total_ns, 1);
    if (s->nfiltered)
        fprintf(f, "  (%zu kernel%s left out by KPROF_INCLUDE/KPROF_EXCLUDE: passed through, not counted)\n",
                s->nfiltered, s->nfiltered == 1 ? "" : "s");
    if (s->nkernels && kprof_config.sample > 1)
        fprintf(f, "Sampled (KPROF_SAMPLE=%ld): the first launch of each kernel and every %ldth after it are timed; Timed\n"
                   "says how many. Total is estimated as the timed launches' time x Calls / Timed.\n",
                kprof_config.sample, kprof_config.sample);
    if (s->nkernels)
        fprintf(f, "First: the first launch (lazy module loading makes it slow); Avg, Med, p95, p99, Min, Max and StdDev\n"
                   "leave it out. Percentiles come from a log-linear histogram (relative error at most 0.78%%).\n"
                   "Calls include launches replayed by CUDA graphs, which are timed with their graph (see graphs) and\n"
                   "marked on their row; launches inside conditional graph bodies cannot be counted from the host.\n");
}

static void graphs(FILE *f, const struct kprof_snapshot *s)
{
    uint64_t all = 0;
    for (size_t i = 0; i < s->ngraphs; i++)
        all += kprof_kernel_total(s->graphs[i]);
    kernel_table(f, "graphs", "no graph launches", s->graphs, s->ngraphs, all, 0);
}

static void captured(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: captured ==\n");
    if (!s->ncaptured) {
        fprintf(f, "  (no launches while capturing)\n");
        return;
    }
    fprintf(f, "%10s  %s\n", "Launches", "Kernel (launched into a capturing stream: runs when its graph does)");
    for (size_t i = 0; i < s->ncaptured; i++) {
        fprintf(f, "%10llu  ", (unsigned long long)s->captured[i]->captured);
        kprof_text_put(f, s->captured[i]->name, 0);
        fprintf(f, "\n");
    }
}

/* One copies-style row: count, bytes, timed, total, avg, GB/s. */
static void copy_row(FILE *f, const struct kprof_copy *c, struct kprof_unit u)
{
    fprintf(f, " %9llu ", (unsigned long long)c->count);
    kprof_print_bytes(f, 12, c->bytes);
    if (c->timed)
        fprintf(f, " %9llu %13.3f %11.3f %9.2f\n", (unsigned long long)c->timed, (double)c->total_ns / u.ns,
                (double)c->total_ns / (double)c->timed / u.ns,
                c->total_ns ? (double)c->timed_bytes / (double)c->total_ns : 0.0);
    else
        fprintf(f, " %9d %13s %11s %9s\n", 0, "-", "-", "-");
}

static void copies(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: copies ==\n");
    uint64_t max = 0, any = 0;
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++) {
            any += s->copies[d][h].count;
            if (s->copies[d][h].total_ns > max)
                max = s->copies[d][h].total_ns;
        }
    if (!any) {
        fprintf(f, "  (no copies)\n");
        return;
    }
    struct kprof_unit u = kprof_unit_for(max);
    char h1[24], h2[24];
    fprintf(f, "%-9s %-8s %9s %12s %9s %13s %11s %9s\n", "Direction", "Host", "Count", "Bytes", "Timed",
            head(h1, 24, "Total", u), head(h2, 24, "Avg", u), "GB/s");
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++) {
            const struct kprof_copy *c = &s->copies[d][h];
            if (!c->count)
                continue;
            fprintf(f, "%-9s %-8s", kprof_dir_names[d], kprof_host_mem_names[h]);
            copy_row(f, c, u);
        }
}

static void memsets(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: memsets ==\n");
    if (!s->memsets.count) {
        fprintf(f, "  (no memsets)\n");
        return;
    }
    struct kprof_unit u = kprof_unit_for(s->memsets.total_ns);
    char h1[24], h2[24];
    fprintf(f, "%-18s %9s %12s %9s %13s %11s %9s\n", "", "Count", "Bytes", "Timed", head(h1, 24, "Total", u),
            head(h2, 24, "Avg", u), "GB/s");
    fprintf(f, "%-18s", "memset");
    copy_row(f, &s->memsets, u);
}

static void allocations(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: allocations ==\n");
    uint64_t max = 0, any = 0;
    for (int m = 0; m < KPROF_MEM_COUNT; m++) {
        any += s->alloc[m].count + s->alloc[m].frees;
        if (s->alloc[m].host_ns > max)
            max = s->alloc[m].host_ns;
    }
    if (!any) {
        fprintf(f, "  (no allocations)\n");
        return;
    }
    struct kprof_unit u = kprof_unit_for(max);
    char h[24];
    fprintf(f, "%-8s %9s %12s %9s %12s %15s %12s\n", "Kind", "Allocs", "Bytes", "Frees", "Freed",
            head(h, 24, "Host time", u), "Peak in use");
    for (int m = 0; m < KPROF_MEM_COUNT; m++) {
        const struct kprof_alloc_stat *a = &s->alloc[m];
        if (!a->count && !a->frees)
            continue;
        fprintf(f, "%-8s %9llu ", kprof_mem_names[m], (unsigned long long)a->count);
        kprof_print_bytes(f, 12, a->bytes);
        fprintf(f, " %9llu ", (unsigned long long)a->frees);
        kprof_print_bytes(f, 12, a->freed_bytes);
        fprintf(f, " %15.3f ", (double)a->host_ns / u.ns);
        kprof_print_bytes(f, 12, a->peak);
        fprintf(f, "\n");
    }
}

static void devices(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: devices ==\n");
    if (!s->ndevices) {
        fprintf(f, "  (no timed kernels)\n");
        return;
    }
    uint64_t max = 0;
    for (size_t i = 0; i < s->ndevices; i++)
        if (s->devices[i].kernel_ns > max)
            max = s->devices[i].kernel_ns;
    struct kprof_unit u = kprof_unit_for(max);
    char h1[24], h2[24];
    fprintf(f, "%6s %9s %15s %15s %9s %12s %8s\n", "Device", "Kernels", head(h1, 24, "Kernel sum", u),
            head(h2, 24, "Busy", u), "Overlap", "Wall (s)", "Busy(%)");
    for (size_t i = 0; i < s->ndevices; i++) {
        const struct kprof_device_stat *d = &s->devices[i];
        fprintf(f, "%6d %9llu %15.3f %15.3f %8.2fx %12.3f %8.2f\n", d->device, (unsigned long long)d->kernels,
                (double)d->kernel_ns / u.ns, (double)d->busy_ns / u.ns,
                d->busy_ns ? (double)d->kernel_ns / (double)d->busy_ns : 0.0, (double)s->wall_ns / 1e9,
                s->wall_ns ? 100.0 * (double)d->busy_ns / (double)s->wall_ns : 0.0);
    }
    fprintf(f, "Busy: the union of the device's kernel intervals; Overlap: kernel sum / busy (above 1: streams ran\n"
               "kernels at the same time).\n");
}

static void api(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: api ==\n");
    uint64_t max = 0, calls = 0;
    for (int i = 0; i < KPROF_API_COUNT; i++)
        if (kprof_api_counted[i]) {
            calls += s->api[i].calls;
            if (s->api[i].total_ns > max)
                max = s->api[i].total_ns;
        }
    if (calls == 0) {
        fprintf(f, "  (no API calls counted)\n");
        return;
    }
    struct kprof_unit u = kprof_unit_for(max);
    char h[3][24];
    fprintf(f, "%10s %8s %13s %11s %11s  %s\n", "Calls", "Errors", head(h[0], 24, "Total", u),
            head(h[1], 24, "Avg", u), head(h[2], 24, "Max", u), "API (host time)");
    for (int i = 0; i < KPROF_API_COUNT; i++) {
        const struct kprof_api_stat *a = &s->api[i];
        if (!kprof_api_counted[i] || !a->calls)
            continue;
        fprintf(f, "%10llu %8llu %13.3f %11.3f %11.3f  %s\n", (unsigned long long)a->calls,
                (unsigned long long)a->errors, (double)a->total_ns / u.ns,
                (double)a->total_ns / (double)a->calls / u.ns, (double)a->max_ns / u.ns, kprof_api_names[i]);
    }
}

void kprof_report_text(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: report ==\n");
    fprintf(f, "Process: ");
    kprof_text_put(f, s->command, 0);
    fprintf(f, " (pid %ld) on ", s->pid);
    kprof_text_put(f, s->host, 0);
    fprintf(f, ", wall time %.3f s\n", (double)s->wall_ns / 1e9);
    fprintf(f, "GPU times come from CUDA event pairs on each call's stream; host times from the host clock.\n");
    context_init(f, s);
    kernels(f, s);
    graphs(f, s);
    captured(f, s);
    copies(f, s);
    memsets(f, s);
    allocations(f, s);
    devices(f, s);
    api(f, s);
    fprintf(f, "== libkprof: events ==\n");
    fprintf(f, "Events created %ld, pairs incomplete at exit %ld, failed %ld, calls untimed for lack of events %ld, "
               "launches timed with one event (busy stream) %ld, held until queued %ld (behind other work %ld)\n",
            s->events.created, s->events.incomplete, s->events.failed, s->events.pool_exhausted, s->events.one_event,
            s->events.held + s->events.held_kernel, s->events.held_kernel);
    for (size_t i = 0; i < s->ncalibs; i++) {
        const struct kprof_calibration *c = &s->calibs[i];
        if (c->state != KPROF_CALIB_DONE) {
            fprintf(f, "Hand-off calibration, device %d: %s; kernel pairs keep their hand-off.\n", c->device,
                    kprof_calib_state_text(c->state));
            continue;
        }
        fprintf(f, "Hand-off calibration, device %d (%.1f ms): taken off each kernel's pair by its predecessor (us):",
                c->device, (double)c->cost_ns / 1e6);
        for (int p = 0; p < KPROF_PRED_COUNT; p++)
            fprintf(f, " %s %.2f", kprof_pred_names[p], c->handoff_ns[KPROF_START_OWN][p] / 1e3);
        fprintf(f, "; one event:");
        for (int p = 1; p < KPROF_PRED_SHARED_COUNT; p++)
            fprintf(f, " %s %.2f", kprof_pred_names[p], c->handoff_ns[KPROF_START_SHARED][p] / 1e3);
        fprintf(f, "%s\n", c->hold.ok ? "" : "; streams not held (KPROF_HOLD)");
    }
    fprintf(f, "== libkprof: end ==\n");
}
