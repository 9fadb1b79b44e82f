/* report-read.c: a libkprof JSON report read back into struct kprof_snapshot, the inverse of
 * src/report/report_json.c, with the keys of src/columns.def. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "kprof_config.h"
#include "kernel.h"
#include "transfers.h"
#include "calibrate.h"
#include "snapshot.h"
#include "columns.h"
#include "report-read.h"
#include "text-report.h"
#include "kernel_name.h"
#include "report-stubs.h"

/* A column's JSON key (columns.def). */
#define KEY(table, id) (kprof_columns[KPROF_COL_##table##_##id].json_key)

/* Out of memory is the one error kprof-report cannot work around: a message and exit status 1. */
static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("kprof: out of memory\n", stderr);
        exit(1);
    }
    return p;
}
static char *xstrdup(const char *s)
{
    char *d = xcalloc(strlen(s) + 1, 1);
    return strcpy(d, s);
}

/* o[key] when o is an object and the value is not null; borrowed. */
static json_t *get(json_t *o, const char *key)
{
    json_t *v = json_is_object(o) && key ? json_object_get(o, key) : NULL;
    return json_is_null(v) ? NULL : v;
}
/* o[key] as an unsigned integer (a real rounded, a negative or missing one 0). */
static uint64_t u64(json_t *o, const char *key)
{
    json_t *v = get(o, key);
    if (json_is_integer(v))
        return json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
    double d = json_is_real(v) ? json_real_value(v) : 0.0;
    return !(d > 0) ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)(d + 0.5);
}
static long lng(json_t *o, const char *key)
{
    json_t *v = get(o, key);
    return json_is_integer(v) ? (long)json_integer_value(v) : 0;
}
/* o[key] as a double (an integer converted), 0 when missing. */
static double real(json_t *o, const char *key)
{
    json_t *v = get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}
/* o[key] as a string, "" when missing; borrowed. */
static const char *str(json_t *o, const char *key)
{
    json_t *v = get(o, key);
    return json_is_string(v) ? json_string_value(v) : "";
}
/* The index of name in names[0..n), or -1. */
static int lookup(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return i;
    return -1;
}
static void read_dim3(json_t *o, const char *key, unsigned out[3])
{
    json_t *a = get(o, key);
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_array_get(a, i);
        out[i] = json_is_integer(v) ? (unsigned)json_integer_value(v) : 0;
    }
}

/* A kernels-style row (kernels, or graphs when graph): malloc'd, released by kprof_saved_free.  *old is
 * set when the report lacks steady_ns or steady_m2 (its average and spread rebuilt from rounded values). */
static struct kprof_kernel *read_kernel(json_t *e, int graph, int *old, enum kprof_names names)
{
    struct kprof_saved_kernel *sk = xcalloc(1, sizeof *sk);
    struct kprof_kernel *k = &sk->k;
    k->name = xstrdup(str(e, KEY(kernels, name)));
    if (names == KPROF_NAMES_BASE) /* the text report's name, as libkprof made it (kernels.c) */
        k->base = kprof_kernel_base_name(k->name);
    k->mangled = xstrdup(str(e, KEY(kernels, mangled)));
    k->selected = 1;
    k->is_graph = graph;
    k->calls = u64(e, KEY(kernels, calls));
    k->timed = u64(e, KEY(kernels, timed));
    /* total_ns is the estimate kprof_kernel_total() makes again from the measured sum (KPROF_SAMPLE). */
    k->total_ns = get(e, KEY(kernels, measured)) ? u64(e, KEY(kernels, measured)) : u64(e, KEY(kernels, total));
    k->graph_calls = u64(e, KEY(kernels, graph_calls));
    /* A sampled kernel's total_ns (KPROF_SAMPLE) is kept as the run estimated it, with its interval. */
    if (get(e, KEY(kernels, total_ci95)) && !graph && k->timed < kprof_kernel_direct(k)) {
        k->estimated = 1;
        k->est_total_ns = (double)u64(e, KEY(kernels, total));
        k->est_ci95_ns = real(e, KEY(kernels, total_ci95));
    }
    k->in_conditional = json_is_true(get(e, KEY(kernels, in_conditional)));
    k->first_timed = get(e, KEY(kernels, first)) != NULL && k->timed > 0;
    k->first_ns = u64(e, KEY(kernels, first));
    k->min_ns = u64(e, KEY(kernels, min));
    k->max_ns = u64(e, KEY(kernels, max));
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (get(e, KEY(kernels, steady)) && get(e, KEY(kernels, steady_m2))) {
        k->steady_ns = u64(e, KEY(kernels, steady));
        k->m2 = real(e, KEY(kernels, steady_m2));
    } else {
        double sd = real(e, KEY(kernels, stddev));
        k->steady_ns = (uint64_t)llround(real(e, KEY(kernels, avg)) * (double)n);
        k->m2 = n > 1 ? sd * sd * (double)(n - 1) : 0.0;
        *old = 1;
    }
    k->mean_ns = n ? (double)k->steady_ns / (double)n : 0.0;
    k->w_sum = real(e, KEY(kernels, steady_w)); /* KPROF_SAMPLE=auto's weighed sums; 0 otherwise */
    k->wx_sum = real(e, KEY(kernels, steady_wx));
    k->wxx_sum = real(e, KEY(kernels, steady_wxx));
    sk->median_ns = u64(e, KEY(kernels, median));
    sk->instances_median_ns = real(e, KEY(kernels, nsys_median));
    sk->p95_ns = u64(e, KEY(kernels, p95));
    sk->p99_ns = u64(e, KEY(kernels, p99));
    static const int split_cols[2][2] = { { KPROF_COL_kernels_launch_host_med, KPROF_COL_kernels_launch_host_p95 },
                                          { KPROF_COL_kernels_queue_med, KPROF_COL_kernels_queue_p95 } };
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 2; i++) {
            const char *key = kprof_columns[split_cols[w][i]].json_key;
            sk->split_known[w][i] = json_is_integer(get(e, key));
            sk->split_ns[w][i] = u64(e, key);
        }
    read_dim3(e, KEY(kernels, grid), k->grid);
    read_dim3(e, KEY(kernels, block), k->block);
    return k;
}

static void read_copy(json_t *e, struct kprof_copy *c)
{
    c->count = u64(e, KEY(copies, count));
    c->bytes = u64(e, KEY(copies, bytes));
    c->timed = u64(e, KEY(copies, timed));
    c->timed_bytes = u64(e, KEY(copies, timed_bytes));
    c->total_ns = u64(e, KEY(copies, total));
    c->min_ns = u64(e, KEY(copies, min));
    c->max_ns = u64(e, KEY(copies, max));
    /* nsys's figures (kprof_copy_instances): the mean and sum of squares rebuilt from the saved spread. */
    double sd = real(e, KEY(copies, nsys_stddev));
    c->mean_ns = c->timed ? (double)c->total_ns / (double)c->timed : 0.0;
    c->m2 = c->timed > 1 ? sd * sd * (double)(c->timed - 1) : 0.0;
    kprof_saved_copy_median(c, real(e, KEY(copies, nsys_median)));
}

/* A warning about the report being read: one "kprof: <file>: ..." line. */
#define WARN(r, fmt, ...) fprintf(stderr, "kprof: %s: " fmt "\n", (r)->file, __VA_ARGS__)

/* Fills r->s from the report's object root. */
static void read_root(struct kprof_saved *r, json_t *root)
{
    struct kprof_snapshot *s = &r->s;
    json_t *arr, *e;
    size_t i;
    int old = 0;

    s->pid = lng(root, "pid");
    s->rank = json_is_integer(get(root, "rank")) ? lng(root, "rank") : -1;
    snprintf(s->host, sizeof s->host, "%s", str(root, "host"));
    snprintf(s->command, sizeof s->command, "%s", str(root, "command"));
    s->wall_ns = u64(root, "wall_ns");
    r->sample = get(root, "sample_period") ? lng(root, "sample_period") : 1;
    r->seed = lng(root, "sample_seed");
    r->budget = get(root, "sample_budget") ? lng(root, "sample_budget") : 2000;
    r->group = strcmp(str(root, "group"), "shape") == 0 ? KPROF_GROUP_SHAPE : KPROF_GROUP_NAME;
    const char *nm = str(root, "names"); /* absent from reports before it was saved: demangled, whole */
    r->names = strcmp(nm, "base") == 0 ? KPROF_NAMES_BASE : strcmp(nm, "mangled") == 0 ? KPROF_NAMES_MANGLED
                                                                                      : KPROF_NAMES_DEMANGLED;
    r->name_width = lng(root, "name_width");
    /* KPROF_TOP as saved (absent from reports before it was: 0, every kernel); another value is warned of. */
    json_t *top = get(root, "top");
    r->top = lng(root, "top");
    if (top && (!json_is_integer(top) || r->top < 0 || r->top > 1073741824L)) {
        fprintf(stderr, "kprof: %s: its \"top\" is not a whole number from 0 to 1073741824: every kernel shown\n",
                r->file);
        r->top = 0;
    }
    s->k.nfiltered = (size_t)u64(root, "filtered_kernels");
    s->k.kernel_total_ns = u64(root, "kernel_total_ns");

    arr = get(root, "context_init");
    s->apitable.ctx_inits = xcalloc(json_array_size(arr), sizeof *s->apitable.ctx_inits);
    json_array_foreach(arr, i, e) {
        int api = lookup(kprof_api_names, KPROF_API_COUNT, str(e, KEY(context_init, api)));
        if (api < 0) {
            WARN(r, "context init by '%s', an API this kprof does not know: left out", str(e, KEY(context_init, api)));
            continue;
        }
        struct kprof_ctx_init *c = &s->apitable.ctx_inits[s->apitable.nctx_inits++];
        c->device = (int)lng(e, KEY(context_init, device));
        c->api = api;
        const char *drv = str(e, KEY(context_init, driver_api));
        c->driver = *drv ? lookup(kprof_api_names, KPROF_API_COUNT, drv) : -1;
        c->host_ns = u64(e, KEY(context_init, host));
        c->start_ns = get(e, KEY(context_init, start)) ? u64(e, KEY(context_init, start))
                                                        : KPROF_START_UNKNOWN; /* a libkprof that did not save it */
        kprof_api_pair_label(c->label, sizeof c->label, c->api, c->driver);
    }

    arr = get(root, "kernels");
    s->k.kernels = xcalloc(json_array_size(arr), sizeof *s->k.kernels);
    json_array_foreach(arr, i, e)
        s->k.kernels[s->k.nkernels++] = read_kernel(e, 0, &old, r->names);
    arr = get(root, "graphs");
    s->graphs.rows = xcalloc(json_array_size(arr), sizeof *s->graphs.rows);
    json_array_foreach(arr, i, e)
        s->graphs.rows[s->graphs.n++] = read_kernel(e, 1, &old, r->names);
    if (old)
        WARN(r, "%s", "written by a libkprof without steady_ns and steady_m2: averages and standard deviations "
                      "rebuilt from rounded values");
    /* KPROF_AUTO_CHECK=1: what auto would have estimated, on the kernel rows it names (in the rows' order). */
    json_t *check = get(root, "auto_check");
    r->auto_check = json_is_object(check);
    json_array_foreach(get(check, "kernels"), i, e) {
        for (size_t j = 0; j < s->k.nkernels; j++) {
            struct kprof_kernel *k = s->k.kernels[j];
            if (k->checked || strcmp(k->name, str(e, "name")) != 0 || strcmp(k->mangled, str(e, "mangled")) != 0)
                continue;
            k->checked = 1;
            k->check_timed = u64(e, "auto_timed");
            k->check_total_ns = real(e, "auto_total_ns");
            k->check_ci95_ns = real(e, "auto_ci95_ns");
            break;
        }
    }
    arr = get(root, "captured");
    s->k.captured = xcalloc(json_array_size(arr), sizeof *s->k.captured);
    json_array_foreach(arr, i, e) {
        struct kprof_saved_kernel *sk = xcalloc(1, sizeof *sk);
        sk->k.name = xstrdup(str(e, KEY(captured, name)));
        sk->k.mangled = xstrdup(str(e, KEY(captured, mangled)));
        sk->k.captured = u64(e, KEY(captured, launches));
        if (r->names == KPROF_NAMES_BASE) /* as read_kernel: the text report's name */
            sk->k.base = kprof_kernel_base_name(sk->k.name);
        s->k.captured[s->k.ncaptured++] = &sk->k;
    }

    arr = get(root, "copies");
    json_array_foreach(arr, i, e) {
        int d = lookup(kprof_dir_names, KPROF_DIR_COUNT, str(e, KEY(copies, direction)));
        int h = get(e, KEY(copies, host_memory)) ? lookup(kprof_host_mem_names, KPROF_HOST_COUNT,
                                                          str(e, KEY(copies, host_memory)))
                                                 : KPROF_HOST_NONE;
        if (d < 0 || h < 0) {
            WARN(r, "copies '%s' to or from '%s' memory, unknown to this kprof: left out", str(e, KEY(copies, direction)),
                 str(e, KEY(copies, host_memory)));
            continue;
        }
        read_copy(e, &s->transfers.copies[d][h]);
    }
    read_copy(get(root, "memsets"), &s->transfers.memsets);

    arr = get(root, "allocations");
    json_array_foreach(arr, i, e) {
        int m = lookup(kprof_mem_names, KPROF_MEM_COUNT, str(e, KEY(allocations, kind)));
        if (m < 0) {
            WARN(r, "allocations of kind '%s', unknown to this kprof: left out", str(e, KEY(allocations, kind)));
            continue;
        }
        struct kprof_alloc_stat *a = &s->allocs.alloc[m];
        a->count = u64(e, KEY(allocations, count));
        a->bytes = u64(e, KEY(allocations, bytes));
        a->frees = u64(e, KEY(allocations, frees));
        a->freed_bytes = u64(e, KEY(allocations, freed_bytes));
        a->host_ns = u64(e, KEY(allocations, host));
        a->peak = u64(e, KEY(allocations, peak));
        a->in_use = u64(e, KEY(allocations, in_use));
    }

    arr = get(root, "devices");
    s->devices.devices = xcalloc(json_array_size(arr), sizeof *s->devices.devices);
    json_array_foreach(arr, i, e) {
        struct kprof_device_stat *d = &s->devices.devices[s->devices.ndevices++];
        d->device = (int)lng(e, KEY(devices, device));
        d->kernels = u64(e, KEY(devices, kernels));
        d->kernel_ns = u64(e, KEY(devices, kernel));
        d->busy_ns = u64(e, KEY(devices, busy));
        snprintf(d->uuid, sizeof d->uuid, "%s", str(e, KEY(devices, uuid)));
    }

    arr = get(root, "api");
    json_array_foreach(arr, i, e) {
        int api = lookup(kprof_api_names, KPROF_API_COUNT, str(e, KEY(api, name)));
        if (api < 0 || !kprof_api_counted[api]) {
            WARN(r, "API '%s', unknown to this kprof: left out", str(e, KEY(api, name)));
            continue;
        }
        struct kprof_api_stat *a = &s->apitable.api[api];
        a->calls = u64(e, KEY(api, calls));
        a->errors = u64(e, KEY(api, errors));
        a->total_ns = u64(e, KEY(api, total));
        a->median_ns = u64(e, KEY(api, median));
        a->mid_ns = real(e, KEY(api, nsys_median));
        a->stddev_ns = real(e, KEY(api, nsys_stddev));
        a->min_ns = u64(e, KEY(api, min));
        a->max_ns = u64(e, KEY(api, max));
    }

    arr = get(root, "calibration");
    json_array_foreach(arr, i, e) {
        if (s->events.ncalibs == sizeof s->events.calibs / sizeof s->events.calibs[0])
            break;
        struct kprof_calibration *c = &s->events.calibs[s->events.ncalibs++];
        const char *state = str(e, "state");
        c->state = KPROF_CALIB_NONE;
        for (int st = KPROF_CALIB_NONE; st <= KPROF_CALIB_FAILED; st++)
            if (strcmp(state, kprof_calib_state_text((enum kprof_calib_state)st)) == 0)
                c->state = (enum kprof_calib_state)st;
        if (c->state == KPROF_CALIB_NONE && strcmp(state, kprof_calib_state_text(KPROF_CALIB_NONE)) != 0)
            WARN(r, "calibration state '%s', unknown to this kprof: read as '%s'", state,
                 kprof_calib_state_text(KPROF_CALIB_NONE));
        c->device = (int)lng(e, "device");
        c->cost_ns = u64(e, "cost_ns");
        c->samples = (unsigned)u64(e, "samples");
        c->hold.ok = json_is_true(get(e, "holds"));
        for (int sh = 0; sh < KPROF_START_COUNT; sh++) {
            json_t *h = get(e, sh ? "handoff_shared_ns" : "handoff_ns");
            for (int p = 0; p < (sh ? KPROF_PRED_SHARED_COUNT : KPROF_PRED_COUNT); p++) {
                /* null: not measured (nothing taken off); missing: a report older than that, its 0 measured */
                json_t *v = json_is_object(h) ? json_object_get(h, kprof_pred_names[p]) : NULL;
                if (!v && c->state == KPROF_CALIB_DONE)
                    WARN(r, "calibration without a hand-off after '%s': read as 0", kprof_pred_names[p]);
                c->handoff_ns[sh][p] = real(h, kprof_pred_names[p]);
                c->handoff_known[sh][p] = !json_is_null(v);
            }
        }
        c->beside_htod_ns = real(e, "beside_htod_ns"); /* 0 in reports before it */
        c->seen_ns = real(e, "seen_ns");
        c->param_ns_per_kib = real(e, "param_ns_per_kib"); /* 0 in reports before it */
    }

    json_t *ev = get(root, "events");
#define EVENT_COUNTER(field, key) s->events.n.field = lng(ev, key);
    KPROF_EVENT_COUNTERS(EVENT_COUNTER)
#undef EVENT_COUNTER
}

bool kprof_saved_read(struct kprof_saved *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->file = xstrdup(path);
    json_error_t err;
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "kprof: %s: %s\n", path, strerror(errno));
        kprof_saved_free(r);
        return false;
    }
    json_t *root = json_loadf(in, 0, &err);
    int read_errno = ferror(in) ? errno : 0;
    fclose(in);
    const char *why = NULL;
    if (!root && read_errno) {
        fprintf(stderr, "kprof: %s: %s\n", path, strerror(read_errno));
    } else if (!root && kprof_file_is_text_report(path)) {
        fprintf(stderr, "kprof: %s: a libkprof text report, not JSON: kprof report reads the JSON one (save it with "
                        "kprof --save FILE, or kprof -f json -o FILE)\n", path);
    } else if (!root && kprof_file_is_csv(path)) {
        fprintf(stderr, "kprof: %s: a libkprof CSV table, not JSON: kprof report reads the JSON report (save it with "
                        "kprof --save FILE, or kprof -f json -o FILE)\n", path);
    } else if (!root) {
        if (err.line > 0)
            fprintf(stderr, "kprof: %s:%d: %s\n", path, err.line, err.text);
        else
            fprintf(stderr, "kprof: %s: %s\n", path, err.text);
    } else if (!json_is_object(root) || !json_is_integer(json_object_get(root, "schema_version"))) {
        why = "not a libkprof JSON report";
    } else if (json_integer_value(json_object_get(root, "schema_version")) != 1) {
        why = "schema_version is not 1: written by a libkprof this kprof does not know";
    } else if (strcmp(str(root, "tool"), "libkprof") != 0) {
        why = strcmp(str(root, "tool"), "kprof-merge") == 0
                  ? "a kprof-merge summary, not a libkprof report (give kprof report the reports it merged)"
                  : "not a libkprof JSON report (its tool is not libkprof)";
    } else {
        read_root(r, root);
        json_decref(root);
        kprof_rows_take(&r->s.rows, &r->s);
        return true;
    }
    if (why)
        fprintf(stderr, "kprof: %s: %s\n", path, why);
    json_decref(root);
    kprof_saved_free(r);
    return false;
}

void kprof_saved_apply(const struct kprof_saved *r)
{
    kprof_config.sample = r->sample;
    kprof_config.seed = r->seed;
    kprof_config.sample_budget = r->budget;
    kprof_config.group = r->group;
    kprof_config.names = r->names;
    kprof_config.name_width = r->name_width > 0 ? r->name_width : 0;
    kprof_config.top = r->top > 0 ? r->top : 0;
    kprof_config.auto_check = r->auto_check;
}

/* Releases the kernel rows of one array (each a struct kprof_saved_kernel), and the array. */
static void free_rows(struct kprof_kernel **rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i]->name);
        free(rows[i]->base);
        free(rows[i]->mangled);
        free(rows[i]); /* the struct kprof_saved_kernel it begins */
    }
    free(rows);
}

void kprof_saved_free(struct kprof_saved *r)
{
    kprof_rows_free(&r->s.rows);
    free_rows(r->s.k.kernels, r->s.k.nkernels);
    free_rows(r->s.graphs.rows, r->s.graphs.n);
    free_rows(r->s.k.captured, r->s.k.ncaptured);
    free(r->s.devices.devices);
    free(r->s.apitable.ctx_inits);
    free(r->file);
    memset(r, 0, sizeof *r);
}
