/* report_text.c: the human-readable report: aligned tables under fixed "== libkprof: <section> ==" headers
 * that scripts can find. */
#include <stdlib.h>
#include <string.h>
#include "kprof.h"

/* One unit for a whole column, chosen so its largest value reads in the hundreds at most. */
struct unit { const char *name; double ns; };
static struct unit unit_for(uint64_t max_ns)
{
    if (max_ns >= 10000000000ull) return (struct unit){ "s", 1e9 };
    if (max_ns >= 10000000ull) return (struct unit){ "ms", 1e6 };
    if (max_ns >= 10000ull) return (struct unit){ "us", 1e3 };
    return (struct unit){ "ns", 1.0 };
}

static void print_bytes(FILE *f, int width, uint64_t b)
{
    char buf[32];
    if (b >= (1ull << 30))
        snprintf(buf, sizeof buf, "%.2f GiB", (double)b / (1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, sizeof buf, "%.2f MiB", (double)b / (1ull << 20));
    else if (b >= (1ull << 10))
        snprintf(buf, sizeof buf, "%.2f KiB", (double)b / (1ull << 10));
    else
        snprintf(buf, sizeof buf, "%llu B", (unsigned long long)b);
    fprintf(f, "%*s", width, buf);
}

static void kernels(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: kernels ==\n");
    if (s->nkernels == 0) {
        fprintf(f, "  (no kernel launches)\n");
        return;
    }
    uint64_t max = 0;
    for (size_t i = 0; i < s->nkernels; i++)
        if (s->kernels[i]->total_ns > max)
            max = s->kernels[i]->total_ns;
    struct unit u = unit_for(max);
    char h[5][24];
    snprintf(h[0], sizeof h[0], "Total (%s)", u.name);
    snprintf(h[1], sizeof h[1], "First (%s)", u.name);
    snprintf(h[2], sizeof h[2], "Avg (%s)", u.name);
    snprintf(h[3], sizeof h[3], "Min (%s)", u.name);
    snprintf(h[4], sizeof h[4], "Max (%s)", u.name);
    fprintf(f, "%7s %14s %10s %10s %12s %12s %12s %12s  %s\n", "Time(%)", h[0], "Calls", "Timed", h[1], h[2], h[3],
            h[4], "Kernel");
    for (size_t i = 0; i < s->nkernels; i++) {
        const struct kprof_kernel *k = s->kernels[i];
        char *name = kprof_demangle(k->mangled);
        double share = s->kernel_total_ns ? 100.0 * (double)k->total_ns / (double)s->kernel_total_ns : 0.0;
        double avg;
        uint64_t mn, mx;
        char first[32] = "-";
        if (k->first_timed)
            snprintf(first, sizeof first, "%.3f", (double)k->first_ns / u.ns);
        if (kprof_kernel_steady(k, &avg, &mn, &mx))
            fprintf(f, "%7.2f %14.3f %10llu %10llu %12s %12.3f %12.3f %12.3f  %s\n", share,
                    (double)k->total_ns / u.ns, (unsigned long long)k->calls, (unsigned long long)k->timed, first,
                    avg / u.ns, (double)mn / u.ns, (double)mx / u.ns, name ? name : k->mangled);
        else
            fprintf(f, "%7s %14s %10llu %10d %12s %12s %12s %12s  %s\n", "-", "-", (unsigned long long)k->calls, 0,
                    "-", "-", "-", "-", name ? name : k->mangled);
        free(name);
    }
    fprintf(f, "First: the first launch's time (lazy module loading makes it slow); Avg, Min and Max leave it out.\n");
}

static void copies(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: copies ==\n");
    uint64_t max = 0, any = 0;
    for (int d = 0; d < KPROF_DIR_COUNT; d++) {
        any += s->copies[d].count;
        if (s->copies[d].total_ns > max)
            max = s->copies[d].total_ns;
    }
    if (!any) {
        fprintf(f, "  (no copies)\n");
        return;
    }
    struct unit u = unit_for(max);
    char h[3][24];
    snprintf(h[0], sizeof h[0], "Total (%s)", u.name);
    snprintf(h[1], sizeof h[1], "Avg (%s)", u.name);
    fprintf(f, "%-9s %10s %14s %10s %14s %12s %10s\n", "Direction", "Count", "Bytes", "Timed", h[0], h[1], "GB/s");
    for (int d = 0; d < KPROF_DIR_COUNT; d++) {
        const struct kprof_copy *c = &s->copies[d];
        if (!c->count)
            continue;
        fprintf(f, "%-9s %10llu ", kprof_dir_names[d], (unsigned long long)c->count);
        print_bytes(f, 14, c->bytes);
        if (c->timed)
            fprintf(f, " %10llu %14.3f %12.3f %10.2f\n", (unsigned long long)c->timed, (double)c->total_ns / u.ns,
                    (double)c->total_ns / (double)c->timed / u.ns,
                    c->total_ns ? (double)c->timed_bytes / (double)c->total_ns : 0.0);
        else
            fprintf(f, " %10d %14s %12s %10s\n", 0, "-", "-", "-");
    }
}

static void memsets(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: memsets ==\n");
    const struct kprof_copy *m = &s->memsets;
    if (!m->count) {
        fprintf(f, "  (no memsets)\n");
        return;
    }
    struct unit u = unit_for(m->total_ns);
    char h[2][24];
    snprintf(h[0], sizeof h[0], "Total (%s)", u.name);
    snprintf(h[1], sizeof h[1], "Avg (%s)", u.name);
    fprintf(f, "%10s %14s %10s %14s %12s %10s\n", "Count", "Bytes", "Timed", h[0], h[1], "GB/s");
    fprintf(f, "%10llu ", (unsigned long long)m->count);
    print_bytes(f, 14, m->bytes);
    if (m->timed)
        fprintf(f, " %10llu %14.3f %12.3f %10.2f\n", (unsigned long long)m->timed, (double)m->total_ns / u.ns,
                (double)m->total_ns / (double)m->timed / u.ns,
                m->total_ns ? (double)m->timed_bytes / (double)m->total_ns : 0.0);
    else
        fprintf(f, " %10d %14s %12s %10s\n", 0, "-", "-", "-");
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
    struct unit u = unit_for(max);
    char h[24];
    snprintf(h, sizeof h, "Host time (%s)", u.name);
    fprintf(f, "%-7s %10s %14s %10s %14s %16s %14s\n", "Kind", "Allocs", "Bytes", "Frees", "Freed", h, "Peak in use");
    for (int m = 0; m < KPROF_MEM_COUNT; m++) {
        const struct kprof_alloc_stat *a = &s->alloc[m];
        if (!a->count && !a->frees)
            continue;
        fprintf(f, "%-7s %10llu ", kprof_mem_names[m], (unsigned long long)a->count);
        print_bytes(f, 14, a->bytes);
        fprintf(f, " %10llu ", (unsigned long long)a->frees);
        print_bytes(f, 14, a->freed_bytes);
        fprintf(f, " %16.3f ", (double)a->host_ns / u.ns);
        print_bytes(f, 14, a->peak);
        fprintf(f, "\n");
    }
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

static void api(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: api ==\n");
    uint64_t max = 0;
    for (int i = 0; i < KPROF_API_COUNT; i++)
        if (kprof_api_counted[i] && s->api[i].total_ns > max)
            max = s->api[i].total_ns;
    struct unit u = unit_for(max);
    char h[3][24];
    snprintf(h[0], sizeof h[0], "Total (%s)", u.name);
    snprintf(h[1], sizeof h[1], "Avg (%s)", u.name);
    snprintf(h[2], sizeof h[2], "Max (%s)", u.name);
    fprintf(f, "%10s %8s %14s %12s %12s  %s\n", "Calls", "Errors", h[0], h[1], h[2], "API (host time)");
    for (int i = 0; i < KPROF_API_COUNT; i++) {
        const struct kprof_api_stat *a = &s->api[i];
        if (!kprof_api_counted[i] || !a->calls)
            continue;
        fprintf(f, "%10llu %8llu %14.3f %12.3f %12.3f  %s\n", (unsigned long long)a->calls,
                (unsigned long long)a->errors, (double)a->total_ns / u.ns,
                (double)a->total_ns / (double)a->calls / u.ns, (double)a->max_ns / u.ns, kprof_api_names[i]);
    }
}

void kprof_report_text(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: report ==\n");
    fprintf(f, "Process: %s (pid %ld) on %s, wall time %.3f s\n", s->command, s->pid, s->host,
            (double)s->wall_ns / 1e9);
    fprintf(f, "GPU times come from CUDA event pairs on each call's stream; host times from the host clock.\n");
    context_init(f, s);
    kernels(f, s);
    copies(f, s);
    memsets(f, s);
    allocations(f, s);
    api(f, s);
    fprintf(f, "== libkprof: events ==\n");
    fprintf(f, "Events created %ld, pairs incomplete at exit %ld, failed %ld, calls untimed for lack of events %ld\n",
            s->events.created, s->events.incomplete, s->events.failed, s->events.pool_exhausted);
    fprintf(f, "== libkprof: end ==\n");
}
