/* kprof-merge.c: merges the JSON reports of many profiled processes (MPI ranks, torchrun workers) into one summary. */
#include "config.h"
#include "units.h"
#include "textput.h"
#include "column.h"
#include "column_values.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

/* The prefix of its messages: "kprof" where kprof report runs this code (report-merge.c), so that one
 * command's messages all begin alike. */
#ifndef KPROF_MERGE_PREFIX
#define KPROF_MERGE_PREFIX "kprof-merge"
#endif

/* Out of memory is the one error kprof-merge cannot work around: a message and exit status 1. */
static void out_of_memory(void)
{
    fputs(KPROF_MERGE_PREFIX ": out of memory\n", stderr);
    exit(1);
}
#define uthash_fatal(msg) out_of_memory()
#include <uthash.h>
#include "utf8.h"
#include "text-report.h"

/* ------------------------------------------------------------------------------------------ utilities */

/* Prints one line "kprof-merge: <message>" on stderr (KPROF_MERGE_PREFIX). */
static void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(KPROF_MERGE_PREFIX ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* malloc/realloc/strdup that never return NULL (they exit through out_of_memory instead). */
static void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}
static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        out_of_memory();
    return d;
}

/* A copy of s (owned by the caller) in which each byte that is not part of valid UTF-8 is replaced by
 * U+FFFD: jansson takes only valid UTF-8 strings, and a file name (a process label) is just bytes. */
static char *utf8_dup(const char *s)
{
    size_t n = strlen(s);
    if (n > (SIZE_MAX - 1) / 3)
        out_of_memory();
    char *d = xrealloc(NULL, 3 * n + 1), *o = d;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int l = kprof_utf8_len(p);
        if (l) {
            memcpy(o, p, (size_t)l);
            o += l;
            p += l;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = '\0';
    return d;
}

/* Makes room for one more element in the growable array *arr of *n elements of elem_size bytes, *cap
 * allocated; returns a pointer to the new, zeroed element at index *n and increments *n.  The array stays
 * owned by the caller; exits on out of memory. */
static void *push(void *arr, size_t *n, size_t *cap, size_t elem_size)
{
    void **a = arr;
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        if (c > SIZE_MAX / elem_size)
            out_of_memory();
        *a = xrealloc(*a, c * elem_size);
        *cap = c;
    }
    char *e = (char *)*a + (*n)++ * elem_size;
    memset(e, 0, elem_size);
    return e;
}

/* Reads the non-negative number obj[key] as an unsigned integer (a real is rounded; negative values read as
 * 0) into *out; returns false, leaving *out alone, when obj is not an object or key is missing or not a
 * number.  Borrowed reference only. */
static bool get_u64(json_t *obj, const char *key, uint64_t *out)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        *out = i > 0 ? (uint64_t)i : 0;
        return true;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        /* Rounded; 2^64 and above (and +inf) saturate, NaN and negatives read as 0.  Below 2^64, d + 0.5
         * stays below 2^64 (the largest double below it is 2^64 - 2048), so the conversion is defined. */
        *out = !(d > 0) ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)(d + 0.5);
        return true;
    }
    return false;
}
/* get_u64, with 0 for a missing field. */
static uint64_t u64_or_0(json_t *obj, const char *key)
{
    uint64_t v = 0;
    get_u64(obj, key, &v);
    return v;
}
/* obj[key] when it is a non-empty string, else NULL; the string is borrowed from obj. */
static const char *get_str(json_t *obj, const char *key)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    return s && *s ? s : NULL;
}

/* A JSON integer for an unsigned count or time (clamped to the largest json_int_t); a new reference. */
static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* *sum += v, saturating at UINT64_MAX instead of wrapping (a sum over many processes must not wrap
 * round to a small number). */
static void add(uint64_t *sum, uint64_t v)
{
    *sum = *sum > UINT64_MAX - v ? UINT64_MAX : *sum + v;
}

/* ------------------------------------------------------------------------------- the report's columns */

/* The JSON key of column id of libkprof's table `table` (src/columns.def, the one list of columns); NULL
 * for a column that is not in JSON. */
#define K(table, id) (kprof_columns[KPROF_COL_##table##_##id].json_key)

/* --------------------------------------------------------------------------------------- merged state */

/* One merged process: label is "pid@host" ("rank N pid@host" with a launcher's rank), or the report's file
 * name (made valid UTF-8) when pid or host is missing. */
struct proc {
    char *label;       /* owned */
    const char *path;  /* its report's path (argv) */
    bool has_wall;
    uint64_t wall_ns;
};

/* One kernel, matched across processes by key (the mangled name, or the name when there is none). */
struct kernel {
    char *key;         /* owned; hash key */
    char *name;        /* owned; demangled name shown */
    uint64_t nproc;    /* processes that ran it */
    uint64_t calls, timed, total_ns;
    uint64_t measured_ns;      /* the timed launches' own time (total_ns is estimated under KPROF_SAMPLE) */
    double avg_w, avg_wx;      /* Avg/call's sums over processes: per process its timed launches and their
                                  time, each weighed by 1/p under KPROF_SAMPLE=auto (steady_w, steady_wx,
                                  the first launch at 1), so that the Avg describes every launch */
    double ci95_var;           /* KPROF_SAMPLE=auto: sum over processes of (total_ci95_ns / 1.96)^2 */
    bool estimated;            /* some process estimated its total (KPROF_SAMPLE, or launches outside graphs
                                  left untimed: their share extrapolated from the timed ones) */
    bool has_ci;               /* some process gave its estimate's interval (total_ci95_ns) */
    uint64_t min_ns, max_ns;   /* shortest and longest timed launch over processes, when has_minmax */
    bool has_minmax;
    uint64_t pmin_ns, pmax_ns; /* per-process total_ns, over the processes that ran it */
    size_t pmax_proc;  /* index in merge.procs of the first process with pmax_ns */
    bool open;         /* cur_* hold the contribution of the process being merged */
    size_t cur_proc;
    uint64_t cur_ns;
    struct kernel *next_open; /* the list of open kernels (ktable.open), while open */
    /* Host versus device time, [0] the launch call's host time, [1] the queue time: each process's median
     * with its timed launches (for the weighted median of the medians), and the largest p95 */
    struct median *split_medians[2];
    size_t nsplit[2], split_cap[2];
    uint64_t split_p95[2];
    bool has_split_p95[2];
    UT_hash_handle hh;
};

/* A table of struct kernel rows: libkprof's kernels, graphs (a graph's row is timed as a whole; its
 * label, "graph N", numbers the graphs in the order the process created them) or captured kernels
 * (calls: their launches into a capturing stream). */
struct ktable {
    struct kernel *hash;  /* uthash table */
    struct kernel *open;  /* the rows the report being merged has (linked by next_open), so that ending a
                           * report costs its own rows, not every row seen so far */
};

/* One API function's host times: sums over processes, shortest and longest call, and each process's
 * median with its calls (for the calls-weighted median of the medians). */
struct api {
    char *name;           /* owned */
    uint64_t nproc, calls, errors, total_ns, min_ns, max_ns;
    bool has_minmax;      /* some process had a call */
    struct median { uint64_t ns, calls; } *medians; /* owned */
    size_t nmedians, medians_cap;
};

/* One GPU: matched across processes by its UUID; a report's device without a UUID (libkprof before the
 * uuid column, or a driver older than CUDA 11.4) stays a row of its own, of its process. */
struct device {
    char *key;            /* owned: the UUID, or "<process label> device <index> (no UUID)" (as the text
                           * names it) */
    bool has_uuid;
    int64_t index;        /* the device's index in the first process that reported it */
    size_t first_proc;
    uint64_t nproc, kernels, kernel_ns, busy_ns;
};

/* Copies of one direction, or the memsets: sums over processes. */
struct xfer {
    char *key;         /* owned; direction name (NULL for memsets) */
    uint64_t count, bytes, timed, timed_bytes, total_ns;
};

/* Allocations of one kind: sums over processes, and the largest per-process peak. */
struct alloc {
    char *kind;        /* owned */
    uint64_t count, bytes, frees, freed_bytes, host_ns, peak_bytes;
    size_t peak_proc;  /* the first process with peak_bytes, when has_peak */
    bool has_peak;     /* some process had a peak above 0 */
};

/* A program the reports come from: the base name of the first word of a report's "command" (argv[0]:
 * every rank of one MPI job has the same), and the first report that named it. */
struct program {
    char *name;        /* owned */
    char *first_file;  /* owned; made valid UTF-8 */
};

/* An entry of the set of distinct hosts. */
struct host {
    const char *name;  /* borrowed from merge.hosts; hash key */
    UT_hash_handle hh;
};

/* A name's index in one of merge's arrays (procs by label, devices by key), so that 10,000 reports are not
 * each compared with every one before them (a breaker helper: 40,000 reports took 3.7 s, 76% in strcmp).
 * The name is borrowed from the array's entry (its own allocation, which outlives the entry's moves). */
struct name_index {
    const char *name;
    size_t i;
    UT_hash_handle hh;
};

/* Everything merged so far.  All pointers are owned; merge_free releases them. */
struct merge {
    struct proc *procs;
    size_t nprocs, procs_cap;
    char **hosts;      /* distinct host names, first-seen order */
    size_t nhosts, hosts_cap;
    struct program *programs; /* distinct programs, first-seen order */
    size_t nprograms, programs_cap;
    size_t skipped;
    long top;          /* --top: kernels shown in the text summary's kernels table; 0 = all */
    struct ktable kernels, graphs, captured;
    struct api *apis;
    size_t napis, apis_cap;
    struct device *devices;
    size_t ndevices, devices_cap;
    struct host *host_set;  /* uthash table of hosts[] (borrowed names) */
    struct name_index *proc_set, *device_set; /* procs[] by label, devices[] by key */
    struct xfer *copies;
    size_t ncopies, copies_cap;
    struct xfer memsets;
    struct alloc *allocs;
    size_t nallocs, allocs_cap;
    /* context init: per process, the sum of its contexts' host_ns */
    uint64_t ctx_procs, ctx_count, ctx_sum_ns, ctx_min_ns, ctx_max_ns;
    size_t ctx_min_proc, ctx_max_proc;
};

/* Adds name (borrowed) at index i to set. */
static void index_add(struct name_index **set, const char *name, size_t i)
{
    struct name_index *e = xrealloc(NULL, sizeof *e);
    e->name = name;
    e->i = i;
    HASH_ADD_KEYPTR(hh, *set, e->name, strlen(e->name), e);
}

/* The index of name in set, or (size_t)-1. */
static size_t index_find(struct name_index *set, const char *name)
{
    struct name_index *e;
    HASH_FIND_STR(set, name, e);
    return e ? e->i : (size_t)-1;
}

/* Releases set's entries (not the names). */
static void index_free(struct name_index **set)
{
    struct name_index *e, *tmp;
    HASH_ITER(hh, *set, e, tmp) {
        HASH_DEL(*set, e);
        free(e);
    }
}

/* Records host in m's distinct host list. */
static void add_host(struct merge *m, const char *host)
{
    struct host *e;
    HASH_FIND_STR(m->host_set, host, e);
    if (e)
        return;
    char **h = push(&m->hosts, &m->nhosts, &m->hosts_cap, sizeof *m->hosts);
    *h = xstrdup(host);
    e = xrealloc(NULL, sizeof *e);
    e->name = *h;
    HASH_ADD_KEYPTR(hh, m->host_set, e->name, strlen(e->name), e);
}

/* Records the program of a report's command (file: the report's path) in m's distinct program list;
 * a command that is missing or empty is not recorded. */
static void add_program(struct merge *m, const char *command, const char *file)
{
    if (!command)
        return;
    /* argv[0] (snapshot.c), whose path may hold spaces (cut at the first one, programs under 'sp ace/' read
     * 'sp': a breaker helper); a command saved with its options ("train --rank 0") up to the first. */
    const char *opts = strstr(command, " -");
    size_t len = opts ? (size_t)(opts - command) : strlen(command);
    const char *base = command;
    for (const char *c = command; c < command + len; c++)
        if (*c == '/')
            base = c + 1;
    len -= (size_t)(base - command);
    if (!len)
        return;
    for (size_t i = 0; i < m->nprograms; i++)
        if (strlen(m->programs[i].name) == len && !memcmp(m->programs[i].name, base, len))
            return;
    struct program *pg = push(&m->programs, &m->nprograms, &m->programs_cap, sizeof *m->programs);
    pg->name = xrealloc(NULL, len + 1);
    memcpy(pg->name, base, len);
    pg->name[len] = '\0';
    pg->first_file = utf8_dup(file);
}

/* Ends the contribution of the process being merged to kernel k: folds its total into the per-process
 * minimum, maximum and the process count. */
static void kernel_flush(struct kernel *k)
{
    if (!k->open)
        return;
    if (k->nproc == 0 || k->cur_ns < k->pmin_ns)
        k->pmin_ns = k->cur_ns;
    if (k->nproc == 0 || k->cur_ns > k->pmax_ns) {
        k->pmax_ns = k->cur_ns;
        k->pmax_proc = k->cur_proc;
    }
    k->nproc++;
    k->open = false;
}

/* Finds or adds the row of key (name shown: name, or key when NULL) in table t and opens it for process
 * p; returns the row. */
static struct kernel *ktable_row(struct ktable *t, size_t p, const char *key, const char *name)
{
    struct kernel *k;
    HASH_FIND_STR(t->hash, key, k);
    if (!k) {
        k = xrealloc(NULL, sizeof *k);
        memset(k, 0, sizeof *k);
        k->key = xstrdup(key);
        k->name = xstrdup(name ? name : key);
        HASH_ADD_KEYPTR(hh, t->hash, k->key, strlen(k->key), k);
    }
    if (k->open && k->cur_proc != p)
        kernel_flush(k);
    if (!k->open) {
        k->open = true;
        k->cur_proc = p;
        k->cur_ns = 0;
        k->next_open = t->open;
        t->open = k;
    }
    return k;
}

/* Ends the report being merged in table t: folds each of its rows' per-process figures. */
static void ktable_end_report(struct ktable *t)
{
    for (struct kernel *k = t->open; k; k = k->next_open)
        kernel_flush(k);
    t->open = NULL;
}

/* Adds one entry of a report's "kernels" or "graphs" array (the kernels table's columns), from process
 * number p, to t; returns false (nothing added) when the entry has neither mangled nor name. */
static bool merge_kernel(struct ktable *t, size_t p, json_t *e)
{
    const char *mangled = get_str(e, K(kernels, mangled)), *name = get_str(e, K(kernels, name));
    const char *key = mangled ? mangled : name;
    if (!key)
        return false;
    struct kernel *k = ktable_row(t, p, key, name);
    uint64_t total = u64_or_0(e, K(kernels, total)), timed = u64_or_0(e, K(kernels, timed)), v;
    add(&k->calls, u64_or_0(e, K(kernels, calls)));
    add(&k->timed, timed);
    add(&k->total_ns, total);
    /* Reports without measured_ns timed every launch: their total is measured. */
    uint64_t measured = json_object_get(e, K(kernels, measured)) ? u64_or_0(e, K(kernels, measured)) : total;
    add(&k->measured_ns, measured);
    json_t *sw = json_object_get(e, K(kernels, steady_w)), *swx = json_object_get(e, K(kernels, steady_wx));
    if (json_is_number(sw) && json_number_value(sw) > 0 && json_is_number(swx)) {
        uint64_t first = 0;
        bool has_first = get_u64(e, K(kernels, first), &first);
        k->avg_w += json_number_value(sw) + (has_first ? 1.0 : 0.0);
        k->avg_wx += json_number_value(swx) + (has_first ? (double)first : 0.0);
    } else {
        k->avg_w += (double)timed;
        k->avg_wx += (double)measured;
    }
    add(&k->cur_ns, total);
    /* Processes sample independently: the variances of their estimates add. */
    json_t *ci = json_object_get(e, K(kernels, total_ci95));
    if (json_is_number(ci) && json_number_value(ci) > 0)
        k->ci95_var += (json_number_value(ci) / 1.96) * (json_number_value(ci) / 1.96);
    /* An estimate: sampled, or launches left untimed for lack of events, their share extrapolated (reports
     * older than measured_ns summed what they timed). */
    if ((json_is_number(ci) && json_number_value(ci) > 0) || measured != total) {
        k->estimated = true;
        k->has_ci |= json_is_number(ci);
    }
    /* A row's minimum and maximum mean something only when some launch of it was timed. */
    if (timed && get_u64(e, K(kernels, min), &v) && (!k->has_minmax || v < k->min_ns))
        k->min_ns = v;
    if (timed && get_u64(e, K(kernels, max), &v) && (!k->has_minmax || v > k->max_ns))
        k->max_ns = v;
    if (timed && json_object_get(e, K(kernels, min)) && json_object_get(e, K(kernels, max)))
        k->has_minmax = true;
    const char *med_keys[2] = { K(kernels, launch_host_med), K(kernels, queue_med) };
    const char *p95_keys[2] = { K(kernels, launch_host_p95), K(kernels, queue_p95) };
    /* A process's medians stand for its launches outside graphs, however few it timed (KPROF_SAMPLE). */
    uint64_t calls = u64_or_0(e, K(kernels, calls)), in_graphs = u64_or_0(e, K(kernels, graph_calls));
    uint64_t launches = calls > in_graphs ? calls - in_graphs : timed;
    for (int w = 0; w < 2; w++) {
        if (timed && get_u64(e, med_keys[w], &v)) {
            struct median *md = push(&k->split_medians[w], &k->nsplit[w], &k->split_cap[w], sizeof *md);
            md->ns = v;
            md->calls = launches > timed ? launches : timed;
        }
        if (timed && get_u64(e, p95_keys[w], &v) && (!k->has_split_p95[w] || v > k->split_p95[w])) {
            k->split_p95[w] = v;
            k->has_split_p95[w] = true;
        }
    }
    return true;
}

/* Adds one entry of a report's "captured" array, from process number p, to t; false when it has neither
 * mangled nor name. */
static bool merge_captured(struct ktable *t, size_t p, json_t *e)
{
    const char *mangled = get_str(e, K(captured, mangled)), *name = get_str(e, K(captured, name));
    const char *key = mangled ? mangled : name;
    if (!key)
        return false;
    add(&ktable_row(t, p, key, name)->calls, u64_or_0(e, K(captured, launches)));
    return true;
}

/* Adds one entry of a report's "api" array to m; false when it has no name. */
static bool merge_api(struct merge *m, json_t *e)
{
    const char *name = get_str(e, K(api, name));
    if (!name)
        return false;
    struct api *a = NULL;
    for (size_t i = 0; i < m->napis && !a; i++)
        if (!strcmp(m->apis[i].name, name))
            a = &m->apis[i];
    if (!a) {
        a = push(&m->apis, &m->napis, &m->apis_cap, sizeof *m->apis);
        a->name = xstrdup(name);
    }
    uint64_t calls = u64_or_0(e, K(api, calls)), v;
    a->nproc++;
    add(&a->calls, calls);
    add(&a->errors, u64_or_0(e, K(api, errors)));
    add(&a->total_ns, u64_or_0(e, K(api, total)));
    if (!calls)
        return true;
    if (get_u64(e, K(api, min), &v) && (!a->has_minmax || v < a->min_ns))
        a->min_ns = v;
    if (get_u64(e, K(api, max), &v) && (!a->has_minmax || v > a->max_ns))
        a->max_ns = v;
    a->has_minmax = a->has_minmax || (json_object_get(e, K(api, min)) && json_object_get(e, K(api, max)));
    if (get_u64(e, K(api, median), &v)) {
        struct median *md = push(&a->medians, &a->nmedians, &a->medians_cap, sizeof *a->medians);
        md->ns = v;
        md->calls = calls;
    }
    return true;
}

/* Adds one entry of a report's "devices" array, from process number p, to m; false when it has no
 * device index. */
static bool merge_device(struct merge *m, size_t p, json_t *e)
{
    json_t *idx = json_object_get(e, K(devices, device));
    if (!json_is_integer(idx))
        return false;
    const char *uuid = get_str(e, K(devices, uuid));
    char *key;
    if (uuid) {
        key = xstrdup(uuid);
    } else {
        const char *fmt = "%s device %lld (no UUID)";
        size_t n = (size_t)snprintf(NULL, 0, fmt, m->procs[p].label, (long long)json_integer_value(idx)) + 1;
        key = xrealloc(NULL, n);
        snprintf(key, n, fmt, m->procs[p].label, (long long)json_integer_value(idx));
    }
    struct device *d = NULL;
    size_t at = index_find(m->device_set, key);
    if (at != (size_t)-1)
        d = &m->devices[at];
    if (d) {
        free(key);
    } else {
        d = push(&m->devices, &m->ndevices, &m->devices_cap, sizeof *m->devices);
        d->key = key;
        index_add(&m->device_set, d->key, m->ndevices - 1);
        d->has_uuid = uuid != NULL;
        d->index = json_integer_value(idx);
        d->first_proc = p;
    }
    d->nproc++;
    add(&d->kernels, u64_or_0(e, K(devices, kernels)));
    add(&d->kernel_ns, u64_or_0(e, K(devices, kernel)));
    add(&d->busy_ns, u64_or_0(e, K(devices, busy)));
    return true;
}

/* Adds the copy or memset figures of object e to x. */
static void merge_xfer(struct xfer *x, json_t *e)
{
    uint64_t total = u64_or_0(e, K(copies, total)), tb;
    add(&x->count, u64_or_0(e, K(copies, count)));
    add(&x->bytes, u64_or_0(e, K(copies, bytes)));
    add(&x->timed, u64_or_0(e, K(copies, timed)));
    /* Reports without timed_bytes: every byte counted as timed when all calls were. */
    if (!get_u64(e, K(copies, timed_bytes), &tb))
        tb = u64_or_0(e, K(copies, timed)) >= u64_or_0(e, K(copies, count)) ? u64_or_0(e, K(copies, bytes)) : 0;
    add(&x->timed_bytes, tb);
    add(&x->total_ns, total);
}

/* Adds one entry of a report's "copies" array to m; false when it has no direction. */
static bool merge_copy(struct merge *m, json_t *e)
{
    const char *dir = get_str(e, K(copies, direction));
    if (!dir)
        return false;
    struct xfer *x = NULL;
    for (size_t i = 0; i < m->ncopies && !x; i++)
        if (!strcmp(m->copies[i].key, dir))
            x = &m->copies[i];
    if (!x) {
        x = push(&m->copies, &m->ncopies, &m->copies_cap, sizeof *m->copies);
        x->key = xstrdup(dir);
    }
    merge_xfer(x, e);
    return true;
}

/* Adds one entry of a report's "allocations" array, from process number p, to m; false when it has no
 * kind. */
static bool merge_alloc(struct merge *m, size_t p, json_t *e)
{
    const char *kind = get_str(e, K(allocations, kind));
    if (!kind)
        return false;
    struct alloc *a = NULL;
    for (size_t i = 0; i < m->nallocs && !a; i++)
        if (!strcmp(m->allocs[i].kind, kind))
            a = &m->allocs[i];
    if (!a) {
        a = push(&m->allocs, &m->nallocs, &m->allocs_cap, sizeof *m->allocs);
        a->kind = xstrdup(kind);
    }
    add(&a->count, u64_or_0(e, K(allocations, count)));
    add(&a->bytes, u64_or_0(e, K(allocations, bytes)));
    add(&a->frees, u64_or_0(e, K(allocations, frees)));
    add(&a->freed_bytes, u64_or_0(e, K(allocations, freed_bytes)));
    add(&a->host_ns, u64_or_0(e, K(allocations, host)));
    uint64_t peak;
    if (get_u64(e, K(allocations, peak), &peak) && peak > a->peak_bytes) {
        a->peak_bytes = peak;
        a->peak_proc = p;
        a->has_peak = true;
    }
    return true;
}

/* Reads the report in file path and merges it into m.  A file that cannot be read or parsed, is not a JSON
 * object, has no schema_version 1, is not libkprof's (a kprof-merge summary), or is the report of a process
 * already merged (the same pid@host) gets a one-line warning and leaves m unchanged (returns false).
 * Missing or ill-typed optional fields read as absent; array entries without a key (kernel name, copy
 * direction, allocation kind) are ignored with one warning per file. */
static bool merge_file(struct merge *m, const char *path)
{
    json_error_t err;
    FILE *in = fopen(path, "r");
    if (!in) {
        warn("%s: %s; skipped", path, strerror(errno));
        return false;
    }
    json_t *root = json_loadf(in, 0, &err);
    int read_errno = ferror(in) ? errno : 0;
    fclose(in);
    if (!root) {
        if (read_errno)
            warn("%s: %s; skipped", path, strerror(read_errno));
        else if (kprof_file_is_text_report(path)) /* as kprof report says it (report-read.c) */
            warn("%s: a libkprof text report, not JSON: merge the JSON ones (save them with kprof --save FILE, "
                 "or KPROF_SAVE); skipped", path);
        else if (kprof_file_is_csv(path))
            warn("%s: a libkprof CSV table, not JSON: merge the JSON reports (save them with kprof --save FILE, "
                 "or KPROF_SAVE); skipped", path);
        else if (err.line > 0)
            warn("%s:%d: %s; skipped", path, err.line, err.text);
        else
            warn("%s: %s; skipped", path, err.text);
        return false;
    }
    if (!json_is_object(root)) {
        warn("%s: not a libkprof JSON report (not an object); skipped", path);
        json_decref(root);
        return false;
    }
    json_t *sv = json_object_get(root, "schema_version");
    if (!json_is_integer(sv)) {
        warn("%s: no schema_version, not a libkprof JSON report; skipped", path);
        json_decref(root);
        return false;
    }
    if (json_integer_value(sv) != 1) {
        warn("%s: schema_version %lld is not supported (expected 1); skipped", path,
             (long long)json_integer_value(sv));
        json_decref(root);
        return false;
    }

    const char *tool = get_str(root, "tool");
    if (!tool || strcmp(tool, "libkprof") != 0) {
        if (tool && strcmp(tool, "kprof-merge") == 0)
            warn("%s: a kprof-merge summary, not a libkprof report (merge the reports it merged); skipped", path);
        else
            warn("%s: not a libkprof JSON report (its tool is not libkprof); skipped", path);
        json_decref(root);
        return false;
    }
    const char *host = get_str(root, "host");
    json_t *pid = json_object_get(root, "pid"), *rank = json_object_get(root, "rank");
    char *label;
    if (host && json_is_integer(pid)) {
        /* "pid@host", after "rank N " when the process had a launcher's rank */
        char rk[32] = "";
        if (json_is_integer(rank))
            snprintf(rk, sizeof rk, "rank %lld ", (long long)json_integer_value(rank));
        size_t n = (size_t)snprintf(NULL, 0, "%s%lld@%s", rk, (long long)json_integer_value(pid), host) + 1;
        label = xrealloc(NULL, n);
        snprintf(label, n, "%s%lld@%s", rk, (long long)json_integer_value(pid), host);
        size_t j = index_find(m->proc_set, label);
        if (j != (size_t)-1) { /* the same file twice, or a copy of it */
            warn("%s: process %s again (its report is %s); skipped", path, label, m->procs[j].path);
            free(label);
            json_decref(root);
            return false;
        }
    } else {
        label = utf8_dup(path);
    }
    size_t p = m->nprocs;
    struct proc *pr = push(&m->procs, &m->nprocs, &m->procs_cap, sizeof *m->procs);
    pr->label = label;
    pr->path = path;
    if (host && json_is_integer(pid) && index_find(m->proc_set, label) == (size_t)-1)
        index_add(&m->proc_set, pr->label, p);
    if (host)
        add_host(m, host);
    add_program(m, get_str(root, "command"), path);
    pr->has_wall = get_u64(root, "wall_ns", &pr->wall_ns);

    size_t ignored = 0, i;
    json_t *e, *arr;

    arr = json_object_get(root, "kernels");
    json_array_foreach(arr, i, e)
        ignored += !merge_kernel(&m->kernels, p, e);
    ktable_end_report(&m->kernels);
    arr = json_object_get(root, "graphs");
    json_array_foreach(arr, i, e)
        ignored += !merge_kernel(&m->graphs, p, e);
    ktable_end_report(&m->graphs);
    arr = json_object_get(root, "captured");
    json_array_foreach(arr, i, e)
        ignored += !merge_captured(&m->captured, p, e);
    ktable_end_report(&m->captured);

    arr = json_object_get(root, "copies");
    json_array_foreach(arr, i, e)
        ignored += !merge_copy(m, e);

    if (json_is_object(json_object_get(root, "memsets")))
        merge_xfer(&m->memsets, json_object_get(root, "memsets"));

    arr = json_object_get(root, "allocations");
    json_array_foreach(arr, i, e)
        ignored += !merge_alloc(m, p, e);

    arr = json_object_get(root, "devices");
    json_array_foreach(arr, i, e)
        ignored += !merge_device(m, p, e);

    arr = json_object_get(root, "api");
    json_array_foreach(arr, i, e)
        ignored += !merge_api(m, e);

    arr = json_object_get(root, "context_init");
    if (json_is_array(arr) && json_array_size(arr) > 0) {
        uint64_t sum = 0;
        json_array_foreach(arr, i, e)
            add(&sum, u64_or_0(e, K(context_init, host)));
        if (m->ctx_procs == 0 || sum < m->ctx_min_ns) {
            m->ctx_min_ns = sum;
            m->ctx_min_proc = p;
        }
        if (m->ctx_procs == 0 || sum > m->ctx_max_ns) {
            m->ctx_max_ns = sum;
            m->ctx_max_proc = p;
        }
        m->ctx_procs++;
        add(&m->ctx_count, json_array_size(arr));
        add(&m->ctx_sum_ns, sum);
    }

    if (ignored)
        warn("%s: %zu entr%s without a name, direction, kind or device ignored", path, ignored, ignored == 1 ? "y" : "ies");
    json_decref(root);
    return true;
}

/* Releases everything m owns. */
static void merge_free(struct merge *m)
{
    index_free(&m->proc_set);
    index_free(&m->device_set);
    for (size_t i = 0; i < m->nprocs; i++)
        free(m->procs[i].label);
    free(m->procs);
    struct host *h, *htmp;
    HASH_ITER(hh, m->host_set, h, htmp) {
        HASH_DEL(m->host_set, h);
        free(h);
    }
    for (size_t i = 0; i < m->nhosts; i++)
        free(m->hosts[i]);
    free(m->hosts);
    for (size_t i = 0; i < m->nprograms; i++) {
        free(m->programs[i].name);
        free(m->programs[i].first_file);
    }
    free(m->programs);
    struct ktable *tables[] = { &m->kernels, &m->graphs, &m->captured };
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        struct kernel *k, *tmp;
        HASH_ITER(hh, tables[t]->hash, k, tmp) {
            HASH_DEL(tables[t]->hash, k);
            free(k->key);
            free(k->name);
            free(k->split_medians[0]);
            free(k->split_medians[1]);
            free(k);
        }
    }
    for (size_t i = 0; i < m->napis; i++) {
        free(m->apis[i].name);
        free(m->apis[i].medians);
    }
    free(m->apis);
    for (size_t i = 0; i < m->ndevices; i++)
        free(m->devices[i].key);
    free(m->devices);
    for (size_t i = 0; i < m->ncopies; i++)
        free(m->copies[i].key);
    free(m->copies);
    for (size_t i = 0; i < m->nallocs; i++)
        free(m->allocs[i].kind);
    free(m->allocs);
}

/* qsort order of kernels, as libkprof's own report orders them (src/agg/kernels.c, kprof_kernels_sort):
 * total GPU time, then calls, both largest first; then the key (the mangled name), then the name shown.
 * (By the name shown before the key until the forty-fifth session: ties in a process's report and in its
 * merge came in different orders, tests/merge-ties-ordered-as-the-report.sh.) */
static int kernel_cmp(const void *a, const void *b)
{
    const struct kernel *x = *(const struct kernel *const *)a, *y = *(const struct kernel *const *)b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->name, y->name);
}

/* qsort order of captured kernels: launches, most first; then name and key. */
static int captured_cmp(const void *a, const void *b)
{
    const struct kernel *x = *(const struct kernel *const *)a, *y = *(const struct kernel *const *)b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->key, y->key);
}

/* The rows of table t sorted by cmp, in a new array of *n borrowed pointers (caller frees the array). */
static struct kernel **sorted_rows(const struct ktable *t, size_t *n, int (*cmp)(const void *, const void *))
{
    *n = HASH_COUNT(t->hash);
    struct kernel **v = xrealloc(NULL, *n * sizeof *v);
    size_t i = 0;
    for (struct kernel *k = t->hash; k; k = k->hh.next)
        v[i++] = k;
    qsort(v, *n, sizeof *v, cmp);
    return v;
}
/* The merged kernels in report order (see sorted_rows). */
static struct kernel **sorted_kernels(const struct merge *m, size_t *n)
{
    return sorted_rows(&m->kernels, n, kernel_cmp);
}

/* qsort order of struct median by time. */
static int median_cmp(const void *a, const void *b)
{
    const struct median *x = a, *y = b;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* The calls-weighted median of per-process medians v[0..n) (ns; an api's, or a kernel's host or queue
 * times, weighted by timed launches): the smallest process median at which
 * the processes' calls, counted from the shortest median up, reach half of them.  Not the median of all
 * calls (medians do not merge exactly), but equal to it when every process has the same distribution;
 * false when no process reported a median.  Sorts v. */
static bool weighted_median_of(struct median *v, size_t n, uint64_t *out)
{
    if (!n)
        return false;
    qsort(v, n, sizeof *v, median_cmp);
    uint64_t all = 0, run = 0;
    for (size_t i = 0; i < n; i++)
        add(&all, v[i].calls);
    for (size_t i = 0; i < n; i++) {
        add(&run, v[i].calls);
        if (run >= all - all / 2) {
            *out = v[i].ns;
            return true;
        }
    }
    *out = v[n - 1].ns;
    return true;
}
static bool weighted_median(struct api *a, uint64_t *out)
{
    return weighted_median_of(a->medians, a->nmedians, out);
}

/* Wall-time statistics (ns) over the processes whose report has wall_ns; *_proc index merge.procs. */
struct wall {
    uint64_t n, total, min, max;
    size_t min_proc, max_proc;
};
/* The wall-time statistics of m's processes (all zero when none reported wall_ns). */
static struct wall wall_stats(const struct merge *m)
{
    struct wall w = { 0 };
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        if (!p->has_wall)
            continue;
        if (!w.n || p->wall_ns < w.min) {
            w.min = p->wall_ns;
            w.min_proc = i;
        }
        if (!w.n || p->wall_ns > w.max) {
            w.max = p->wall_ns;
            w.max_proc = i;
        }
        add(&w.total, p->wall_ns);
        w.n++;
    }
    return w;
}

/* Kernel k's Avg/call over processes (ns): its timed launches' mean, weighed as each process weighed
 * them (KPROF_SAMPLE=auto); k->timed > 0. */
static double kernel_avg(const struct kernel *k)
{
    return k->avg_w > 0.0 ? k->avg_wx / k->avg_w : (double)k->measured_ns / (double)k->timed;
}

/* Per-process imbalance of kernel k: its largest per-process total over the mean of those that ran it;
 * negative when undefined (no GPU time at all). */
static double imbalance(const struct kernel *k)
{
    if (!k->nproc || !k->total_ns)
        return -1.0;
    return (double)k->pmax_ns / ((double)k->total_ns / (double)k->nproc);
}

/* ------------------------------------------------------------------------------------ the merged tables */

/* The rows a merged table's values are read from (the `ctx` of its getters): kernels and captured, the
 * sorted rows of a struct ktable (total: what a row's share is of); copies, the copy directions or the
 * memsets; wall, the wall-time statistics; the others, the merge itself. */
struct krows { struct kernel *const *rows; uint64_t total; const struct merge *m; };
struct xrows { const struct xfer *rows; };
struct wall_row { struct wall w; const struct merge *m; };

/* What a value expression of merge-columns.def sees: its table's rows, and its row. */
#define MROW_wall \
    const struct wall_row *wr = ctx; \
    const struct wall *w = &wr->w; \
    const struct merge *m = wr->m; \
    (void)m;
#define MROW_context_init const struct merge *m = ctx;
#define MROW_kernels const struct krows *t = ctx; const struct kernel *k = t->rows[row]; (void)t;
#define MROW_captured MROW_kernels
#define MROW_copies const struct xfer *x = &((const struct xrows *)ctx)->rows[row];
#define MROW_allocations const struct merge *m = ctx; const struct alloc *a = &m->allocs[row]; (void)m;
#define MROW_devices const struct merge *m = ctx; const struct device *d = &m->devices[row]; (void)m;
#define MROW_api const struct merge *m = ctx; struct api *a = &m->apis[row];

/* Kernel k's launch call host time (which 0) or queue time (1): the launch-weighted median of the
 * processes' medians, or no value. */
static struct kprof_value split_median(const struct kernel *k, int which)
{
    uint64_t md;
    struct kernel *mk = (struct kernel *)k; /* weighted_median_of sorts the medians */
    return weighted_median_of(mk->split_medians[which], mk->nsplit[which], &md) ? U64(md) : NONE;
}
/* An API function's calls-weighted median of the processes' medians, or no value. */
static struct kprof_value api_median(struct api *a)
{
    uint64_t md;
    return weighted_median(a, &md) ? U64(md) : NONE;
}

enum own_id {
#define MERGE_OWN(id, ...) OWN_##id,
#include "merge-columns.def"
    OWN_COUNT
};
/* The merge's own columns (MERGE_OWN), as column.h describes a column. */
static const struct kprof_column own_columns[OWN_COUNT] = {
#define MERGE_OWN(id, kind, prec, key, header, width, unit) \
    { -1, #id, KPROF_KIND_##kind, 0, prec, key, 0, NULL, 0, header, 0, width, KPROF_TU_##unit },
#include "merge-columns.def"
};

enum mtable_id {
#define MERGE_TABLE(mtable) MT_##mtable,
#include "merge-columns.def"
    MT_COUNT
};

/* One getter per merged column. */
#define MERGE_COLUMN(mtable, id, column, key, value, text, mark) \
    static struct kprof_value mget_##mtable##_##id(const void *ctx, size_t row) \
    { \
        MROW_##mtable \
        (void)row; \
        return value; \
    }
#include "merge-columns.def"

/* A column of a merged table (MERGE_COLUMN): its descriptor (libkprof's or the merge's own), its JSON key
 * when not the descriptor's, its getter, its place in the text table and its header's mark. */
struct mcol {
    int table;                      /* enum mtable_id */
    const struct kprof_column *col;
    const char *key;
    kprof_getter value;
    int text;
    const char *mark;
};
#define LIB(table, id) &kprof_columns[KPROF_COL_##table##_##id]
#define OWN(id) &own_columns[OWN_##id]
#define SAME NULL
#define MERGE_COLUMN(mtable, id, column, key, value, text, mark) \
    { MT_##mtable, column, key, mget_##mtable##_##id, text, mark },
static const struct mcol mcols[] = {
#include "merge-columns.def"
};
#define MCOL_COUNT (sizeof mcols / sizeof mcols[0])

/* The JSON key of merged column c; NULL when it is not in JSON. */
static const char *mcol_key(const struct mcol *c)
{
    return c->key ? c->key : c->col->json_key;
}

/* ------------------------------------------------------------------------------------------ text output */

/* Merged table mt as text (header line and rows), with libkprof's renderer: rows 0 to nrows - 1 of ctx,
 * those for which shown (when not NULL) holds; timed (when not NULL) says which rows have a timed call;
 * the columns with a flag of `skip` left out; name_label (when not NULL) heads the NAME column. */
static void text_table(FILE *f, int mt, const void *ctx, size_t nrows, int (*shown)(const void *ctx, size_t row),
                       int (*timed)(const void *ctx, size_t row), unsigned skip, const char *name_label)
{
    struct kprof_text_col cols[MCOL_COUNT];
    int place[MCOL_COUNT];
    struct kprof_text_table t = { cols, 0, ctx, timed, 0 };
    for (size_t i = 0; i < MCOL_COUNT; i++) {
        const struct mcol *c = &mcols[i];
        if (c->table != mt || !c->text || (c->col->flags & skip))
            continue;
        size_t j = t.n++;
        for (; j > 0 && place[j - 1] > c->text; j--) { /* insertion by place */
            cols[j] = cols[j - 1];
            place[j] = place[j - 1];
        }
        place[j] = c->text;
        cols[j] = (struct kprof_text_col){
            .col = c->col, .value = c->value, .mark = *c->mark ? c->mark : NULL,
            .label = (c->col->flags & KPROF_COL_NAME) ? name_label : NULL,
            .group = c->col->table < 0, /* the merge's own GROUP columns apart from libkprof's */
        };
    }
    kprof_text_measure(&t, nrows, shown);
    kprof_text_head(f, &t);
    for (size_t r = 0; r < nrows; r++)
        if (!shown || shown(ctx, r)) {
            kprof_text_cells(f, &t, r);
            fputc('\n', f);
        }
}

/* Which rows of a kernels-style table and of a copies table have a timed call (TIMED columns). */
static int kernel_timed(const void *ctx, size_t row)
{
    return ((const struct krows *)ctx)->rows[row]->timed > 0;
}
static int xfer_timed(const void *ctx, size_t row)
{
    return ((const struct xrows *)ctx)->rows[row].timed > 0;
}
/* The rows the text shows: copy directions and allocation kinds with a call. */
static int xfer_used(const void *ctx, size_t row)
{
    return ((const struct xrows *)ctx)->rows[row].count > 0;
}
static int alloc_used(const void *ctx, size_t row)
{
    const struct alloc *a = &((const struct merge *)ctx)->allocs[row];
    return a->count || a->frees;
}

/* Kernel-style rows ks[0..nk) of the table being written, with their total (a row's share is of it). */
static struct krows krows(const struct merge *m, struct kernel *const *ks, size_t nk)
{
    struct krows t = { ks, 0, m };
    for (size_t i = 0; i < nk; i++)
        add(&t.total, ks[i]->total_ns);
    return t;
}

/* Under the table of rows ks[0..n): those whose Total is an estimate in some process (KPROF_SAMPLE), each
 * with its 95% interval where the processes gave one (their variances added), as libkprof's own report
 * marks them on their row. */
static void text_estimated(FILE *f, struct kernel *const *ks, size_t n, const char *noun)
{
    size_t est = 0;
    for (size_t i = 0; i < n; i++)
        est += ks[i]->estimated;
    if (!est)
        return;
    fprintf(f, "Estimated: %zu %s%s Total, from the timed launches in some process (KPROF_SAMPLE, or launches "
               "left untimed); +-: its 95%% interval (the processes' variances added):\n", est, noun, est == 1 ? "'s" : "s'");
    for (size_t i = 0; i < n; i++) {
        const struct kernel *k = ks[i];
        if (!k->estimated)
            continue;
        fprintf(f, "  %llu of %llu calls timed", (unsigned long long)k->timed, (unsigned long long)k->calls);
        if (k->has_ci && k->total_ns > 0)
            fprintf(f, ", Total +-%.1f%%", 100.0 * 1.96 * sqrt(k->ci95_var) / (double)k->total_ns);
        fputs("  ", f);
        kprof_text_put(f, k->name ? k->name : k->key, 0);
        fputc('\n', f);
    }
}

/* Writes the kernels-style rows ks[0..n) (kernels, or graphs) as a table whose name column is headed
 * `what`; empty: what the "(no ...)" line says; noun: the row's kind in the footnote. */
static void text_kernel_rows(FILE *f, const struct merge *m, struct kernel *const *ks, size_t nk, size_t top,
                             const char *what, const char *empty, const char *noun)
{
    if (!nk) {
        fprintf(f, "  (no %s)\n", empty);
        return;
    }
    size_t shown = top > 0 && top < nk ? top : nk;
    struct krows t = krows(m, ks, shown);
    text_table(f, MT_kernels, &t, shown, NULL, kernel_timed, 0, what);
    if (shown < nk) { /* as libkprof's KPROF_TOP says it */
        uint64_t rest = 0, all = 0;
        for (size_t i = 0; i < nk; i++) {
            add(&all, ks[i]->total_ns);
            if (i >= shown)
                add(&rest, ks[i]->total_ns);
        }
        fprintf(f, "  (%zu more %s%s, %.2f%% of %s time, not shown: --top %zu)\n", nk - shown, noun,
                nk - shown == 1 ? "" : "s", all ? 100.0 * (double)rest / (double)all : 0.0, noun, top);
    }
    text_estimated(f, ks, shown, noun);
    fprintf(f, "Per-process figures are over the processes that ran the %s; Imbalance = Max/proc / Mean/proc.\n", noun);
    fprintf(f, "Host med*, Queue med*: the launch-weighted median of the processes' medians of the launch call's\n"
               "host time and of the queue time from the call's start to the kernel's start.\n");
}

/* Writes the merged summary m to f as aligned tables under "== kprof-merge: <section> ==" headers. */
static void write_text(FILE *f, struct merge *m)
{
    fprintf(f, "== kprof-merge: report ==\n");
    fprintf(f, "Processes: %zu merged, %zu skipped\n", m->nprocs, m->skipped);
    fprintf(f, "Hosts: %zu", m->nhosts);
    for (size_t i = 0; i < m->nhosts; i++) {
        fputs(i ? ", " : " (", f);
        kprof_text_put(f, m->hosts[i], 0);
    }
    fprintf(f, "%s\n", m->nhosts ? ")" : "");
    struct wall w = wall_stats(m);
    if (w.n) {
        struct kprof_unit u = kprof_unit_for(w.total);
        int d = kprof_unit_decimals(u); /* whole ns, as the tables write them */
        fprintf(f, "Wall time (%s): total %.*f, min %.*f (", u.name, d, (double)w.total / u.ns, d, (double)w.min / u.ns);
        kprof_text_put(f, m->procs[w.min_proc].label, 0);
        fprintf(f, "), max %.*f (", d, (double)w.max / u.ns);
        kprof_text_put(f, m->procs[w.max_proc].label, 0);
        fprintf(f, "), mean %.*f", d, (double)w.total / (double)w.n / u.ns);
        fputc('\n', f);
    } else {
        fprintf(f, "Wall time: not reported\n");
    }

    fprintf(f, "== kprof-merge: context init ==\n");
    if (!m->ctx_procs)
        fprintf(f, "  (no context init reported)\n");
    else
        text_table(f, MT_context_init, m, 1, NULL, NULL, 0, NULL);

    fprintf(f, "== kprof-merge: kernels ==\n");
    size_t nk;
    struct kernel **ks = sorted_kernels(m, &nk);
    text_kernel_rows(f, m, ks, nk, (size_t)m->top, "Kernel", "kernel launches", "kernel");
    free(ks);

    fprintf(f, "== kprof-merge: graphs ==\n");
    ks = sorted_rows(&m->graphs, &nk, kernel_cmp);
    text_kernel_rows(f, m, ks, nk, 0, "Graph", "graph launches", "graph");
    free(ks);

    fprintf(f, "== kprof-merge: captured ==\n");
    ks = sorted_rows(&m->captured, &nk, captured_cmp);
    struct krows kt = krows(m, ks, nk);
    if (!nk)
        fprintf(f, "  (no kernel launched into a capturing stream)\n");
    else
        text_table(f, MT_captured, &kt, nk, NULL, NULL, 0, NULL);
    free(ks);

    fprintf(f, "== kprof-merge: copies ==\n");
    struct xrows xt = { m->copies };
    uint64_t any = 0;
    for (size_t i = 0; i < m->ncopies; i++)
        add(&any, m->copies[i].count);
    if (!any)
        fprintf(f, "  (no copies)\n");
    else
        text_table(f, MT_copies, &xt, m->ncopies, xfer_used, xfer_timed, 0, NULL);

    fprintf(f, "== kprof-merge: memsets ==\n");
    xt.rows = &m->memsets;
    if (!m->memsets.count)
        fprintf(f, "  (no memsets)\n");
    else
        text_table(f, MT_copies, &xt, 1, NULL, xfer_timed, KPROF_COL_LABEL, NULL);

    fprintf(f, "== kprof-merge: allocations ==\n");
    any = 0;
    for (size_t i = 0; i < m->nallocs; i++)
        any |= (uint64_t)alloc_used(m, i);
    if (!any) {
        fprintf(f, "  (no allocations)\n");
    } else {
        text_table(f, MT_allocations, m, m->nallocs, alloc_used, NULL, 0, NULL);
        fprintf(f, "Peak in use*: the largest of the processes' peaks.\n");
    }

    fprintf(f, "== kprof-merge: devices ==\n");
    if (!m->ndevices) {
        fprintf(f, "  (no device ran a timed kernel)\n");
    } else {
        text_table(f, MT_devices, m, m->ndevices, NULL, NULL, 0, NULL);
        fprintf(f, "Busy*: each process's busy time, summed (processes that shared a GPU may have overlapped).\n");
    }

    fprintf(f, "== kprof-merge: api ==\n");
    if (!m->napis) {
        fprintf(f, "  (no API calls reported)\n");
    } else {
        text_table(f, MT_api, m, m->napis, NULL, NULL, 0, NULL);
        fprintf(f, "Med*: the calls-weighted median of the processes' medians, not the median of all calls.\n");
    }
    fprintf(f, "== kprof-merge: end ==\n");
}

/* ------------------------------------------------------------------------------------------ JSON output */

/* Sets obj[key] to v, taking v's reference. */
static void put(json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v))
        out_of_memory();
}

/* Cell v of column col as a new JSON value: times and counts as integers (a real time, a mean, rounded
 * when col's prec is 0 or -1), other reals as reals, a ratio of nothing and no value as null. */
static json_t *json_value(const struct kprof_column *col, struct kprof_value v)
{
    switch (v.type) {
    case KPROF_V_U64: return jint(v.v.u);
    case KPROF_V_I64: return json_integer(v.v.i);
    case KPROF_V_F64:
        if (col->prec == 0 || col->prec == -1) /* 2^64 and above saturate; NaN and negatives read as 0 */
            return jint(!(v.v.d > 0) ? 0 : v.v.d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)(v.v.d + 0.5));
        return json_real(v.v.d);
    case KPROF_V_FRAC: return v.v.frac.den ? json_real(kprof_frac(v, 1.0)) : json_null();
    case KPROF_V_STR: return json_string(v.v.s);
    case KPROF_V_FLAG: return json_boolean(v.v.flag);
    default: return json_null();
    }
}

/* Row `row` of ctx as a new JSON object of merged table mt's columns that have a key, in their order, the
 * columns with a flag of `skip` left out. */
static json_t *json_row(int mt, const void *ctx, size_t row, unsigned skip)
{
    json_t *o = json_object();
    if (!o)
        out_of_memory();
    for (size_t i = 0; i < MCOL_COUNT; i++) {
        const struct mcol *c = &mcols[i];
        if (c->table == mt && mcol_key(c) && !(c->col->flags & skip))
            put(o, mcol_key(c), json_value(c->col, c->value(ctx, row)));
    }
    return o;
}

/* Rows 0 to n - 1 of ctx as a new JSON array of json_row() objects. */
static json_t *json_rows(int mt, const void *ctx, size_t n, unsigned skip)
{
    json_t *a = json_array();
    if (!a)
        out_of_memory();
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(a, json_row(mt, ctx, i, skip)))
            out_of_memory();
    return a;
}

/* Writes the merged summary m to f as one JSON object (see kprof-merge(1)); false on a write error. */
static bool write_json(FILE *f, struct merge *m)
{
    json_t *r = json_object(), *a;
    if (!r)
        out_of_memory();
    put(r, "schema_version", json_integer(1));
    put(r, "tool", json_string("kprof-merge"));
    put(r, "version", json_string(PACKAGE_VERSION));
    put(r, "processes", jint(m->nprocs));
    put(r, "skipped", jint(m->skipped));

    put(r, "process_labels", a = json_array());
    for (size_t i = 0; i < m->nprocs; i++)
        json_array_append_new(a, json_string(m->procs[i].label));
    put(r, "hosts", a = json_array());
    for (size_t i = 0; i < m->nhosts; i++)
        json_array_append_new(a, json_string(m->hosts[i]));

    struct wall_row wr = { wall_stats(m), m };
    put(r, "wall_ns", json_row(MT_wall, &wr, 0, 0));
    put(r, "context_init", json_row(MT_context_init, m, 0, 0));

    size_t nk;
    struct kernel **ks = sorted_kernels(m, &nk);
    struct krows kt = krows(m, ks, nk);
    put(r, "kernel_total_ns", jint(kt.total));
    put(r, "kernels", json_rows(MT_kernels, &kt, nk, 0));
    free(ks);
    ks = sorted_rows(&m->graphs, &nk, kernel_cmp);
    kt = krows(m, ks, nk);
    put(r, "graphs", json_rows(MT_kernels, &kt, nk, KPROF_COL_KERNEL)); /* no interval: never extrapolated */
    free(ks);
    ks = sorted_rows(&m->captured, &nk, captured_cmp);
    kt = krows(m, ks, nk);
    put(r, "captured", json_rows(MT_captured, &kt, nk, 0));
    free(ks);

    struct xrows xt = { m->copies };
    put(r, "copies", json_rows(MT_copies, &xt, m->ncopies, 0));
    xt.rows = &m->memsets;
    put(r, "memsets", json_row(MT_copies, &xt, 0, KPROF_COL_LABEL));
    put(r, "allocations", json_rows(MT_allocations, m, m->nallocs, 0));
    put(r, "devices", json_rows(MT_devices, m, m->ndevices, 0));
    put(r, "api", json_rows(MT_api, m, m->napis, 0));

    int rc = json_dumpf(r, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    json_decref(r);
    return rc == 0 && fputc('\n', f) != EOF;
}

/* ------------------------------------------------------------------------------------------------ main */

/* Writes the --help text to f. */
static void usage(FILE *f)
{
    fprintf(f,
            "Usage: kprof-merge [-f text|json] [--top N] [-o FILE] REPORT.json...\n"
            "Merges the JSON reports of many processes profiled by libkprof (KPROF_FORMAT=json) into one summary:\n"
            "per kernel, calls and GPU time summed over processes, with the per-process minimum, maximum, mean\n"
            "and imbalance (max/mean); graphs and captured kernels likewise; copies, memsets, allocations, context\n"
            "init; devices matched by GPU UUID; API host times (medians only as the calls-weighted median of the\n"
            "processes' medians). Reports of different programs are merged with a one-line warning.\n"
            "\n"
            "  -f, --format FORMAT   output format: text (default) or json\n"
            "  -o, --output FILE     write the summary to FILE, not stdout\n"
            "      --top N           kernels shown in the text summary's kernels table, 0 (all) to 1073741824\n"
            "  -h, --help            show this help and exit\n"
            "  -V, --version         show the version and exit\n"
            "\n"
            "Unreadable reports, kprof-merge summaries and repeats of a process are skipped with a warning.\n"
            "Exit status: 0 when at least one report was merged, 1 when none was (or the output could not be\n"
            "written), 2 for a usage error. See kprof-merge(1).\n");
}

/* Parses the options, merges every REPORT.json named, writes the summary; exit status 0 (something merged),
 * 1 (nothing merged, or a write error) or 2 (usage error). */
int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "top", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    bool json = false;
    const char *output = NULL;
    long top = 0;
    int c;
    opterr = 0; /* one line of its own, not getopt's two naming argv[0]'s whole path (a breaker helper) */
    while ((c = getopt_long(argc, argv, ":f:o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!strcasecmp(optarg, "json")) /* any case, as libkprof reads KPROF_FORMAT */
                json = true;
            else if (!strcasecmp(optarg, "text"))
                json = false;
            else {
                warn("unknown format '%s' (expected text or json)", optarg);
                return 2;
            }
            break;
        case 'o':
            output = optarg;
            break;
        case 't': {
            char *end;
            errno = 0;
            top = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || top < 0 || top > 1073741824L || optarg[0] == '-' || optarg[0] == '+') {
                warn("--top needs a whole number from 0 to 1073741824, not '%s'", optarg);
                return 2;
            }
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("kprof-merge (libkprof) %s\n", PACKAGE_VERSION);
            return 0;
        case ':':
            warn("%s needs a value (see kprof-merge --help)", argv[optind - 1]);
            return 2;
        default:
            if (optopt)
                warn("unknown option -%c (see kprof-merge --help)", optopt);
            else
                warn("unknown option %s (see kprof-merge --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }

    struct merge m = { 0 };
    m.top = top;
    for (int i = optind; i < argc; i++)
        if (!merge_file(&m, argv[i]))
            m.skipped++;
    if (!m.nprocs) {
        warn("no report merged");
        merge_free(&m);
        return 1;
    }
    if (m.nprograms > 1) {
        /* One line, whatever the number of programs: a warning, not a refusal (a driver script and its
         * workers may be profiled on purpose). */
        fprintf(stderr, KPROF_MERGE_PREFIX ": the reports come from %zu different programs (", m.nprograms);
        for (size_t i = 0; i < m.nprograms; i++) {
            fputs(i ? ", " : "", stderr);
            kprof_text_put(stderr, m.programs[i].name, 0);
            fputs(" in ", stderr);
            kprof_text_put(stderr, m.programs[i].first_file, 0);
        }
        fputs("); merged anyway\n", stderr);
    }

    FILE *f = stdout;
    if (output && !(f = fopen(output, "w"))) {
        warn("cannot write %s: %s", output, strerror(errno));
        merge_free(&m);
        return 1;
    }
    bool ok = true;
    if (json)
        ok = write_json(f, &m);
    else
        write_text(f, &m);
    ok = !ferror(f) && ok;
    ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
    if (!ok)
        warn("error writing %s: %s", output ? output : "stdout", strerror(errno ? errno : EIO));
    merge_free(&m);
    return ok ? 0 : 1;
}
