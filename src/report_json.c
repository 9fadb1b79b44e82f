/* report_json.c: the machine-readable report (schema_version 1, times in ns, sizes in bytes; the schema
 * is documented in man/libkprof.7). */
#include <stdlib.h>
#include "config.h"
#include "calibrate.h"
#include "kprof_config.h"
#include "kernels.h"
#include "stats.h"
#include "snapshot.h"
#include "report.h"
#include "utf8.h"
#include "columns.h"

void kprof_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = kprof_utf8_len(p);
        if (n == 0) { /* not UTF-8 (a kernel name is just bytes): JSON must be, so mark it replaced */
            fputs("\\ufffd", f);
            p++;
        } else if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n;
        } else {
            if (*p == '"' || *p == '\\')
                fprintf(f, "\\%c", *p);
            else if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
            p++;
        }
    }
    fputc('"', f);
}

#define U(x) ((unsigned long long)(x))

static void copy_fields(FILE *f, const struct kprof_copy *c)
{
    fprintf(f, "\"count\": %llu, \"bytes\": %llu, \"timed\": %llu, \"timed_bytes\": %llu, \"total_ns\": %llu, "
               "\"min_ns\": %llu, \"max_ns\": %llu, \"gbps\": %.3f",
            U(c->count), U(c->bytes), U(c->timed), U(c->timed_bytes), U(c->total_ns), U(c->timed ? c->min_ns : 0),
            U(c->max_ns), c->total_ns ? (double)c->timed_bytes / (double)c->total_ns : 0.0);
}

/* Kernels-style rows (kernels, or graphs timed as a whole, which have no graph_calls and
 * in_conditional_bodies); `all_ns` is the total their share is of. */
static void kernel_rows(FILE *f, struct kprof_kernel *const *rows, size_t n, uint64_t all_ns)
{
    struct kprof_kernel_rows t = { rows, n, all_ns };
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        kprof_json_object(f, KPROF_TABLE_kernels, &t, i, rows[i]->is_graph ? KPROF_COL_KERNEL : 0);
    }
    if (n)
        fprintf(f, "\n  ");
}

void kprof_report_json(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"tool\": \"libkprof\",\n  \"version\": ");
    kprof_json_string(f, PACKAGE_VERSION);
    fprintf(f, ",\n  \"pid\": %ld,\n  \"host\": ", s->pid);
    kprof_json_string(f, s->host);
    fprintf(f, ",\n  \"command\": ");
    kprof_json_string(f, s->command);
    fprintf(f, ",\n  \"wall_ns\": %llu,\n  \"sample_period\": %ld,\n", U(s->wall_ns), kprof_config.sample);

    fprintf(f, "  \"context_init\": [");
    for (size_t i = 0; i < s->nctx_inits; i++) {
        fprintf(f, "%s\n    {\"device\": %d, \"api\": ", i ? "," : "", s->ctx_inits[i].device);
        kprof_json_string(f, kprof_api_names[s->ctx_inits[i].api]);
        fprintf(f, ", \"host_ns\": %llu}", U(s->ctx_inits[i].host_ns));
    }
    fprintf(f, "%s],\n", s->nctx_inits ? "\n  " : "");

    fprintf(f, "  \"filtered_kernels\": %zu,\n", s->nfiltered);
    fprintf(f, "  \"kernel_total_ns\": %llu,\n  \"kernels\": [", U(s->kernel_total_ns));
    kernel_rows(f, s->kernels, s->nkernels, s->kernel_total_ns);
    fprintf(f, "],\n");
    uint64_t graph_ns = 0;
    for (size_t i = 0; i < s->ngraphs; i++)
        graph_ns += kprof_kernel_total(s->graphs[i]);
    fprintf(f, "  \"graphs\": [");
    kernel_rows(f, s->graphs, s->ngraphs, graph_ns);
    fprintf(f, "],\n  \"captured\": [");
    for (size_t i = 0; i < s->ncaptured; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        kprof_json_string(f, s->captured[i]->name);
        fprintf(f, ", \"mangled\": ");
        kprof_json_string(f, s->captured[i]->mangled);
        fprintf(f, ", \"launches\": %llu}", U(s->captured[i]->captured));
    }
    fprintf(f, "%s],\n", s->ncaptured ? "\n  " : "");

    fprintf(f, "  \"copies\": [");
    int first = 1;
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++) {
            const struct kprof_copy *c = &s->copies[d][h];
            if (!c->count)
                continue;
            fprintf(f, "%s\n    {\"direction\": \"%s\", \"host_memory\": %s, ", first ? "" : ",", kprof_dir_names[d],
                    h == KPROF_HOST_PINNED ? "\"pinned\"" : h == KPROF_HOST_PAGEABLE ? "\"pageable\"" : "null");
            copy_fields(f, c);
            fprintf(f, "}");
            first = 0;
        }
    fprintf(f, "%s],\n", first ? "" : "\n  ");

    fprintf(f, "  \"memsets\": {");
    copy_fields(f, &s->memsets);
    fprintf(f, "},\n");

    fprintf(f, "  \"allocations\": [");
    for (int m = 0; m < KPROF_MEM_COUNT; m++) {
        const struct kprof_alloc_stat *a = &s->alloc[m];
        fprintf(f, "%s\n    {\"kind\": \"%s\", \"count\": %llu, \"bytes\": %llu, \"frees\": %llu, "
                   "\"freed_bytes\": %llu, \"host_ns\": %llu, \"peak_bytes\": %llu, \"in_use_bytes\": %llu}",
                m ? "," : "", kprof_mem_names[m], U(a->count), U(a->bytes), U(a->frees), U(a->freed_bytes),
                U(a->host_ns), U(a->peak), U(a->in_use));
    }
    fprintf(f, "\n  ],\n");

    fprintf(f, "  \"devices\": [");
    for (size_t i = 0; i < s->ndevices; i++) {
        const struct kprof_device_stat *d = &s->devices[i];
        fprintf(f, "%s\n    {\"device\": %d, \"kernels\": %llu, \"kernel_ns\": %llu, \"busy_ns\": %llu}",
                i ? "," : "", d->device, U(d->kernels), U(d->kernel_ns), U(d->busy_ns));
    }
    fprintf(f, "%s],\n", s->ndevices ? "\n  " : "");

    fprintf(f, "  \"api\": [");
    first = 1;
    for (int i = 0; i < KPROF_API_COUNT; i++) {
        const struct kprof_api_stat *p = &s->api[i];
        if (!kprof_api_counted[i] || !p->calls)
            continue;
        fprintf(f, "%s\n    {\"name\": \"%s\", \"calls\": %llu, \"errors\": %llu, \"total_ns\": %llu, "
                   "\"max_ns\": %llu}",
                first ? "" : ",", kprof_api_names[i], U(p->calls), U(p->errors), U(p->total_ns), U(p->max_ns));
        first = 0;
    }
    fprintf(f, "%s],\n", first ? "" : "\n  ");

    fprintf(f, "  \"calibration\": [");
    for (size_t i = 0; i < s->ncalibs; i++) {
        const struct kprof_calibration *c = &s->calibs[i];
        fprintf(f, "%s\n    {\"device\": %d, \"state\": ", i ? "," : "", c->device);
        kprof_json_string(f, kprof_calib_state_text(c->state));
        fprintf(f, ", \"cost_ns\": %llu, \"samples\": %u, \"holds\": %s", U(c->cost_ns), c->samples,
                c->hold.ok ? "true" : "false");
        for (int sh = 0; sh < KPROF_START_COUNT; sh++) {
            fprintf(f, ", \"%s\": {", sh ? "handoff_shared_ns" : "handoff_ns");
            for (int p = 0; p < (sh ? KPROF_PRED_SHARED_COUNT : KPROF_PRED_COUNT); p++)
                fprintf(f, "%s\"%s\": %.0f", p ? ", " : "", kprof_pred_names[p], c->handoff_ns[sh][p]);
            fprintf(f, "}");
        }
        fprintf(f, "}");
    }
    fprintf(f, "%s],\n", s->ncalibs ? "\n  " : "");

    fprintf(f, "  \"events\": {\"created\": %ld, \"incomplete\": %ld, \"failed\": %ld, \"untimed_no_event\": %ld, "
               "\"one_event\": %ld, \"held\": %ld, \"held_kernel\": %ld}\n}\n",
            s->events.created, s->events.incomplete, s->events.failed, s->events.pool_exhausted, s->events.one_event,
            s->events.held, s->events.held_kernel);
}
