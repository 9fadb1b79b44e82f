/* report_csv.c: the report as CSV, one file per table (<base>.kernels.csv, .graphs.csv, .captured.csv,
 * .copies.csv, .memsets.csv, .allocations.csv, .devices.csv, .api.csv, .context_init.csv, .summary.csv,
 * .calibration.csv), each with a header row; times in ns, sizes in bytes.  Columns are documented in
 * man/libkprof.7. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate.h"
#include "kprof_config.h"
#include "kernel.h"
#include "snapshot.h"
#include "report_writers.h"
#include "output.h"
#include "columns.h"

#define U(x) ((unsigned long long)(x))

/* Where the CSV files go, and the first that could not be written. */
struct csv_dest {
    const char *base;
    int chosen;     /* libkprof chose the base name: files created anew, mode 0600 */
    int ok;         /* 0 once a file could not be written */
    char *failed;   /* the first such file (malloc'd; NULL when out of memory) */
    const char *why;
};

static void csv_failed(struct csv_dest *c, const char *path, const char *why)
{
    if (!c->ok)
        return;
    c->ok = 0;
    c->failed = strdup(path);
    c->why = why;
}

/* "<base>.<table>.csv", malloc'd. */
static char *csv_path(const struct csv_dest *c, const char *table)
{
    size_t n = strlen(c->base) + strlen(table) + 8;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s.%s.csv", c->base, table);
    return path;
}

static FILE *csv_open(struct csv_dest *c, const char *table)
{
    char *path = csv_path(c, table);
    const char *why = "out of memory";
    int sibling;
    FILE *f = path ? kprof_output_open(path, c->chosen, &why, &sibling) : NULL;
    if (!f)
        csv_failed(c, path ? path : c->base, why);
    free(path);
    return f;
}

static void csv_close(struct csv_dest *c, FILE *f, const char *table)
{
    int bad = ferror(f);
    errno = 0;
    if ((fclose(f) != 0) | bad) {
        const char *why = strerror(errno ? errno : EIO);
        char *path = csv_path(c, table);
        csv_failed(c, path ? path : c->base, why);
        free(path);
    }
}

/* A table of columns.def with its header row: rows 0 to n - 1 of ctx, without the columns flagged `skip`. */
static void csv_table(FILE *f, int table, const void *ctx, size_t n, unsigned skip)
{
    kprof_csv_header(f, table, skip);
    for (size_t i = 0; i < n; i++)
        kprof_csv_row(f, table, ctx, i, skip);
}

int kprof_report_csv(const char *base, int chosen, const struct kprof_snapshot *s, char **failed, const char **why)
{
    struct csv_dest dest = { base, chosen, 1, NULL, NULL };
    FILE *f;

    if ((f = csv_open(&dest, "summary"))) {
        /* The events line's counters: the first five under the names summary.csv has always used, the
         * others (sample.h's KPROF_EVENT_COUNTERS after one_event) under their JSON names. */
        static const char *const keys[] = {
#define EVENT_KEY(field, key) key,
            KPROF_EVENT_COUNTERS(EVENT_KEY)
#undef EVENT_KEY
        };
        const long vals[] = {
#define EVENT_VAL(field, key) s->events.n.field,
            KPROF_EVENT_COUNTERS(EVENT_VAL)
#undef EVENT_VAL
        };
        enum { LEGACY = 5 }; /* created, incomplete, failed, untimed_no_event, one_event */
        fprintf(f, "pid,host,command,wall_ns,sample_period,events_created,pairs_incomplete,pairs_failed,untimed_no_event,"
                   "one_event");
        for (size_t i = LEGACY; i < sizeof keys / sizeof keys[0]; i++)
            fprintf(f, ",%s", keys[i]);
        fprintf(f, ",rank"); /* the launcher's (JSON "rank"; empty for none), last: the columns before keep their places */
        fprintf(f, "\n%ld,", s->pid);
        kprof_csv_string(f, s->host);
        fputc(',', f);
        kprof_csv_string(f, s->command);
        fprintf(f, ",%llu,%ld", U(s->wall_ns), kprof_config.sample);
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
            fprintf(f, ",%ld", vals[i]);
        if (s->rank >= 0)
            fprintf(f, ",%ld", s->rank);
        else
            fputc(',', f);
        fputc('\n', f);
        csv_close(&dest, f, "summary");
    }
    if ((f = csv_open(&dest, "context_init"))) {
        csv_table(f, KPROF_TABLE_context_init, s, s->apitable.nctx_inits, 0);
        csv_close(&dest, f, "context_init");
    }
    if ((f = csv_open(&dest, "kernels"))) {
        csv_table(f, KPROF_TABLE_kernels, &s->rows.kernels, s->rows.kernels.n, 0);
        csv_close(&dest, f, "kernels");
    }
    if ((f = csv_open(&dest, "graphs"))) {
        csv_table(f, KPROF_TABLE_kernels, &s->rows.graphs, s->rows.graphs.n, 0);
        csv_close(&dest, f, "graphs");
    }
    if ((f = csv_open(&dest, "captured"))) {
        csv_table(f, KPROF_TABLE_captured, s, s->k.ncaptured, 0);
        csv_close(&dest, f, "captured");
    }
    if ((f = csv_open(&dest, "copies"))) {
        csv_table(f, KPROF_TABLE_copies, &s->rows.copies, s->rows.copies.n, 0);
        csv_close(&dest, f, "copies");
    }
    if ((f = csv_open(&dest, "memsets"))) {
        /* one row, none without memsets (as the copies' directions and the graphs) */
        csv_table(f, KPROF_TABLE_copies, &s->rows.memsets, s->transfers.memsets.count ? 1 : 0, KPROF_COL_LABEL);
        csv_close(&dest, f, "memsets");
    }
    if ((f = csv_open(&dest, "allocations"))) {
        csv_table(f, KPROF_TABLE_allocations, s, KPROF_MEM_COUNT, 0);
        csv_close(&dest, f, "allocations");
    }
    if ((f = csv_open(&dest, "devices"))) {
        csv_table(f, KPROF_TABLE_devices, s, s->devices.ndevices, 0);
        csv_close(&dest, f, "devices");
    }
    if ((f = csv_open(&dest, "api"))) {
        kprof_csv_header(f, KPROF_TABLE_api, 0);
        for (size_t i = 0; i < KPROF_API_COUNT; i++)
            if (kprof_api_counted[i] && s->apitable.api[i].calls)
                kprof_csv_row(f, KPROF_TABLE_api, s, i, 0);
        csv_close(&dest, f, "api");
    }
    if ((f = csv_open(&dest, "calibration"))) {
        fprintf(f, "device,state,cost_ns,samples,start,predecessor,handoff_ns\n");
        for (size_t i = 0; i < s->events.ncalibs; i++) {
            const struct kprof_calibration *c = &s->events.calibs[i];
            for (int sh = 0; sh < KPROF_START_COUNT; sh++)
                for (int p = 0; p < (sh ? KPROF_PRED_SHARED_COUNT : KPROF_PRED_COUNT); p++) {
                    fprintf(f, "%d,", c->device);
                    kprof_csv_string(f, kprof_calib_state_text(c->state));
                    fprintf(f, ",%llu,%u,%s,%s,", U(c->cost_ns), c->samples, sh ? "shared" : "own", kprof_pred_names[p]);
                    if (c->handoff_known[sh][p]) /* else empty: not measured */
                        fprintf(f, "%.0f", c->handoff_ns[sh][p]);
                    fputc('\n', f);
                }
            fprintf(f, "%d,", c->device); /* and what a start beside another stream's HtoD copy waits more */
            kprof_csv_string(f, kprof_calib_state_text(c->state));
            fprintf(f, ",%llu,%u,own,beside_htod,%.0f\n", U(c->cost_ns), c->samples, c->beside_htod_ns);
            fprintf(f, "%d,", c->device); /* and how soon after its record an event can be seen complete */
            kprof_csv_string(f, kprof_calib_state_text(c->state));
            fprintf(f, ",%llu,%u,own,seen,%.0f\n", U(c->cost_ns), c->samples, c->seen_ns);
            fprintf(f, "%d,", c->device); /* and what each KiB of a kernel's parameters adds to its hand-off */
            kprof_csv_string(f, kprof_calib_state_text(c->state));
            fprintf(f, ",%llu,%u,own,per_param_kib,%.0f\n", U(c->cost_ns), c->samples, c->param_ns_per_kib);
        }
        csv_close(&dest, f, "calibration");
    }
    *failed = dest.failed;
    *why = dest.why;
    return dest.ok;
}
