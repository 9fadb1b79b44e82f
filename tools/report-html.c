/* report-html.c: kprof report --html: saved reports as one self-contained HTML page (inline CSS and SVG;
 * no script, nothing fetched): the top kernels by total GPU time, the copies by direction, each device's
 * busy share of the wall time and, for several processes, each top kernel's time per process. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "kernel.h"
#include "transfers.h"
#include "units.h"
#include "textput.h"
#include "report-read.h"
#include "report-html.h"

static void out_of_memory(void)
{
    fputs("kprof: out of memory\n", stderr);
    exit(1);
}
#define uthash_fatal(msg) out_of_memory()
#include <uthash.h>

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

/* ------------------------------------------------------------------------------------------ text */

/* Writes s as HTML text (or an attribute value): on one line as the text report writes it (control
 * characters as \n, \xNN...), with &, <, >, " and ' as character references. */
static void esc(FILE *f, const char *s)
{
    char buf[5];
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t n = kprof_text_char(*p, buf);
        for (size_t i = 0; i < n; i++)
            switch (buf[i]) {
            case '&': fputs("&amp;", f); break;
            case '<': fputs("&lt;", f); break;
            case '>': fputs("&gt;", f); break;
            case '"': fputs("&quot;", f); break;
            case '\'': fputs("&#39;", f); break;
            default: fputc(buf[i], f);
            }
    }
}

/* A time in the unit u, with the unit's name: "12.345 ms", "171 ns". */
static void put_time(FILE *f, double ns, struct kprof_unit u)
{
    fprintf(f, "%.*f %s", kprof_unit_decimals(u), ns / u.ns, u.name);
}

/* A process's label, as kprof-merge's: "pid@host". */
static void put_proc(FILE *f, const struct kprof_saved *r)
{
    if (r->s.rank >= 0) /* as kprof-merge names a process */
        fprintf(f, "rank %ld ", r->s.rank);
    fprintf(f, "%ld@", r->s.pid);
    esc(f, r->s.host);
}

/* A horizontal bar of `frac` (0 to 1) of `width` px, with its tooltip. */
static void bar(FILE *f, double frac, int width, const char *cls)
{
    double w = frac > 0 ? frac * width : 0.0;
    if (w > 0 && w < 1)
        w = 1;
    fprintf(f, "<svg class=\"bar\" width=\"%d\" height=\"14\" viewBox=\"0 0 %d 14\" role=\"img\">"
               "<rect class=\"track\" x=\"0\" y=\"1\" width=\"%d\" height=\"12\"/>"
               "<rect class=\"%s\" x=\"0\" y=\"1\" width=\"%.1f\" height=\"12\"/></svg>",
            width, width, width, cls, w);
}

/* ---------------------------------------------------------------------------------- the kernels */

/* One kernel over every report, by mangled name. */
struct hkernel {
    const char *key;         /* mangled name, borrowed from a report; hash key */
    const char *name;        /* borrowed */
    uint64_t total, calls, timed, measured;
    size_t reports;          /* rows it has over the reports */
    uint64_t split[2];       /* host and queue time medians (enum kprof_split), when it is in one report */
    unsigned char split_known[2];
    uint64_t *per;           /* total per report (nreports), owned */
    UT_hash_handle hh;
};

/* Order: total GPU time, largest first, then name. */
static int by_total(const void *a, const void *b)
{
    const struct hkernel *x = *(const struct hkernel *const *)a, *y = *(const struct hkernel *const *)b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Every kernel of the reports, sorted by total; *n of them in a new array (each element and its per[]
 * freed by free_kernels). */
static struct hkernel **gather_kernels(const struct kprof_saved *r, size_t nr, size_t *n)
{
    struct hkernel *hash = NULL, *k, *tmp;
    for (size_t p = 0; p < nr; p++)
        for (size_t i = 0; i < r[p].s.k.nkernels; i++) {
            const struct kprof_kernel *rk = r[p].s.k.kernels[i];
            const char *key = rk->mangled[0] ? rk->mangled : rk->name;
            HASH_FIND_STR(hash, key, k);
            if (!k) {
                k = xcalloc(1, sizeof *k);
                k->key = key;
                k->name = rk->name[0] ? rk->name : key;
                k->per = xcalloc(nr, sizeof *k->per);
                HASH_ADD_KEYPTR(hh, hash, k->key, strlen(k->key), k);
            }
            uint64_t t = kprof_kernel_total(rk);
            k->total += t;
            k->per[p] += t;
            k->calls += rk->calls;
            k->timed += rk->timed;
            k->measured += rk->total_ns;
            /* Medians do not add across rows or processes: the split is shown for a kernel of one row. */
            k->reports++;
            for (int w = 0; w < 2; w++)
                k->split_known[w] = k->reports == 1 && kprof_kernel_split(rk, (enum kprof_split)w, 50.0, &k->split[w]);
        }
    *n = HASH_COUNT(hash);
    struct hkernel **v = xcalloc(*n, sizeof *v);
    size_t i = 0;
    HASH_ITER(hh, hash, k, tmp) {
        HASH_DEL(hash, k);
        v[i++] = k;
    }
    qsort(v, *n, sizeof *v, by_total);
    return v;
}

static void free_kernels(struct hkernel **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i]->per);
        free(v[i]);
    }
    free(v);
}

static void kernels_section(FILE *f, struct hkernel **ks, size_t nk, size_t shown, size_t nr)
{
    fprintf(f, "<section id=\"kernels\">\n<h2>Top kernels by total GPU time</h2>\n");
    if (!nk) {
        fprintf(f, "<p class=\"none\">No kernel launches.</p>\n</section>\n");
        return;
    }
    uint64_t all = 0;
    for (size_t i = 0; i < nk; i++)
        all += ks[i]->total;
    /* Each column in one unit, chosen as the text report chooses its columns' (kprof_unit_pick). */
    struct kprof_unit_pick pick[4];
    memset(pick, 0, sizeof pick);
    for (size_t i = 0; i < shown; i++) {
        const struct hkernel *k = ks[i];
        kprof_unit_pick_add(&pick[0], (double)k->total);
        if (k->timed)
            kprof_unit_pick_add(&pick[1], (double)k->measured / (double)k->timed);
        for (int w = 0; w < 2; w++)
            if (k->split_known[w])
                kprof_unit_pick_add(&pick[2 + w], (double)k->split[w]);
    }
    struct kprof_unit u = kprof_unit_pick_best(&pick[0]), mean_u = kprof_unit_pick_best(&pick[1]);
    fprintf(f, "<table>\n<tr><th>Kernel</th><th>Total</th><th></th><th>Calls</th><th>Mean</th><th>Host med</th>"
               "<th>Queue med</th><th>Share</th></tr>\n");
    for (size_t i = 0; i < shown; i++) {
        const struct hkernel *k = ks[i];
        fprintf(f, "<tr><td class=\"name\">");
        esc(f, k->name);
        fprintf(f, "</td><td class=\"num\">");
        put_time(f, (double)k->total, u);
        fprintf(f, "</td><td>");
        bar(f, ks[0]->total ? (double)k->total / (double)ks[0]->total : 0.0, 320, "kernel");
        fprintf(f, "</td><td class=\"num\">%llu</td><td class=\"num\">", (unsigned long long)k->calls);
        if (k->timed)
            put_time(f, (double)k->measured / (double)k->timed, mean_u);
        else
            fputs("-", f);
        for (int w = 0; w < 2; w++) {
            fprintf(f, "</td><td class=\"num\">");
            if (k->split_known[w])
                put_time(f, (double)k->split[w], kprof_unit_pick_best(&pick[2 + w]));
            else
                fputs("-", f);
        }
        fprintf(f, "</td><td class=\"num\">%.2f%%</td></tr>\n", all ? 100.0 * (double)k->total / (double)all : 0.0);
    }
    fprintf(f, "</table>\n");
    if (shown < nk)
        fprintf(f, "<p class=\"note\">%zu more kernel%s not shown (--top).</p>\n", nk - shown, nk - shown == 1 ? "" : "s");
    fprintf(f, "<p class=\"note\">Total: GPU time over %s; Mean: per timed launch; Host med and Queue med: the "
               "median launch call's host time and time from the call's start to the kernel's start (a kernel of "
               "one process only: medians do not add).</p>\n",
            nr > 1 ? "every process" : "the run");
    fprintf(f, "</section>\n");
}

/* For several processes: each shown kernel's time in each process, one bar per process (imbalance: the
 * largest over the mean of the processes that ran it, as kprof-merge reads it: over every process, a
 * kernel run by one of three read 3.00 here and 1.00 in the merged summary, a breaker helper). */
static void per_process_section(FILE *f, const struct kprof_saved *r, size_t nr, struct hkernel **ks, size_t shown)
{
    fprintf(f, "<section id=\"processes\">\n<h2>Kernel time per process</h2>\n");
    if (!shown) {
        fprintf(f, "<p class=\"none\">No kernel launches.</p>\n</section>\n");
        return;
    }
    int width = 480, slot = (int)(width / nr) > 24 ? 24 : (int)(width / nr) > 1 ? (int)(width / nr) : 1;
    fprintf(f, "<p class=\"note\">One bar per process, in the order of the reports given (");
    for (size_t p = 0; p < nr; p++) {
        if (p == 4 && nr > 5) {
            fprintf(f, ", ... %zu more", nr - 4);
            break;
        }
        fputs(p ? ", " : "", f);
        put_proc(f, &r[p]);
    }
    fprintf(f, "), scaled to the kernel's largest; Imbalance: largest / mean over the processes that ran it.</p>\n");
    struct kprof_unit_pick largest; /* the Largest column's unit, one for every row */
    memset(&largest, 0, sizeof largest);
    for (size_t i = 0; i < shown; i++) {
        uint64_t max = 0;
        for (size_t p = 0; p < nr; p++)
            if (ks[i]->per[p] > max)
                max = ks[i]->per[p];
        kprof_unit_pick_add(&largest, (double)max);
    }
    struct kprof_unit largest_u = kprof_unit_pick_best(&largest);
    fprintf(f, "<table>\n<tr><th>Kernel</th><th>Imbalance</th><th>Per process</th><th>Largest</th></tr>\n");
    for (size_t i = 0; i < shown; i++) {
        const struct hkernel *k = ks[i];
        uint64_t max = 0;
        size_t ran = 0;
        for (size_t p = 0; p < nr; p++) {
            if (k->per[p] > max)
                max = k->per[p];
            ran += k->per[p] > 0;
        }
        double mean = ran ? (double)k->total / (double)ran : 0.0;
        struct kprof_unit_pick pick;
        memset(&pick, 0, sizeof pick);
        for (size_t p = 0; p < nr; p++)
            kprof_unit_pick_add(&pick, (double)k->per[p]);
        struct kprof_unit u = kprof_unit_pick_best(&pick);
        fprintf(f, "<tr><td class=\"name\">");
        esc(f, k->name);
        if (mean > 0)
            fprintf(f, "</td><td class=\"num\">%.2f</td><td>", (double)max / mean);
        else
            fprintf(f, "</td><td class=\"num\">-</td><td>");
        int w = slot * (int)nr;
        fprintf(f, "<svg class=\"procs\" width=\"%d\" height=\"40\" viewBox=\"0 0 %d 40\" role=\"img\">", w, w);
        for (size_t p = 0; p < nr; p++) {
            double h = max ? 38.0 * (double)k->per[p] / (double)max : 0.0;
            fprintf(f, "<rect class=\"proc\" x=\"%zu\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"><title>",
                    (size_t)slot * p, 39.0 - h, slot > 2 ? slot - 1 : slot, h + 1.0);
            put_proc(f, &r[p]);
            fputs(": ", f);
            put_time(f, (double)k->per[p], u);
            fprintf(f, "</title></rect>");
        }
        fprintf(f, "</svg></td><td class=\"num\">");
        put_time(f, (double)max, largest_u);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

/* ----------------------------------------------------------------------------- copies, devices */

static void copies_section(FILE *f, const struct kprof_saved *r, size_t nr)
{
    struct kprof_copy dir[KPROF_DIR_COUNT + 1]; /* the directions, then the memsets */
    memset(dir, 0, sizeof dir);
    for (size_t p = 0; p < nr; p++)
        for (int d = 0; d <= KPROF_DIR_COUNT; d++)
            for (int h = 0; h < (d < KPROF_DIR_COUNT ? KPROF_HOST_COUNT : 1); h++) {
                const struct kprof_copy *c = d < KPROF_DIR_COUNT ? &r[p].s.transfers.copies[d][h] : &r[p].s.transfers.memsets;
                dir[d].count += c->count;
                dir[d].bytes += c->bytes;
                dir[d].timed += c->timed;
                dir[d].timed_bytes += c->timed_bytes;
                dir[d].total_ns += c->total_ns;
            }
    uint64_t max = 0;
    struct kprof_unit_pick pick;
    memset(&pick, 0, sizeof pick);
    for (int d = 0; d <= KPROF_DIR_COUNT; d++)
        if (dir[d].count) {
            if (dir[d].total_ns > max)
                max = dir[d].total_ns;
            kprof_unit_pick_add(&pick, (double)dir[d].total_ns);
        }
    fprintf(f, "<section id=\"copies\">\n<h2>Copies by direction</h2>\n");
    int any = 0;
    for (int d = 0; d <= KPROF_DIR_COUNT; d++)
        any |= dir[d].count > 0;
    if (!any) {
        fprintf(f, "<p class=\"none\">No copies or memsets.</p>\n</section>\n");
        return;
    }
    struct kprof_unit u = kprof_unit_pick_best(&pick);
    fprintf(f, "<table>\n<tr><th>Direction</th><th>Count</th><th>Bytes</th><th>GPU time</th><th></th><th>GB/s</th></tr>\n");
    for (int d = 0; d <= KPROF_DIR_COUNT; d++) {
        const struct kprof_copy *c = &dir[d];
        if (!c->count)
            continue;
        fprintf(f, "<tr><td class=\"name\">%s</td><td class=\"num\">%llu</td><td class=\"num\">",
                d < KPROF_DIR_COUNT ? kprof_dir_names[d] : "memset", (unsigned long long)c->count);
        kprof_print_bytes(f, 0, c->bytes);
        fprintf(f, "</td><td class=\"num\">");
        put_time(f, (double)c->total_ns, u);
        fprintf(f, "</td><td>");
        bar(f, max ? (double)c->total_ns / (double)max : 0.0, 320, "copy");
        if (c->total_ns)
            fprintf(f, "</td><td class=\"num\">%.2f</td></tr>\n", (double)c->timed_bytes / (double)c->total_ns);
        else
            fprintf(f, "</td><td class=\"num\">-</td></tr>\n");
    }
    fprintf(f, "</table>\n<p class=\"note\">Summed over %s; GPU time of the timed calls.</p>\n</section>\n",
            nr > 1 ? "every process" : "host memory kinds");
}

static void devices_section(FILE *f, const struct kprof_saved *r, size_t nr)
{
    fprintf(f, "<section id=\"devices\">\n<h2>Device busy share of wall time</h2>\n");
    size_t any = 0;
    for (size_t p = 0; p < nr; p++)
        any += r[p].s.devices.ndevices;
    if (!any) {
        fprintf(f, "<p class=\"none\">No timed kernels.</p>\n</section>\n");
        return;
    }
    struct kprof_unit_pick pick;
    memset(&pick, 0, sizeof pick);
    for (size_t p = 0; p < nr; p++)
        for (size_t i = 0; i < r[p].s.devices.ndevices; i++)
            kprof_unit_pick_add(&pick, (double)r[p].s.devices.devices[i].busy_ns);
    struct kprof_unit u = kprof_unit_pick_best(&pick);
    fprintf(f, "<table>\n<tr><th>Process</th><th>Device</th><th>Busy</th><th>Wall</th><th></th><th>Busy share</th></tr>\n");
    for (size_t p = 0; p < nr; p++)
        for (size_t i = 0; i < r[p].s.devices.ndevices; i++) {
            const struct kprof_device_stat *d = &r[p].s.devices.devices[i];
            double share = r[p].s.wall_ns ? (double)d->busy_ns / (double)r[p].s.wall_ns : 0.0;
            fprintf(f, "<tr><td class=\"name\">");
            put_proc(f, &r[p]);
            fprintf(f, "</td><td class=\"num\" title=\"");
            esc(f, d->uuid[0] ? d->uuid : "no UUID");
            fprintf(f, "\">%d</td><td class=\"num\">", d->device);
            put_time(f, (double)d->busy_ns, u);
            fprintf(f, "</td><td class=\"num\">%.3f s</td><td>", (double)r[p].s.wall_ns / 1e9);
            bar(f, share > 1.0 ? 1.0 : share, 320, "busy");
            fprintf(f, "</td><td class=\"num\">%.2f%%</td></tr>\n", 100.0 * share);
        }
    fprintf(f, "</table>\n<p class=\"note\">Busy: the union of the device's kernel intervals (overlapping streams "
               "count once), over the process's wall time.</p>\n</section>\n");
}

/* ------------------------------------------------------------------------------------------ page */

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;background:#fff}"
    "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:middle}"
    "th{font-weight:600;border-bottom:1px solid #999}td.num{text-align:right;white-space:nowrap}"
    "td.name{font-family:ui-monospace,monospace;max-width:42em;overflow-wrap:anywhere}"
    ".note,.none{color:#555}svg{display:block}.track{fill:#eee}.kernel{fill:#3b6fb6}.copy{fill:#2a9d8f}"
    ".busy{fill:#e76f51}.proc{fill:#7b5ea7}";

int kprof_html_write(FILE *f, const struct kprof_saved *r, size_t nr, long top)
{
    size_t nk;
    struct hkernel **ks = gather_kernels(r, nr, &nk);
    size_t shown = top > 0 && (size_t)top < nk ? (size_t)top : nk;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kprof report</title>\n"
               "<style>%s</style>\n</head>\n<body>\n<h1>kprof report</h1>\n", style);
    fprintf(f, "<p id=\"processes-summary\">");
    if (nr == 1) {
        fprintf(f, "Process: ");
        esc(f, r[0].s.command);
        if (r[0].s.rank >= 0)
            fprintf(f, " (pid %ld, rank %ld) on ", r[0].s.pid, r[0].s.rank);
        else
            fprintf(f, " (pid %ld) on ", r[0].s.pid);
        esc(f, r[0].s.host);
        fprintf(f, ", wall time %.3f s.", (double)r[0].s.wall_ns / 1e9);
    } else {
        fprintf(f, "%zu processes.", nr);
    }
    fprintf(f, " GPU times from CUDA event pairs (libkprof %s).</p>\n", PACKAGE_VERSION);
    kernels_section(f, ks, nk, shown, nr);
    if (nr > 1)
        per_process_section(f, r, nr, ks, shown);
    copies_section(f, r, nr);
    devices_section(f, r, nr);
    fprintf(f, "</body>\n</html>\n");
    free_kernels(ks, nk);
    return 1;
}
