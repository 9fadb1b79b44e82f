/* report_text.c: the human-readable report: aligned tables under fixed "== libkprof: <section> ==" headers
 * that scripts can find. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_api.h"
#include "calibrate.h"
#include "kprof_config.h"
#include "kernel.h"
#include "snapshot.h"
#include "report_writers.h"
#include "units.h"
#include "columns.h"


/* A table of columns.def under its header line: rows 0 to n - 1 of ctx, those for which shown (when not
 * NULL) holds; units chosen from all n (from those for which `unit_rows` holds, when not NULL).  labels as
 * kprof_text_header() takes them. */
static void table_of(FILE *f, int id, const void *ctx, size_t n, const char *const *labels,
                     int (*shown)(const void *ctx, size_t row),
                     int (*unit_rows)(const void *ctx, size_t row))
{
    struct kprof_unit units[KPROF_COLUMN_COUNT];
    kprof_text_units(id, ctx, n, unit_rows, units);
    kprof_text_header(f, id, units, labels);
    for (size_t i = 0; i < n; i++)
        if (!shown || shown(ctx, i)) {
            kprof_text_row(f, id, ctx, i, units);
            fputc('\n', f);
        }
}
static void table(FILE *f, int id, const void *ctx, size_t n, const char *const *labels,
                  int (*shown)(const void *ctx, size_t row))
{
    table_of(f, id, ctx, n, labels, shown, NULL);
}

static void context_init(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: context init ==\n");
    if (!s->apitable.nctx_inits) {
        fprintf(f, "  (no context created through an intercepted call)\n");
        return;
    }
    table(f, KPROF_TABLE_context_init, s, s->apitable.nctx_inits, NULL, NULL);
}

/* A kernels-style table of rows (kernels, or graphs timed as a whole), under `section`. */
static void kernel_table(FILE *f, const char *section, const char *empty, const struct kprof_kernel_rows *t,
                         int top)
{
    size_t n = t->n;
    fprintf(f, "== libkprof: %s ==\n", section);
    if (n == 0) {
        fprintf(f, "  (%s)\n", empty);
        return;
    }
    /* Total in its own unit, the per-launch figures (First to StdDev) in one unit for all of them, so a
     * row's Avg and Max compare at a glance; units from all rows, shown or not (KPROF_TOP). */
    struct kprof_unit units[KPROF_COLUMN_COUNT];
    kprof_text_units(KPROF_TABLE_kernels, t, n, NULL, units);
    int is_graph = t->rows[0].k->is_graph;
    int shapes = kprof_config.group == KPROF_GROUP_SHAPE && !is_graph;
    const char *labels[KPROF_COLUMN_COUNT] = { [KPROF_COL_kernels_shown_name] = is_graph ? "Graph"
                                               : shapes ? "Kernel [grid] [block]" : NULL };
    kprof_text_header(f, KPROF_TABLE_kernels, units, labels);
    size_t shown = n;
    if (top && kprof_config.top > 0 && (size_t)kprof_config.top < shown)
        shown = (size_t)kprof_config.top;
    for (size_t i = 0; i < shown; i++) {
        const struct kprof_kernel_row *r = &t->rows[i];
        const struct kprof_kernel *k = r->k;
        kprof_text_row(f, KPROF_TABLE_kernels, t, i, units);
        /* The row's shape, and the launches whose time is not in this row, after its name. */
        if (shapes)
            fprintf(f, " [%u,%u,%u] [%u,%u,%u]", r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
                    r->block[2]);
        if (kprof_kernel_graph_calls(k))
            fprintf(f, "  [%llu of the calls in graphs: timed there]", (unsigned long long)kprof_kernel_graph_calls(k));
        if (kprof_kernel_in_conditional(k))
            fprintf(f, "  [also in conditional graph bodies: launches there unknown]");
        if (k->estimated && kprof_config.sample == 0)
            fprintf(f, "  [Total +-%.1f%%: 95%% interval]",
                    k->est_total_ns > 0.0 ? 100.0 * k->est_ci95_ns / k->est_total_ns : 0.0);
        /* Every launch to be timed, some not (no event free, or a pair that failed or never completed: the
         * events section): the Total is extrapolated from those timed (kprof_kernel_total), and said so (a
         * new user's helper read such a row, KPROF_MAX_EVENTS=4, 1 of 21 launches timed, as measured). */
        uint64_t direct = kprof_kernel_direct(k), timed = __atomic_load_n(&k->timed, __ATOMIC_RELAXED);
        if (kprof_config.sample == 1 && !k->is_graph && timed > 0 && timed < direct)
            fprintf(f, "  [Total from %llu of %llu launches timed: see events]", (unsigned long long)timed,
                    (unsigned long long)direct);
        fputc('\n', f);
    }
    if (shown < n) {
        uint64_t rest = 0;
        for (size_t i = shown; i < n; i++)
            rest += t->rows[i].total;
        fprintf(f, "  (%zu more kernel%s, %.2f%% of kernel time, not shown: KPROF_TOP=%ld)\n", n - shown,
                n - shown == 1 ? "" : "s",
                t->all_ns ? 100.0 * (double)rest / (double)t->all_ns : 0.0, kprof_config.top);
    }
}

/* KPROF_AUTO_CHECK=1: what KPROF_SAMPLE=auto would have estimated, against the measured totals, for the
 * kernels it would have left partly untimed. */
static void auto_check(FILE *f, const struct kprof_kernel_rows *t)
{
    size_t n = 0, inside = 0;
    for (size_t i = 0; i < t->n; i++)
        n += !t->rows[i].k->is_graph && kprof_kernel_checked(t->rows[i].k);
    if (n == 0) {
        fprintf(f, "KPROF_AUTO_CHECK (KPROF_SEED=%ld): KPROF_SAMPLE=auto would have timed every launch (outside graphs);\n"
                   "its totals are the measured ones.\n", kprof_config.seed);
        return;
    }
    fprintf(f, "KPROF_AUTO_CHECK (KPROF_SEED=%ld): every launch timed; KPROF_SAMPLE=auto would have timed only some\n"
               "launches of %zu kernel%s. Its estimates from those, against the totals measured (launches outside graphs):\n",
            kprof_config.seed, n, n == 1 ? "" : "s");
    fprintf(f, "  %14s %14s %12s %11s %10s %6s  %s\n", "Total (us)", "Auto (us)", "+-95% (us)", "Auto timed", "Calls",
            "Inside", "Name");
    for (size_t i = 0; i < t->n; i++) {
        const struct kprof_kernel *k = t->rows[i].k;
        if (k->is_graph || !kprof_kernel_checked(k))
            continue;
        int in = kprof_kernel_check_inside(k);
        inside += (size_t)in;
        fprintf(f, "  %14.3f %14.3f %12.3f %11llu %10llu %6s  %s\n", (double)kprof_kernel_total(k) / 1e3,
                k->check_total_ns / 1e3, k->check_ci95_ns / 1e3, (unsigned long long)k->check_timed,
                (unsigned long long)kprof_kernel_direct(k), in ? "yes" : "NO", k->name);
    }
    fprintf(f, "%zu of %zu measured totals inside their 95%% interval.\n", inside, n);
}

static void kernels(FILE *f, const struct kprof_snapshot *s)
{
    kernel_table(f, "kernels", s->k.nfiltered ? "no kernel launches profiled" : "no kernel launches", &s->rows.kernels, 1);
    if (s->k.nfiltered)
        fprintf(f, "  (%zu kernel%s left out by KPROF_INCLUDE/KPROF_EXCLUDE: passed through, not in this table)\n",
                s->k.nfiltered, s->k.nfiltered == 1 ? "" : "s");
    if (s->k.nkernels && kprof_config.sample > 1)
        fprintf(f, "Sampled (KPROF_SAMPLE=%ld): the first launch of each kernel and every %ldth after it are timed; Timed\n"
                   "says how many. Total is estimated as the timed launches' time x Calls / Timed.\n",
                kprof_config.sample, kprof_config.sample);
    if (s->k.nkernels && kprof_config.sample == 0)
        fprintf(f, "Sampled (KPROF_SAMPLE=auto, KPROF_SEED=%ld, at most %ld timed launches a second after the first 100 ms):\n"
                   "each kernel's first %d launches are timed (more for a kernel whose lengths spread widely), then fewer\n"
                   "and fewer, at random (below 1 in 128 when the budget needs); Timed says how many. Total is estimated\n"
                   "from the timed launches, each weighed by its odds; +-: its 95%% interval.\n",
                kprof_config.seed, kprof_config.sample_budget, KPROF_AUTO_WARMUP);
    if (s->k.nkernels && kprof_config.auto_check)
        auto_check(f, &s->rows.kernels);
    if (s->k.nkernels && kprof_config.sample != 1)
        fprintf(f, "In the api table, the untimed launches' host time is estimated from one in %d of them.\n",
                KPROF_HOST_SAMPLE);
    if (s->k.nkernels)
        fprintf(f, "First: the first launch (lazy module loading makes it slow), left out of Avg to StdDev unless the\n"
                   "only one timed; percentiles within 0.78%%.  Host: the launch call's host time; Queue: from the call's\n"
                   "start to the kernel's start (launch latency; median and p95, the first launch included).  More in\n"
                   "libkprof(7), \"Text report\".\n");
    if (s->k.nkernels && s->rows.graphs.n)
        fprintf(f, "Calls include launches replayed by CUDA graphs, which are timed with their graph (see graphs) and\n"
                   "marked on their row; launches inside conditional graph bodies cannot be counted from the host.\n"
                   "Time(%%) is of this table's Total: the graphs' time is in graphs, below.\n");
}

static void graphs(FILE *f, const struct kprof_snapshot *s)
{
    kernel_table(f, "graphs", "no graph launches", &s->rows.graphs, 0);
}

static void captured(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: captured ==\n");
    if (!s->k.ncaptured) {
        fprintf(f, "  (no launches while capturing)\n");
        return;
    }
    table(f, KPROF_TABLE_captured, s, s->k.ncaptured, NULL, NULL);
}

static void copies(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: copies ==\n");
    if (!s->rows.copies.n) {
        fprintf(f, "  (no copies)\n");
        return;
    }
    table(f, KPROF_TABLE_copies, &s->rows.copies, s->rows.copies.n, NULL, NULL);
}

static void memsets(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: memsets ==\n");
    if (!s->transfers.memsets.count) {
        fprintf(f, "  (no memsets)\n");
        return;
    }
    /* One row, "memset": its first column names what the row is; it has no host memory. */
    const char *labels[KPROF_COLUMN_COUNT] = { [KPROF_COL_copies_direction] = "Operation",
                                               [KPROF_COL_copies_host_memory] = "" };
    table(f, KPROF_TABLE_copies, &s->rows.memsets, 1, labels, NULL);
}

/* Allocation kinds with a call: the rows the text shows. */
static int alloc_used(const void *ctx, size_t m)
{
    const struct kprof_snapshot *s = ctx;
    return s->allocs.alloc[m].count || s->allocs.alloc[m].frees;
}

static void allocations(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: allocations ==\n");
    int any = 0;
    for (size_t m = 0; m < KPROF_MEM_COUNT; m++)
        any |= alloc_used(s, m);
    if (!any) {
        fprintf(f, "  (no allocations)\n");
        return;
    }
    table(f, KPROF_TABLE_allocations, s, KPROF_MEM_COUNT, NULL, alloc_used);
}

static void devices(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: devices ==\n");
    if (!s->devices.ndevices) {
        fprintf(f, "  (no timed kernels)\n");
        return;
    }
    table(f, KPROF_TABLE_devices, s, s->devices.ndevices, NULL, NULL);
    fprintf(f, "Busy: the union of the device's kernel intervals; Overlap: kernel sum / busy (above 1: streams ran\n"
               "kernels at the same time).\n");
    if (kprof_config.sample != 1) /* untimed launches have no interval */
        fprintf(f, "Kernel sum and busy time: the timed launches only (KPROF_SAMPLE).\n");
}

/* API functions counted (those whose times choose the table's unit), and called (the rows shown). */
static int api_counted(const void *ctx, size_t i)
{
    return kprof_api_counted[i];
}
static int api_called(const void *ctx, size_t i)
{
    const struct kprof_snapshot *s = ctx;
    return kprof_api_counted[i] && s->apitable.api[i].calls;
}

static void api(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: api ==\n");
    int any = 0;
    for (size_t i = 0; i < KPROF_API_COUNT; i++)
        any |= api_called(s, i);
    if (!any) {
        fprintf(f, "  (no API calls counted)\n");
        return;
    }
    table_of(f, KPROF_TABLE_api, s, KPROF_API_COUNT, NULL, api_called, api_counted);
    fprintf(f, "Each call's host time as the program saw it, libkprof's own work in it included (a timed launch's\n"
               "event records, and its hold when held); the kernels table's Host is the launch call alone.\n");
}

/* a + b, held within long: a report read back by kprof report may hold any count (UBSan caught
 * 2^63 - 1 + 5 in a breaker helper's crafted one). */
static long count_sum(long a, long b)
{
    long r;
    return __builtin_add_overflow(a, b, &r) ? (a > 0 ? LONG_MAX : LONG_MIN) : r;
}

void kprof_report_text(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "== libkprof: report ==\n");
    fprintf(f, "Process: ");
    kprof_text_put(f, s->command, 0);
    if (s->rank >= 0)
        fprintf(f, " (pid %ld, rank %ld) on ", s->pid, s->rank);
    else
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
    /* What the section is, for a reader who took "held" for launches of theirs kept waiting (a new user's
     * helper). */
    fprintf(f, "How libkprof measured the calls above (its own bookkeeping, already accounted for in their times;\n"
               "libkprof(7), \"Text report\").  Held: libkprof's kprof_hold kernel kept the stream from starting a\n"
               "launch until its events and kernel were all queued, so that its pair holds no launch latency.\n");
    /* One line for the pool, one for how the launches were timed, then one for each of the rarer counts
     * that is not 0 (libkprof(7), "Text report", says what each means). */
    const struct kprof_event_counters *n = &s->events.n;
    fprintf(f, "Events created %ld, pairs incomplete at exit %ld, failed %ld, calls untimed for lack of events %ld\n",
            n->created, n->incomplete, n->failed, n->pool_exhausted);
    fprintf(f, "Launches timed with one event (at their stream's last stop) %ld, held until queued %ld "
               "(behind other work %ld), not held beside another busy stream %ld\n",
            n->one_event, count_sum(n->held, n->held_kernel), n->held_kernel, n->beside_busy);
    if (n->holds_overdue) /* a launch call that outlasted its hold: other streams may have waited */
        fprintf(f, "Held longer than kprof_hold waits (%.0f ms) %ld (kernels on other streams may read up to that much "
                   "longer)\n", (double)KPROF_HOLD_TIMEOUT_NS / 1e6, n->holds_overdue);
    if (n->unheld_drawn || n->gap_shared) { /* KPROF_HOLD=N */
        fprintf(f, "Read with an offset learned from held launches of their kernel and shape (KPROF_HOLD) %ld (not held "
                   "%ld, started at a busy stream's previous stop %ld; read before any offset was learned %ld)\n",
                count_sum(n->unheld_drawn, n->gap_shared), n->unheld_drawn, n->gap_shared, n->unheld_unlearned);
        if (n->unheld_no_reference) /* their shapes past a kernel's words for the draw, say (hold.h) */
            fprintf(f, "Of those, read with no offset because no launch of their shape, nor of a near grid of their "
                       "kernel, was measured in full %ld (their times keep the launch latency an offset would have "
                       "taken off)\n",
                    n->unheld_no_reference);
    }
    if (n->stop_idle) /* a host held up after its kernel was queued: timing/queue.h */
        fprintf(f, "Read as their kernel's mean because their stop was stamped on an idle stream %ld\n", n->stop_idle);
    if (n->start_idle) /* a host held up inside a launch call on a busy stream: timing/harvest.c */
        fprintf(f, "Read from their launch call's return because their stream ran dry before their kernel was queued "
                   "%ld (their kernel's mean, or as on an idle stream)\n", n->start_idle);
    if (n->beside_htod) /* the GPU reads a kernel's launch behind the copy's reads: calibrate.h */
        fprintf(f, "Started beside another stream's HtoD copy %ld (its delay taken off)\n", n->beside_htod);
    if (n->behind_filling) /* timing/harvest.c, past_filling */
        fprintf(f, "Started while a kernel of another stream filled the device %ld (read from its end)\n",
                n->behind_filling);
    if (n->unasked) /* calibrate.h, seen_ns */
        fprintf(f, "Queries left out (the event recorded too recently to have completed) %ld\n", n->unasked);
    if (n->unasked_held || n->unasked_cheap) /* was the stream idle: timing/timing.c, timing_end */
        fprintf(f, "Idle-stream queries left out: held, the hold not yet able to give up %ld; not drawn, read with "
                   "the learned offset (KPROF_HOLD) %ld\n", n->unasked_held, n->unasked_cheap);
    if (n->not_held_traced) /* torch.profiler and other CUPTI tracers would see kprof_hold */
        fprintf(f, "Not held while another tool traced kernels through CUPTI %ld (timed as without holds)\n",
                n->not_held_traced);
    for (size_t i = 0; i < s->events.ncalibs; i++) {
        const struct kprof_calibration *c = &s->events.calibs[i];
        if (c->state != KPROF_CALIB_DONE) {
            fprintf(f, "Hand-off calibration, device %d: %s; kernel pairs keep their hand-off.\n", c->device,
                    kprof_calib_state_text(c->state));
            continue;
        }
        fprintf(f, "Hand-off calibration, device %d (%.1f ms): taken off each kernel's pair by its predecessor (us):",
                c->device, (double)c->cost_ns / 1e6);
        int unknown = 0;
        for (int sh = 0; sh < KPROF_START_COUNT; sh++) {
            fprintf(f, "%s", sh ? "; one event:" : "");
            /* one event: from p = 1, past IDLE (a shared start is a pending stop, never an idle stream's) */
            for (int p = sh; p < (sh ? KPROF_PRED_SHARED_COUNT : KPROF_PRED_COUNT); p++) {
                if (c->handoff_known[sh][p]) /* |v| below 5 ns: 0.00, never "-0.00" (a breaker helper) */
                    fprintf(f, " %s %.2f", kprof_pred_names[p],
                            fabs(c->handoff_ns[sh][p]) < 5.0 ? 0.0 : c->handoff_ns[sh][p] / 1e3);
                else
                    fprintf(f, " %s -", kprof_pred_names[p]);
                unknown += !c->handoff_known[sh][p];
            }
        }
        if (unknown)
            fprintf(f, " (-: too few launches fell in the situation to measure it; nothing taken off there)");
        /* Printed as -0.01 us or below: an idle stream's pairs read shorter than their kernels once the
         * idle-stream correction was off (a new user's helper asked what it meant). */
        if (c->handoff_known[0][KPROF_PRED_IDLE] && c->handoff_ns[0][KPROF_PRED_IDLE] <= -5.0)
            fprintf(f, " (idle below 0: the idle-stream correction, the host's time from the start event to the "
                       "launch call's return, took off more than the pair holds beyond its kernel; that much is "
                       "added back)");
        if (c->beside_htod_ns > 0.0)
            fprintf(f, "; beside another stream's HtoD copy, more %.2f", c->beside_htod_ns / 1e3);
        if (c->seen_ns > 0.0)
            fprintf(f, "; an event is seen complete %.2f us after its record, at least", c->seen_ns / 1e3);
        if (c->param_ns_per_kib > 0.0)
            fprintf(f, "; more %.3f per KiB of a kernel's parameters beyond %u bytes", c->param_ns_per_kib / 1e3,
                    KPROF_CALIB_PARAM_BYTES);
        fprintf(f, "%s\n", c->hold.ok ? "" : "; streams not held (KPROF_HOLD)");
    }
    fprintf(f, "== libkprof: end ==\n");
}
