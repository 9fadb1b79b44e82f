/* report_json.c: the machine-readable report (schema_version 1, times in ns, sizes in bytes; the schema
 * is documented in man/libkprof.7). */
#include "config.h"
#include "calibrate.h"
#include "kprof_config.h"
#include "kernel.h"
#include "snapshot.h"
#include "report_writers.h"
#include "jsonput.h"
#include "columns.h"

#define U(x) ((unsigned long long)(x))

/* The rows 0 to n - 1 of ctx for which shown (when not NULL) holds, as the elements of a JSON array (its
 * brackets are the caller's). */
static void json_rows(FILE *f, int table, const void *ctx, size_t n, int (*shown)(const void *ctx, size_t row))
{
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (shown && !shown(ctx, i))
            continue;
        fprintf(f, "%s\n    ", first ? "" : ",");
        kprof_json_object(f, table, ctx, i, 0);
        first = 0;
    }
    if (!first)
        fprintf(f, "\n  ");
}

/* API functions counted and called: the api table's rows. */
static int api_called(const void *ctx, size_t i)
{
    const struct kprof_snapshot *s = ctx;
    return kprof_api_counted[i] && s->apitable.api[i].calls;
}

/* Kernels-style rows (kernels, or graphs timed as a whole, which have no graph_calls and
 * in_conditional_bodies). */
/* KPROF_AUTO_CHECK=1: "auto_check", each kernel whose total auto would have estimated, with that estimate
 * beside the measured total, and how many totals fell inside their 95% intervals. */
static void auto_check(FILE *f, const struct kprof_kernel_rows *t)
{
    size_t n = 0, inside = 0;
    fprintf(f, "  \"auto_check\": {\"kernels\": [");
    for (size_t i = 0; i < t->n; i++) {
        const struct kprof_kernel *k = t->rows[i].k;
        if (k->is_graph || !kprof_kernel_checked(k))
            continue;
        int in = kprof_kernel_check_inside(k);
        fprintf(f, "%s\n    {\"name\": ", n++ ? "," : "");
        kprof_json_string(f, k->name);
        fprintf(f, ", \"mangled\": ");
        kprof_json_string(f, k->mangled);
        fprintf(f, ", \"calls\": %llu, \"auto_timed\": %llu, \"total_ns\": %llu, \"auto_total_ns\": ",
                U(kprof_kernel_direct(k)), U(k->check_timed), U(kprof_kernel_total(k)));
        kprof_json_real(f, k->check_total_ns);
        fprintf(f, ", \"auto_ci95_ns\": ");
        kprof_json_real(f, k->check_ci95_ns);
        fprintf(f, ", \"inside\": %s}", in ? "true" : "false");
        inside += (size_t)in;
    }
    fprintf(f, "%s], \"inside\": %zu, \"estimated\": %zu},\n", n ? "\n  " : "", inside, n);
}

static void kernel_rows(FILE *f, const struct kprof_kernel_rows *t)
{
    for (size_t i = 0; i < t->n; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        kprof_json_object(f, KPROF_TABLE_kernels, t, i, t->rows[i].k->is_graph ? KPROF_COL_KERNEL : 0);
    }
    if (t->n)
        fprintf(f, "\n  ");
}

void kprof_report_json(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"tool\": \"libkprof\",\n  \"version\": ");
    kprof_json_string(f, PACKAGE_VERSION);
    fprintf(f, ",\n  \"pid\": %ld,\n", s->pid);
    if (s->rank >= 0)
        fprintf(f, "  \"rank\": %ld,\n", s->rank);
    else
        fprintf(f, "  \"rank\": null,\n");
    fprintf(f, "  \"host\": ");
    kprof_json_string(f, s->host);
    fprintf(f, ",\n  \"command\": ");
    kprof_json_string(f, s->command);
    fprintf(f, ",\n  \"wall_ns\": %llu,\n  \"sample_period\": %ld,\n  \"sample_seed\": %llu,\n  \"sample_budget\": %ld,\n"
               "  \"group\": \"%s\",\n  \"names\": \"%s\",\n  \"name_width\": %ld,\n  \"top\": %ld,\n",
            U(s->wall_ns), kprof_config.sample,
            U((uint64_t)kprof_config.seed), /* the draws' (auto's, the check's, KPROF_HOLD=N's holds) */
            kprof_config.sample_budget, kprof_config.group == KPROF_GROUP_SHAPE ? "shape" : "name",
            kprof_config.names == KPROF_NAMES_BASE      ? "base"
            : kprof_config.names == KPROF_NAMES_MANGLED ? "mangled"
                                                         : "demangled",
            kprof_config.name_width, kprof_config.top);

    fprintf(f, "  \"context_init\": [");
    json_rows(f, KPROF_TABLE_context_init, s, s->apitable.nctx_inits, NULL);
    fprintf(f, "],\n");

    fprintf(f, "  \"filtered_kernels\": %zu,\n", s->k.nfiltered);
    fprintf(f, "  \"kernel_total_ns\": %llu,\n  \"kernels\": [", U(s->k.kernel_total_ns));
    kernel_rows(f, &s->rows.kernels);
    fprintf(f, "],\n");
    if (kprof_config.auto_check)
        auto_check(f, &s->rows.kernels);
    fprintf(f, "  \"graphs\": [");
    kernel_rows(f, &s->rows.graphs);
    fprintf(f, "],\n  \"captured\": [");
    json_rows(f, KPROF_TABLE_captured, s, s->k.ncaptured, NULL);
    fprintf(f, "],\n");

    fprintf(f, "  \"copies\": [");
    json_rows(f, KPROF_TABLE_copies, &s->rows.copies, s->rows.copies.n, NULL);
    fprintf(f, "],\n");

    fprintf(f, "  \"memsets\": ");
    kprof_json_object(f, KPROF_TABLE_copies, &s->rows.memsets, 0, KPROF_COL_LABEL);
    fprintf(f, ",\n");

    fprintf(f, "  \"allocations\": [");
    json_rows(f, KPROF_TABLE_allocations, s, KPROF_MEM_COUNT, NULL);
    fprintf(f, "],\n");

    fprintf(f, "  \"devices\": [");
    json_rows(f, KPROF_TABLE_devices, s, s->devices.ndevices, NULL);
    fprintf(f, "],\n");

    fprintf(f, "  \"api\": [");
    json_rows(f, KPROF_TABLE_api, s, KPROF_API_COUNT, api_called);
    fprintf(f, "],\n");

    fprintf(f, "  \"calibration\": [");
    for (size_t i = 0; i < s->events.ncalibs; i++) {
        const struct kprof_calibration *c = &s->events.calibs[i];
        fprintf(f, "%s\n    {\"device\": %d, \"state\": ", i ? "," : "", c->device);
        kprof_json_string(f, kprof_calib_state_text(c->state));
        fprintf(f, ", \"cost_ns\": %llu, \"samples\": %u, \"holds\": %s", U(c->cost_ns), c->samples,
                c->hold.ok ? "true" : "false");
        for (int sh = 0; sh < KPROF_START_COUNT; sh++) {
            fprintf(f, ", \"%s\": {", sh ? "handoff_shared_ns" : "handoff_ns");
            for (int p = 0; p < (sh ? KPROF_PRED_SHARED_COUNT : KPROF_PRED_COUNT); p++) {
                fprintf(f, "%s\"%s\": ", p ? ", " : "", kprof_pred_names[p]);
                if (c->handoff_known[sh][p])
                    kprof_json_real(f, c->handoff_ns[sh][p]); /* exact: the text report writes it in us */
                else
                    fprintf(f, "null"); /* not measured: nothing taken off */
            }
            fprintf(f, "}");
        }
        fprintf(f, ", \"beside_htod_ns\": ");
        kprof_json_real(f, c->beside_htod_ns);
        fprintf(f, ", \"seen_ns\": ");
        kprof_json_real(f, c->seen_ns);
        fprintf(f, ", \"param_ns_per_kib\": ");
        kprof_json_real(f, c->param_ns_per_kib);
        fprintf(f, "}");
    }
    fprintf(f, "%s],\n", s->events.ncalibs ? "\n  " : "");

    fprintf(f, "  \"events\": {");
    const char *sep = "";
#define EVENT_COUNTER(field, key)                                                                  \
    fprintf(f, "%s\"" key "\": %ld", sep, s->events.n.field);                                       \
    sep = ", ";
    KPROF_EVENT_COUNTERS(EVENT_COUNTER)
#undef EVENT_COUNTER
    fprintf(f, "}\n}\n");
}
