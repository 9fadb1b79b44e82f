/* apitable.c: the host-side API table (calls, errors, host times and their spread, lock-free) and the
 * host time of each context's creation. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "log.h"
#include "names.h"
#include "module.h"
#include "apitable.h"
#include "tls_sets.h"

#define ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

/* ---- the API table --------------------------------------------------------------------------- */

static struct kprof_api_stat api_stats[KPROF_API_COUNT]; /* min_ns holds the smallest time + 1 (0: none) */
/* Launches KPROF_SAMPLE left untimed (kprof_api_count, kprof_api_record_untimed): all of them, and of
 * them those whose host time was read (also in api_stats and the buckets) and that time. */
static struct { uint64_t calls, read, read_ns; } api_untimed[KPROF_API_COUNT];

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

/* Untimed launches without a host time (kprof_api_count) are counted per thread: an atomic add on a counter
 * that every launching thread shares cost each launch about 0.2 us of host time with 4 threads launching on
 * the H200 (the probe build, docs/performance.md).  Each thread counts in a block of its own (tls_sets.h:
 * handed to a new thread once its own has exited; the counts are sums, read over every block).  A thread
 * that gets no block (out of memory, or exiting) counts in api_untimed. */
struct thread_counts {
    uint64_t calls[KPROF_API_COUNT]; /* written by the owning thread only, read by any (atomic) */
};
static struct kprof_tls_blocks count_blocks = { sizeof(struct thread_counts), NULL };
static __thread void *tls_counts __attribute__((tls_model("initial-exec"))); /* struct thread_counts */

/* The untimed launches of `api` counted so far, every thread's. */
static uint64_t untimed_calls(int api)
{
    uint64_t n = __atomic_load_n(&api_untimed[api].calls, __ATOMIC_RELAXED);
    for (struct thread_counts *b = kprof_tls_blocks_next(&count_blocks, NULL); b;
         b = kprof_tls_blocks_next(&count_blocks, b))
        n += __atomic_load_n(&b->calls[api], __ATOMIC_RELAXED);
    return n;
}

void kprof_api_count(int api, int ok)
{
    struct thread_counts *b = tls_counts;
    if (__builtin_expect(b == NULL, 0))
        b = kprof_tls_block(&count_blocks, &tls_counts);
    if (b)
        __atomic_store_n(&b->calls[api], b->calls[api] + 1, __ATOMIC_RELAXED);
    else
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

/* ---- context creation ------------------------------------------------------------------------ */

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kprof_ctx_init ctx_inits[64];
static size_t nctx_inits;

void kprof_ctx_init_record(int device, int api, int driver, uint64_t host_ns)
{
    uint64_t since = kprof_now_ns() - kprof_start_ns; /* the host clock is monotonic, started before */
    pthread_mutex_lock(&ctx_lock);
    static int warned;
    if (nctx_inits == sizeof ctx_inits / sizeof ctx_inits[0] && !warned++)
        kprof_warn("more than %zu contexts created: the report lists the first %zu", nctx_inits, nctx_inits);
    if (nctx_inits < sizeof ctx_inits / sizeof ctx_inits[0]) {
        struct kprof_ctx_init *c = &ctx_inits[nctx_inits++];
        c->device = device;
        c->api = api;
        c->driver = driver;
        c->host_ns = host_ns;
        c->start_ns = since > host_ns ? since - host_ns : 0;
        kprof_api_pair_label(c->label, sizeof c->label, api, driver);
    }
    pthread_mutex_unlock(&ctx_lock);
}

/* ---- snapshot and fork ----------------------------------------------------------------------- */

/* Fills out[api] with each API function's figures. */
static void api_snapshot(struct kprof_api_stat out[KPROF_API_COUNT])
{
    for (int i = 0; i < KPROF_API_COUNT; i++) {
        uint64_t read = __atomic_load_n(&api_stats[i].calls, __ATOMIC_RELAXED);
        uint64_t measured = __atomic_load_n(&api_stats[i].total_ns, __ATOMIC_RELAXED);
        uint64_t untimed = untimed_calls(i);
        uint64_t u_read = __atomic_load_n(&api_untimed[i].read, __ATOMIC_RELAXED);
        uint64_t u_ns = __atomic_load_n(&api_untimed[i].read_ns, __ATOMIC_RELAXED);
        out[i].calls = read - u_read + untimed;
        out[i].errors = __atomic_load_n(&api_stats[i].errors, __ATOMIC_RELAXED);
        /* Of the launches KPROF_SAMPLE left untimed, only some had their host time read: their total is
         * estimated from those (their mean x their number); the other figures are of the calls read. */
        out[i].total_ns = untimed > u_read && u_read
                                 ? measured - u_ns + (uint64_t)((double)u_ns * (double)untimed / (double)u_read + 0.5)
                                 : measured;
        out[i].max_ns = __atomic_load_n(&api_stats[i].max_ns, __ATOMIC_RELAXED);
        uint64_t low = __atomic_load_n(&api_stats[i].min_ns, __ATOMIC_RELAXED);
        out[i].min_ns = low ? low - 1 : 0;
        out[i].median_ns = api_median(i, out[i].min_ns, out[i].max_ns, &out[i].mid_ns);
        out[i].stddev_ns = api_stddev(i, read, measured);
    }
}

void kprof_apitable_snapshot(struct kprof_apitable_part *p)
{
    pthread_mutex_lock(&ctx_lock);
    p->nctx_inits = nctx_inits;
    p->ctx_inits = calloc(nctx_inits ? nctx_inits : 1, sizeof *p->ctx_inits);
    if (p->ctx_inits)
        memcpy(p->ctx_inits, ctx_inits, nctx_inits * sizeof *ctx_inits);
    else
        p->nctx_inits = 0;
    pthread_mutex_unlock(&ctx_lock);
    api_snapshot(p->api);
}

void kprof_apitable_part_free(struct kprof_apitable_part *p)
{
    free(p->ctx_inits);
}

/* In a forked child: a fresh start, so its report holds only what the child itself does. */
static void apitable_reset(void)
{
    memset(api_stats, 0, sizeof api_stats);
    memset(api_untimed, 0, sizeof api_untimed);
    /* Every block's counts, the child's thread's and those of threads that do not exist in it (held for
     * good: tls_sets.h). */
    for (struct thread_counts *b = kprof_tls_blocks_next(&count_blocks, NULL); b;
         b = kprof_tls_blocks_next(&count_blocks, b))
        memset(b->calls, 0, sizeof b->calls);
    memset(api_buckets, 0, sizeof api_buckets);
    memset(api_spread, 0, sizeof api_spread);
    nctx_inits = 0;
}

/* Order 27: the context creations' lock is never held while another module's is taken, nor taken under one. */
KPROF_MUTEX_MODULE(apitable, 27, ctx_lock, apitable_reset)
