/* stats.c: aggregation besides kernels (kernels.c), copies (transfers.c) and allocations (allocs.c):
 * devices' busy time, the trace, the host-side API table and context creation; the snapshot's part. */
#include <math.h>
#include <time.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_api.h"
#include "log.h"
#include "kprof_config.h"
#include "clock.h"
#include "fork.h"
#include "sample.h"
#include "kernels.h"
#include "transfers.h"
#include "allocs.h"
#include "stats.h"

#define ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- samples: devices' busy time and the trace ------------------------------------------------ */

/* The union of a device's kernel intervals, kept as up to BUSY_OPEN disjoint intervals sorted by start;
 * when full, the oldest is closed into busy_closed (pairs arrive nearly in time order, so nothing later
 * overlaps it).  Bounded memory however many kernels run. */
#define BUSY_OPEN 256
#define MAX_DEVICES 64
struct busy { uint64_t start, end; };
static struct device_acc {
    int used;
    uint64_t kernel_ns, kernels, busy_closed;
    struct busy open[BUSY_OPEN];
    int nopen;
} devices[MAX_DEVICES];

static void busy_add(struct device_acc *d, uint64_t start, uint64_t end)
{
    if (end <= start)
        return;
    /* Samples arrive nearly in time order, so the place is found from the newest end: j is one past the
     * last interval starting at or before `end`, [i, j) the ones it touches, merged with it. */
    int j = d->nopen;
    while (j > 0 && d->open[j - 1].start > end)
        j--;
    int i = j;
    while (i > 0 && d->open[i - 1].end >= start)
        i--;
    if (i < j) {
        if (d->open[i].start < start)
            start = d->open[i].start;
        if (d->open[j - 1].end > end)
            end = d->open[j - 1].end;
    }
    if (j == i && d->nopen == BUSY_OPEN) { /* full: close the oldest quarter at once (one move, not one each) */
        if (i == 0) { /* older than everything kept: count it closed */
            d->busy_closed += end - start;
            return;
        }
        int k = i < BUSY_OPEN / 4 ? i : BUSY_OPEN / 4;
        for (int c = 0; c < k; c++)
            d->busy_closed += d->open[c].end - d->open[c].start;
        memmove(&d->open[0], &d->open[k], (size_t)(d->nopen - k) * sizeof d->open[0]);
        d->nopen -= k;
        i -= k;
        j -= k;
    }
    memmove(&d->open[i + 1], &d->open[j], (size_t)(d->nopen - j) * sizeof d->open[0]);
    d->nopen -= j - i - 1;
    d->open[i].start = start;
    d->open[i].end = end;
}

/* Where each stream's last kernel ended on the timeline, by stream number (0: none yet).  A stream runs its
 * kernels one after another, but a start is read as float ms from a reference event and can land a few ns
 * (on a GPU, up to its event resolution) before the previous kernel's end: taken at face value, the two
 * would overlap and the union (busy) read less than the stream's own kernel time. */
static struct {
    uint64_t *end;
    size_t n;
} stream_ends;

/* The start of a kernel that began at start_ns on stream `index`, no earlier than the stream's last
 * kernel's end; records its end.  Under stats_lock. */
static uint64_t stream_ordered_start(unsigned index, uint64_t start_ns, uint64_t dur_ns)
{
    if (index >= stream_ends.n) {
        size_t n = (size_t)index + 16;
        uint64_t *a = realloc(stream_ends.end, n * sizeof *a);
        if (!a)
            return start_ns; /* no memory: the start as read */
        memset(a + stream_ends.n, 0, (n - stream_ends.n) * sizeof *a);
        stream_ends.end = a;
        stream_ends.n = n;
    }
    uint64_t *last = &stream_ends.end[index];
    if (start_ns < *last) /* the pairs of a stream are read in its order */
        start_ns = *last;
    if (start_ns + dur_ns > *last)
        *last = start_ns + dur_ns;
    return start_ns;
}

static struct {
    struct kprof_trace_event *ev;
    size_t n, cap;
    uint64_t dropped;
    struct kprof_stream_name *streams;
    size_t nstreams;
} trace;

void kprof_stream_named(unsigned index, int device, const char *name)
{
    pthread_mutex_lock(&stats_lock);
    if (index >= trace.nstreams) {
        size_t n = (size_t)index + 16;
        struct kprof_stream_name *a = realloc(trace.streams, n * sizeof *a);
        if (a) {
            memset(a + trace.nstreams, 0, (n - trace.nstreams) * sizeof *a);
            trace.streams = a;
            trace.nstreams = n;
        }
    }
    if (index < trace.nstreams) {
        free(trace.streams[index].name);
        trace.streams[index].name = strdup(name);
        trace.streams[index].device = device;
    }
    pthread_mutex_unlock(&stats_lock);
}

static void trace_add(const struct kprof_sample *s)
{
    if (trace.n == trace.cap) {
        if (trace.cap >= (size_t)kprof_config.trace_limit) {
            trace.dropped++;
            return;
        }
        size_t cap = trace.cap ? trace.cap * 2 : 4096;
        if (cap > (size_t)kprof_config.trace_limit)
            cap = (size_t)kprof_config.trace_limit;
        struct kprof_trace_event *e = realloc(trace.ev, cap * sizeof *e);
        if (!e) {
            trace.dropped++;
            return;
        }
        trace.ev = e;
        trace.cap = cap;
    }
    struct kprof_trace_event *e = &trace.ev[trace.n++];
    e->start_ns = s->start_ns;
    e->dur_ns = s->dur_ns;
    e->target = s->target;
    e->bytes = s->bytes;
    memcpy(e->grid, s->grid, sizeof e->grid);
    memcpy(e->block, s->block, sizeof e->block);
    e->device = s->device;
    e->stream_index = s->stream_index;
    e->kind = (unsigned char)s->kind;
    e->pred = s->pred;
    e->shared = s->shared;
    e->taken_ns = s->taken_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)s->taken_ns;
}

void kprof_sample_record(const struct kprof_sample *s)
{
    if (s->kind == KPROF_TARGET_COPY)
        kprof_copy_add_time(s->target, s->dur_ns, s->bytes);
    else
        kprof_kernel_add_sample(s);
    /* A graph's time counts as kernel time on its device: its kernels are not timed one by one. */
    pthread_mutex_lock(&stats_lock);
    if (s->kind != KPROF_TARGET_COPY && s->device >= 0 && s->device < MAX_DEVICES) {
        struct device_acc *d = &devices[s->device];
        d->used = 1;
        d->kernel_ns += s->dur_ns;
        d->kernels++;
        if (s->has_time) {
            uint64_t start = stream_ordered_start(s->stream_index, s->start_ns, s->dur_ns);
            busy_add(d, start, start + s->dur_ns);
        }
    }
    if (kprof_config.trace && s->has_time)
        trace_add(s);
    pthread_mutex_unlock(&stats_lock);
}

/* ---- host-side API table and context creation ------------------------------------------------ */

static struct kprof_api_stat api_stats[KPROF_API_COUNT]; /* min_ns holds the smallest time + 1 (0: none) */
/* Launches KPROF_SAMPLE left untimed (kprof_api_count, kprof_api_record_untimed): all of them, and of
 * them those whose host time was read (also in api_stats and the buckets) and that time. */
static struct { uint64_t calls, read, read_ns; } api_untimed[KPROF_API_COUNT];
static struct kprof_ctx_init ctx_inits[64];
static size_t nctx_inits;

/* Each API's host times, counted lock-free in log-linear buckets for its median: exact below 16 ns, then 8
 * buckets per power of two (each at most 1/8 of its lower bound wide, so the midpoint is within 1/16 =
 * 6.25% of any value in it) up to 2^41 ns (37 minutes; longer calls share the last bucket).  Kernels keep
 * 64 per power of two (histogram.h), but under a lock: an API call is counted by atomic adds only. */
#define API_SUB_BITS 3
#define API_BUCKETS (16 + (41 - 4) * (1 << API_SUB_BITS))
static uint64_t api_buckets[KPROF_API_COUNT][API_BUCKETS];

static unsigned api_bucket(uint64_t ns)
{
    if (ns < 16)
        return (unsigned)ns;
    unsigned g = 63u - (unsigned)__builtin_clzll(ns); /* 4 .. 63: ns in [2^g, 2^(g+1)) */
    unsigned i = 16 + (g - 4) * (1u << API_SUB_BITS) + (unsigned)((ns >> (g - API_SUB_BITS)) & ((1u << API_SUB_BITS) - 1));
    return i < API_BUCKETS ? i : API_BUCKETS - 1;
}

/* The midpoint of bucket i, in ns (the value itself below 16 ns). */
static uint64_t api_bucket_mid(unsigned i)
{
    if (i < 16)
        return i;
    unsigned g = 4 + (i - 16) / (1u << API_SUB_BITS), sub = (i - 16) % (1u << API_SUB_BITS);
    uint64_t width = (uint64_t)1 << (g - API_SUB_BITS);
    return ((uint64_t)((1u << API_SUB_BITS) + sub) << (g - API_SUB_BITS)) + width / 2;
}

/* The API's call of rank `rank` (1 .. n) among its n counted times, ns: min and max themselves for the
 * first and the last, else the bucket's midpoint clamped to [min, max]. */
static uint64_t api_at_rank(int api, uint64_t rank, uint64_t n, uint64_t min_ns, uint64_t max_ns)
{
    if (rank <= 1)
        return min_ns;
    if (rank >= n)
        return max_ns;
    uint64_t seen = 0;
    for (unsigned i = 0; i < API_BUCKETS; i++) {
        seen += __atomic_load_n(&api_buckets[api][i], __ATOMIC_RELAXED);
        if (seen >= rank) {
            uint64_t v = api_bucket_mid(i);
            return v < min_ns ? min_ns : v > max_ns ? max_ns : v;
        }
    }
    return max_ns;
}

/* The median of an API's counted times, ns: the nearest rank's, and into *mid nsys's (the mean of the two
 * middle calls for an even count).  Buckets read without a lock while calls go on, so the ranks are of
 * the counts read. */
static uint64_t api_median(int api, uint64_t min_ns, uint64_t max_ns, double *mid)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < API_BUCKETS; i++)
        n += __atomic_load_n(&api_buckets[api][i], __ATOMIC_RELAXED);
    *mid = 0.0;
    if (n == 0)
        return 0;
    uint64_t lo = api_at_rank(api, (n + 1) / 2, n, min_ns, max_ns);
    *mid = n % 2 ? (double)lo : ((double)lo + (double)api_at_rank(api, n / 2 + 1, n, min_ns, max_ns)) / 2.0;
    return lo;
}

/* Each API's spread, lock-free and with one atomic add per call: the first call's time as a shift K
 * (stored + 1; 0 until then) and the sum of the calls' (t - K)^2, from which, with the sum of t - K known
 * from the total and the count (total - n K), the variance is (S2 - S1^2 / n) / (n - 1); shifted, long
 * calls that vary little keep their digits (plain sums of t and t^2 would cancel).  The sum of squares is
 * an integer (exact) while |t - K| < 2^32 ns (4.3 s), wrapping at 2^64: each wrap, and each larger square,
 * goes to `big` (a compare-and-swap loop, rare). */
static struct { uint64_t shift, sq; double big; } api_spread[KPROF_API_COUNT];

static void api_spread_big(int api, double v)
{
    double old, sum;
    __atomic_load(&api_spread[api].big, &old, __ATOMIC_RELAXED);
    do
        sum = old + v;
    while (!__atomic_compare_exchange(&api_spread[api].big, &old, &sum, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void api_spread_add(int api, uint64_t ns)
{
    uint64_t k = __atomic_load_n(&api_spread[api].shift, __ATOMIC_RELAXED);
    if (k == 0 && __atomic_compare_exchange_n(&api_spread[api].shift, &k, ns + 1, 0, __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED))
        k = ns + 1; /* else k holds the shift another call stored */
    uint64_t d = ns >= k - 1 ? ns - (k - 1) : (k - 1) - ns;
    if (d >= (uint64_t)1 << 32) {
        api_spread_big(api, (double)d * (double)d);
        return;
    }
    uint64_t sq = d * d, before = ATOMIC_ADD(&api_spread[api].sq, sq);
    if (before + sq < before)
        api_spread_big(api, 18446744073709551616.0); /* the 2^64 the sum wrapped past */
}

/* The sample standard deviation of an API's n calls of `total` ns (0 for fewer than two). */
static double api_stddev(int api, uint64_t n, uint64_t total)
{
    uint64_t k = __atomic_load_n(&api_spread[api].shift, __ATOMIC_RELAXED);
    if (n < 2 || k == 0)
        return 0.0;
    double big, s1 = (double)total - (double)n * (double)(k - 1);
    __atomic_load(&api_spread[api].big, &big, __ATOMIC_RELAXED);
    double s2 = big + (double)__atomic_load_n(&api_spread[api].sq, __ATOMIC_RELAXED);
    double var = (s2 - s1 * s1 / (double)n) / (double)(n - 1);
    return var > 0.0 ? sqrt(var) : 0.0; /* read while calls go on, the sums can be a call apart */
}

void kprof_api_record(int api, uint64_t host_ns, int ok)
{
    struct kprof_api_stat *a = &api_stats[api];
    ATOMIC_ADD(&a->calls, 1);
    if (!ok)
        ATOMIC_ADD(&a->errors, 1);
    ATOMIC_ADD(&a->total_ns, host_ns);
    ATOMIC_ADD(&api_buckets[api][api_bucket(host_ns)], 1);
    api_spread_add(api, host_ns);
    uint64_t m = __atomic_load_n(&a->max_ns, __ATOMIC_RELAXED);
    while (host_ns > m &&
           !__atomic_compare_exchange_n(&a->max_ns, &m, host_ns, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    uint64_t low = host_ns + 1;
    m = __atomic_load_n(&a->min_ns, __ATOMIC_RELAXED);
    while ((m == 0 || low < m) &&
           !__atomic_compare_exchange_n(&a->min_ns, &m, low, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void kprof_api_count(int api, int ok)
{
    ATOMIC_ADD(&api_untimed[api].calls, 1);
    if (!ok)
        ATOMIC_ADD(&api_stats[api].errors, 1);
}

void kprof_api_record_untimed(int api, uint64_t host_ns, int ok)
{
    kprof_api_record(api, host_ns, ok);
    ATOMIC_ADD(&api_untimed[api].calls, 1);
    ATOMIC_ADD(&api_untimed[api].read, 1);
    ATOMIC_ADD(&api_untimed[api].read_ns, host_ns);
}

void kprof_ctx_init_record(int device, int api, int driver, uint64_t host_ns)
{
    pthread_mutex_lock(&stats_lock);
    static int warned;
    if (nctx_inits == sizeof ctx_inits / sizeof ctx_inits[0] && !warned++)
        kprof_warn("more than %zu contexts created: the report lists the first %zu", nctx_inits, nctx_inits);
    if (nctx_inits < sizeof ctx_inits / sizeof ctx_inits[0]) {
        struct kprof_ctx_init *c = &ctx_inits[nctx_inits++];
        c->device = device;
        c->api = api;
        c->driver = driver;
        c->host_ns = host_ns;
        kprof_api_pair_label(c->label, sizeof c->label, api, driver);
    }
    pthread_mutex_unlock(&stats_lock);
}

/* ---- snapshot -------------------------------------------------------------------------------- */

void kprof_stats_snapshot(struct kprof_stats_part *p)
{
    kprof_transfers_snapshot(p->copies, &p->memsets);
    pthread_mutex_lock(&stats_lock);
    p->devices = calloc(MAX_DEVICES, sizeof *p->devices);
    for (int i = 0; i < MAX_DEVICES && p->devices; i++) {
        if (!devices[i].used)
            continue;
        struct kprof_device_stat *d = &p->devices[p->ndevices++];
        d->device = i;
        d->kernel_ns = devices[i].kernel_ns;
        d->kernels = devices[i].kernels;
        d->busy_ns = devices[i].busy_closed;
        for (int j = 0; j < devices[i].nopen; j++)
            d->busy_ns += devices[i].open[j].end - devices[i].open[j].start;
    }
    p->trace = trace.ev;
    p->ntrace = trace.n;
    p->trace_dropped = trace.dropped;
    p->streams = trace.streams;
    p->nstreams = trace.nstreams;
    p->nctx_inits = nctx_inits;
    p->ctx_inits = calloc(nctx_inits ? nctx_inits : 1, sizeof *p->ctx_inits);
    if (p->ctx_inits)
        memcpy(p->ctx_inits, ctx_inits, nctx_inits * sizeof *ctx_inits);
    else
        p->nctx_inits = 0;
    pthread_mutex_unlock(&stats_lock);

    kprof_allocs_snapshot(p->alloc);
    for (int i = 0; i < KPROF_API_COUNT; i++) {
        uint64_t read = __atomic_load_n(&api_stats[i].calls, __ATOMIC_RELAXED);
        uint64_t measured = __atomic_load_n(&api_stats[i].total_ns, __ATOMIC_RELAXED);
        uint64_t untimed = __atomic_load_n(&api_untimed[i].calls, __ATOMIC_RELAXED);
        uint64_t u_read = __atomic_load_n(&api_untimed[i].read, __ATOMIC_RELAXED);
        uint64_t u_ns = __atomic_load_n(&api_untimed[i].read_ns, __ATOMIC_RELAXED);
        p->api[i].calls = read - u_read + untimed;
        p->api[i].errors = __atomic_load_n(&api_stats[i].errors, __ATOMIC_RELAXED);
        /* Of the launches KPROF_SAMPLE left untimed, only some had their host time read: their total is
         * estimated from those (their mean x their number); the other figures are of the calls read. */
        p->api[i].total_ns = untimed > u_read && u_read
                                 ? measured - u_ns + (uint64_t)((double)u_ns * (double)untimed / (double)u_read + 0.5)
                                 : measured;
        p->api[i].max_ns = __atomic_load_n(&api_stats[i].max_ns, __ATOMIC_RELAXED);
        uint64_t low = __atomic_load_n(&api_stats[i].min_ns, __ATOMIC_RELAXED);
        p->api[i].min_ns = low ? low - 1 : 0;
        p->api[i].median_ns = api_median(i, p->api[i].min_ns, p->api[i].max_ns, &p->api[i].mid_ns);
        p->api[i].stddev_ns = api_stddev(i, read, measured);
    }
}

/* ---- fork ------------------------------------------------------------------------------------ */

/* Whether fork_prepare got the lock (waited for at most 200 ms, never for ever). */
static int fork_held;

static int fork_prepare(void)
{
    struct timespec t = kprof_deadline_ms(200);
    fork_held = pthread_mutex_timedlock(&stats_lock, &t) == 0;
    return fork_held;
}

static void fork_parent(void)
{
    if (fork_held)
        pthread_mutex_unlock(&stats_lock);
}

/* In the child: a fresh start, so its report holds only what the child itself does. */
static void fork_child(void)
{
    pthread_mutex_init(&stats_lock, NULL);
    memset(devices, 0, sizeof devices);
    if (stream_ends.end)
        memset(stream_ends.end, 0, stream_ends.n * sizeof *stream_ends.end);
    memset(api_stats, 0, sizeof api_stats);
    memset(api_untimed, 0, sizeof api_untimed);
    memset(api_buckets, 0, sizeof api_buckets);
    memset(api_spread, 0, sizeof api_spread);
    nctx_inits = 0;
    free(trace.ev);
    trace.ev = NULL;
    trace.n = trace.cap = 0;
    trace.dropped = 0;
}

KPROF_FORK_MODULE(stats, 25, fork_prepare, fork_parent, fork_child)
