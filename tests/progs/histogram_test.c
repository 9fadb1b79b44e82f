/* histogram_test.c: unit test of src/histogram.c: percentiles vs exact nearest-rank ones, medians, error bound,
 * merge. */
/*
 * Built from this file and src/histogram.c alone (no CUDA, no libkprof).  For each sample set it builds a
 * histogram, sorts a copy of the samples, and compares p50/p90/p95/p99/p99.9, min and max with the exact
 * nearest-rank percentiles (rank ceil(q/100 * N) in integer arithmetic), and its median (kprof_hist_median,
 * also with one sample kept apart) with the exact one, asserting |got - exact| <= exact * 2^-7 (exact
 * equality below 128 ns and where the set says so).  Prints one line
 * per check ("ok ..." or "FAIL ..."); exits 1 if any check failed.
 *
 * With -DKPROF_HIST_REALLOC=histogram_test_realloc on both files it also checks the allocation-failure
 * paths (sample dropped, histogram still usable); without it those checks are reported as skipped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "histogram.h"

static int failures, checks;

static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    checks++;
    if (!ok)
        failures++;
    printf("%s ", ok ? "ok  " : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* splitmix64: a fixed-seed PRNG, so every run sees the same samples */
static uint64_t rng_state;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_unit(void) { return ((double)(rng() >> 11) + 0.5) / 9007199254740992.0; } /* (0, 1) */
static double rng_normal(void)
{
    return sqrt(-2.0 * log(rng_unit())) * cos(6.283185307179586 * rng_unit());
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Exact nearest-rank percentile of sorted[0..n) for q = q10 / 10 %. */
static uint64_t exact_pct(const uint64_t *sorted, uint64_t n, uint64_t q10)
{
    uint64_t rank = (q10 * n + 999) / 1000;
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

/* Within the documented bound of exact (and identical to it below 128 ns, or everywhere if `exact_only`)? */
static int within(uint64_t got, uint64_t exact, int exact_only)
{
    if (exact_only || exact < 128)
        return got == exact;
    if (exact >= KPROF_HIST_LIMIT)
        return 1; /* the overflow bucket: checked separately */
    uint64_t d = got > exact ? got - exact : exact - got;
    return (long double)d <= (long double)exact * KPROF_HIST_REL_ERROR; /* exact: a power of two */
}

static double relerr(uint64_t got, uint64_t exact)
{
    return exact ? fabs((double)got - (double)exact) / (double)exact * 100.0 : (got ? INFINITY : 0.0);
}

static const uint64_t Q10[] = {500, 900, 950, 990, 999};

/* Compares h (built from the n samples `sorted`, sorted ascending) with the exact percentiles. */
static void check_hist(const char *name, const struct kprof_hist *h, const uint64_t *sorted, uint64_t n,
                       int exact_only)
{
    check(kprof_hist_count(h) == n, "%-24s count    %" PRIu64 " (expected %" PRIu64 ")", name,
          kprof_hist_count(h), n);
    uint64_t mn = kprof_hist_min(h), mx = kprof_hist_max(h);
    check(mn == sorted[0] && kprof_hist_percentile(h, 0) == sorted[0], "%-24s min      %" PRIu64
          " p0 %" PRIu64 " (exact %" PRIu64 ")", name, mn, kprof_hist_percentile(h, 0), sorted[0]);
    check(mx == sorted[n - 1] && kprof_hist_percentile(h, 100) == sorted[n - 1], "%-24s max      %" PRIu64
          " p100 %" PRIu64 " (exact %" PRIu64 ")", name, mx, kprof_hist_percentile(h, 100), sorted[n - 1]);
    for (size_t i = 0; i < sizeof Q10 / sizeof *Q10; i++) {
        uint64_t exact = exact_pct(sorted, n, Q10[i]);
        uint64_t got = kprof_hist_percentile(h, (double)Q10[i] / 10.0);
        char q[16];
        snprintf(q, sizeof q, "p%g", (double)Q10[i] / 10.0);
        check(within(got, exact, exact_only) && got >= mn && got <= mx,
              "%-24s %-8s %" PRIu64 " (exact %" PRIu64 ", rel err %.4f%%, bound %s)", name, q, got, exact,
              relerr(got, exact), exact_only || exact < 128 ? "exact" : "0.78125%");
    }
}

/* Every q from 0 to 100 in steps of 0.1: the rank the histogram picks from a double q must be the exact
 * integer one, and the answer within the bound.  One line. */
static void sweep(const char *name, const struct kprof_hist *h, const uint64_t *sorted, uint64_t n)
{
    int bad = 0;
    double worst = 0;
    for (uint64_t q10 = 0; q10 <= 1000; q10++) {
        uint64_t exact = exact_pct(sorted, n, q10);
        uint64_t got = kprof_hist_percentile(h, (double)q10 / 10.0);
        if (!within(got, exact, 0)) {
            if (!bad)
                printf("     %s: q %.1f got %" PRIu64 " exact %" PRIu64 "\n", name, (double)q10 / 10.0, got, exact);
            bad++;
        }
        if (relerr(got, exact) > worst)
            worst = relerr(got, exact);
    }
    check(!bad, "%-24s sweep q = 0, 0.1 .. 100: %d outside the bound, worst rel err %.4f%%", name, bad, worst);
}

/* The exact median of sorted[0..n) as nsys computes it: the middle sample, or the mean of the two middle
 * ones. */
static double exact_median(const uint64_t *sorted, uint64_t n)
{
    return n % 2 ? (double)sorted[n / 2] : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2.0;
}

/* kprof_hist_median of h against the exact median, each middle sample within the bound (so their mean is
 * too); `what` says which samples. */
static void check_median(const char *name, const char *what, double got, double exact, int exact_only)
{
    int ok = exact_only || exact < 128 ? got == exact : fabs(got - exact) <= exact * KPROF_HIST_REL_ERROR;
    check(ok, "%-24s median %-14s %.1f (exact %.1f, bound %s)", name, what, got, exact,
          exact_only || exact < 128 ? "exact" : "0.78125%");
}

static void run_set(const char *name, uint64_t *samples, uint64_t n, int exact_only, int do_sweep)
{
    struct kprof_hist h = KPROF_HIST_INIT;
    /* The first sample kept out of the histogram, then given as kprof_hist_median's `also`, as a kernel's
     * first launch is. */
    uint64_t first = samples[0];
    for (uint64_t i = 1; i < n; i++)
        kprof_hist_add(&h, samples[i]);
    qsort(samples + 1, n - 1, sizeof *samples, cmp_u64);
    if (n > 1)
        check_median(name, "of the rest", kprof_hist_median(&h, NULL), exact_median(samples + 1, n - 1),
                     exact_only);
    kprof_hist_add(&h, first);
    qsort(samples, n, sizeof *samples, cmp_u64);
    check_hist(name, &h, samples, n, exact_only);
    check_median(name, "of all", kprof_hist_median(&h, NULL), exact_median(samples, n), exact_only);
    if (do_sweep)
        sweep(name, &h, samples, n);
    kprof_hist_free(&h);
    /* The same samples, the first apart. */
    for (uint64_t i = 0; i < n; i++)
        if (samples[i] == first) {
            samples[i] = samples[n - 1];
            break;
        }
    for (uint64_t i = 0; i + 1 < n; i++)
        kprof_hist_add(&h, samples[i]);
    samples[n - 1] = first;
    qsort(samples, n, sizeof *samples, cmp_u64);
    check_median(name, "first apart", kprof_hist_median(&h, &first), exact_median(samples, n), exact_only);
    kprof_hist_free(&h);
}

/* Small sets whose medians are known: an even count averages the two middle samples; the extra sample
 * can be the smallest, the largest, or in the overflow bucket. */
static void medians(void)
{
    struct kprof_hist h = KPROF_HIST_INIT;
    uint64_t x = 40;
    check(kprof_hist_median(&h, NULL) == 0.0 && kprof_hist_median(&h, &x) == 40.0,
          "median                   empty: 0; empty and one more sample 40: 40");
    kprof_hist_add(&h, 10);
    check(kprof_hist_median(&h, NULL) == 10.0 && kprof_hist_median(&h, &x) == 25.0,
          "median                   {10}: 10; {10} and 40: 25 (mean of the two)");
    kprof_hist_add(&h, 20);
    kprof_hist_add(&h, 30);
    check(kprof_hist_median(&h, NULL) == 20.0 && kprof_hist_median(&h, &x) == 25.0,
          "median                   {10, 20, 30}: 20; and 40: 25");
    x = 1;
    check(kprof_hist_median(&h, &x) == 15.0, "median                   {10, 20, 30} and 1: 15");
    x = (uint64_t)1 << 50;
    check(kprof_hist_median(&h, &x) == 25.0, "median                   {10, 20, 30} and 2^50 (overflow): 25");
    kprof_hist_free(&h);
    kprof_hist_add(&h, 1000);
    kprof_hist_add(&h, 3000);
    x = 2000;
    double m = kprof_hist_median(&h, &x);
    check(kprof_hist_median(&h, NULL) == 2000.0 && fabs(m - 2000.0) <= 2000.0 * KPROF_HIST_REL_ERROR,
          "median                   {1000, 3000}: 2000 (the ends exact); and 2000: %.1f (within the bound)", m);
    kprof_hist_free(&h);
}

#define N 1000000

/* The representative of every bucket, at its edges and inside, against the value itself: three samples
 * {0, v, 2^50}, so that p50 (rank 2) is v's bucket and the [min, max] clamp does not apply. */
static void bucket_bound(void)
{
    double worst = 0;
    uint64_t worst_v = 0, bad = 0, tested = 0;
    for (int pass = 0; pass < 3; pass++) {
        uint64_t count = pass == 0 ? 1u << 17 : pass == 1 ? 2 * (uint64_t)KPROF_HIST_BUCKETS : N;
        for (uint64_t k = 0; k < count; k++) {
            uint64_t v;
            if (pass == 0) {
                v = k; /* every value below 2^17 */
            } else if (pass == 1) { /* the lowest and highest value of every bucket, computed independently */
                uint64_t b = k / 2, g = b / 64, s = b % 64;
                uint64_t lo = g == 0 ? s : (64 + s) << (g - 1), width = g == 0 ? 1 : (uint64_t)1 << (g - 1);
                v = k % 2 ? lo + width - 1 : lo;
            } else { /* log-uniform below 2^43 */
                v = (uint64_t)exp2(rng_unit() * 43.0);
            }
            struct kprof_hist h = KPROF_HIST_INIT;
            kprof_hist_add(&h, 0);
            kprof_hist_add(&h, v);
            kprof_hist_add(&h, (uint64_t)1 << 50);
            uint64_t got = kprof_hist_percentile(&h, 50);
            kprof_hist_free(&h);
            tested++;
            if (!within(got, v, 0)) {
                if (!bad)
                    printf("     bucket bound: v %" PRIu64 " got %" PRIu64 "\n", v, got);
                bad++;
            }
            if (relerr(got, v) > worst) {
                worst = relerr(got, v);
                worst_v = v;
            }
        }
    }
    check(!bad && worst <= 100.0 * KPROF_HIST_REL_ERROR,
          "bucket representatives    %" PRIu64 " values (all < 2^17, both edges of all %u buckets, 10^6 "
          "log-uniform < 2^43): %" PRIu64 " outside, worst rel err %.5f%% at %" PRIu64 " (bound 0.78125%%)",
          tested, (unsigned)KPROF_HIST_BUCKETS, bad, worst, worst_v);
}

/* Rank selection: q is a double (64.4 is not exactly representable), and q * N / 100 computed in floating
 * point can land a few ulps above the integer rank (64.4 * 250 / 100 = 161.00000000000003), which a plain
 * ceil would turn into rank 162.  For every N <= 2000 and q = 0, 0.1 .. 100 where q * N / 100 is an integer
 * k, a histogram of k samples of 10 ns and N - k of 20 ns must answer 10, and one of k - 1 samples of
 * 10 ns and the rest 20 ns must answer 20. */
static void rank_boundaries(void)
{
    uint64_t cases = 0, bad = 0;
    for (uint64_t n = 1; n <= 2000; n++) {
        for (uint64_t q10 = 1; q10 < 1000; q10++) {
            if (q10 * n % 1000)
                continue;
            uint64_t k = q10 * n / 1000;
            for (int below = 0; below < 2; below++) {
                if (below && k < 2)
                    continue;
                struct kprof_hist h = KPROF_HIST_INIT;
                uint64_t tens = below ? k - 1 : k;
                for (uint64_t i = 0; i < n; i++)
                    kprof_hist_add(&h, i < tens ? 10 : 20);
                uint64_t got = kprof_hist_percentile(&h, (double)q10 / 10.0);
                kprof_hist_free(&h);
                cases++;
                if (got != (below ? 20u : 10u)) {
                    if (!bad)
                        printf("     rank: N %" PRIu64 " q %.1f: %" PRIu64 " samples of 10 then 20s, got %" PRIu64
                               "\n", n, (double)q10 / 10.0, tens, got);
                    bad++;
                }
            }
        }
    }
    check(!bad, "rank boundaries          %" PRIu64 " cases (N <= 2000, q*N/100 an integer, rank k and k-1): "
          "%" PRIu64 " wrong", cases, bad);
}

static void empty_and_edges(void)
{
    struct kprof_hist h = KPROF_HIST_INIT;
    check(kprof_hist_count(&h) == 0 && kprof_hist_percentile(&h, 50) == 0 && kprof_hist_percentile(&h, 100) == 0
          && kprof_hist_min(&h) == 0 && kprof_hist_max(&h) == 0 && h.counts == NULL,
          "empty                    count 0, every percentile 0, min/max 0, nothing allocated");
    struct kprof_hist e = KPROF_HIST_INIT;
    kprof_hist_merge(&h, &e);
    check(kprof_hist_count(&h) == 0 && h.counts == NULL, "empty                    empty merged into empty "
          "stays empty, nothing allocated");
    kprof_hist_free(&h);
    kprof_hist_free(NULL);
    check(sizeof(struct kprof_hist) <= 48, "empty                    sizeof(struct kprof_hist) = %zu bytes",
          sizeof(struct kprof_hist));

    kprof_hist_add(&h, 123457);
    int ok = 1;
    for (int q = 0; q <= 100; q++)
        ok &= kprof_hist_percentile(&h, q) == 123457;
    check(ok && kprof_hist_count(&h) == 1, "single sample            123457 ns: every percentile 0..100 is "
          "exactly 123457 (clamped to min = max)");
    check(kprof_hist_percentile(&h, -5) == 123457 && kprof_hist_percentile(&h, 250) == 123457
          && kprof_hist_percentile(&h, NAN) == 123457, "single sample            q -5, 250, NaN clamped");
    kprof_hist_free(&h);

    /* q outside [0, 100] and NaN */
    for (uint64_t v = 1; v <= 1000; v++)
        kprof_hist_add(&h, v * 1000);
    check(kprof_hist_percentile(&h, -1) == 1000 && kprof_hist_percentile(&h, NAN) == 1000
          && kprof_hist_percentile(&h, 101) == 1000000 && kprof_hist_percentile(&h, INFINITY) == 1000000,
          "q out of range           -1 and NaN give min (1000), 101 and inf give max (1000000)");
    /* the memory bound: at most 38 groups */
    check(h.ngroups == 15, "memory                   values <= 1 ms use %u groups = %zu bytes", h.ngroups,
          (size_t)h.ngroups * KPROF_HIST_SUB_COUNT * sizeof(uint64_t));
    kprof_hist_add(&h, KPROF_HIST_LIMIT - 1);
    check(h.ngroups == KPROF_HIST_GROUPS && h.overflow == 0, "memory                   2^43 - 1 ns: %u groups "
          "= %zu bytes (the bound, %zu)", h.ngroups, (size_t)h.ngroups * KPROF_HIST_SUB_COUNT * sizeof(uint64_t),
          (size_t)KPROF_HIST_MAX_BYTES);
    kprof_hist_add(&h, UINT64_MAX);
    check(h.ngroups == KPROF_HIST_GROUPS && h.overflow == 1 && kprof_hist_max(&h) == UINT64_MAX,
          "memory                   UINT64_MAX ns: overflow bucket, still %u groups, max exact", h.ngroups);
    kprof_hist_free(&h);
    check(h.counts == NULL && kprof_hist_count(&h) == 0, "free                     leaves an empty histogram");
    kprof_hist_add(&h, 77);
    check(kprof_hist_count(&h) == 1 && kprof_hist_percentile(&h, 50) == 77, "free                     and it "
          "is usable again");
    kprof_hist_free(&h);
}

/* Samples past the bucketed range: percentiles in the overflow bucket report the maximum. */
static void overflow(void)
{
    struct kprof_hist h = KPROF_HIST_INIT;
    uint64_t big = (uint64_t)1 << 45;
    for (int i = 0; i < 1000; i++)
        kprof_hist_add(&h, 5000);
    for (int i = 0; i < 10; i++)
        kprof_hist_add(&h, big + (uint64_t)i);
    kprof_hist_add(&h, (uint64_t)1 << 50);
    /* n = 1011: p50 rank 506 (5000), p99 rank 1001 (2^45 + 0: overflow), p100 the max */
    uint64_t p50 = kprof_hist_percentile(&h, 50), p99 = kprof_hist_percentile(&h, 99);
    check(within(p50, 5000, 0) && p99 == (uint64_t)1 << 50 && kprof_hist_percentile(&h, 100) == (uint64_t)1 << 50
          && h.overflow == 11, "overflow                 p50 %" PRIu64 " (exact 5000), p99 in the overflow "
          "bucket reports max 2^50 = %" PRIu64, p50, p99);
    kprof_hist_free(&h);
}

static void merges(uint64_t *samples)
{
    /* a log-normal set split into two halves, alternately */
    rng_state = 42;
    for (uint64_t i = 0; i < N; i++)
        samples[i] = (uint64_t)exp(log(20000.0) + 1.5 * rng_normal());
    struct kprof_hist all = KPROF_HIST_INIT, a = KPROF_HIST_INIT, b = KPROF_HIST_INIT;
    for (uint64_t i = 0; i < N; i++) {
        kprof_hist_add(&all, samples[i]);
        kprof_hist_add(i % 2 ? &a : &b, samples[i]);
    }
    kprof_hist_merge(&a, &b);
    int same = a.total == all.total && a.ngroups == all.ngroups
               && !memcmp(a.counts, all.counts, all.ngroups * KPROF_HIST_SUB_COUNT * sizeof(uint64_t));
    for (int q10 = 0; q10 <= 1000; q10++)
        same &= kprof_hist_percentile(&a, q10 / 10.0) == kprof_hist_percentile(&all, q10 / 10.0);
    check(same, "merge halves             odd + even halves of log-normal: counts and every percentile "
          "identical to one histogram of all");
    qsort(samples, N, sizeof *samples, cmp_u64);
    check_hist("merge halves", &a, samples, N, 0);
    kprof_hist_free(&a);
    kprof_hist_free(&b);
    kprof_hist_free(&all);

    /* small into large and large into small (different array sizes), and into empty */
    struct kprof_hist small = KPROF_HIST_INIT, large = KPROF_HIST_INIT, s2 = KPROF_HIST_INIT, l2 = KPROF_HIST_INIT,
                      empty = KPROF_HIST_INIT;
    static uint64_t both[2000];
    for (int i = 0; i < 1000; i++) {
        uint64_t sv = 1000 + (uint64_t)i, lv = 50000000 + (uint64_t)i * 997;
        kprof_hist_add(&small, sv);
        kprof_hist_add(&s2, sv);
        kprof_hist_add(&large, lv);
        kprof_hist_add(&l2, lv);
        both[2 * i] = sv;
        both[2 * i + 1] = lv;
    }
    qsort(both, 2000, sizeof *both, cmp_u64);
    kprof_hist_merge(&small, &l2); /* grows small's array */
    kprof_hist_merge(&large, &s2);
    check(small.ngroups == large.ngroups, "merge sizes              small+large and large+small: %u and %u groups",
          small.ngroups, large.ngroups);
    check_hist("merge small<-large", &small, both, 2000, 0);
    check_hist("merge large<-small", &large, both, 2000, 0);
    kprof_hist_merge(&empty, &small);
    check_hist("merge into empty", &empty, both, 2000, 0);
    check(small.total == 2000 && small.counts != empty.counts, "merge into empty         source unchanged, "
          "arrays not shared");
    struct kprof_hist none = KPROF_HIST_INIT;
    kprof_hist_merge(&small, &none);
    check_hist("merge empty into", &small, both, 2000, 0);
    uint64_t p50 = kprof_hist_percentile(&small, 50), p99 = kprof_hist_percentile(&small, 99);
    kprof_hist_merge(&small, &small);
    check(small.total == 4000 && kprof_hist_percentile(&small, 50) == p50 && kprof_hist_percentile(&small, 99) == p99,
          "merge into itself        count doubles (%" PRIu64 "), percentiles unchanged", small.total);
    kprof_hist_free(&small);
    kprof_hist_free(&large);
    kprof_hist_free(&s2);
    kprof_hist_free(&l2);
    kprof_hist_free(&empty);
}

#ifdef KPROF_HIST_REALLOC
static int fail_allocs; /* the next this many allocations fail */
void *KPROF_HIST_REALLOC(void *p, size_t size);
void *KPROF_HIST_REALLOC(void *p, size_t size)
{
    if (fail_allocs > 0) {
        fail_allocs--;
        return NULL;
    }
    return realloc(p, size);
}

static void alloc_failures(void)
{
    struct kprof_hist h = KPROF_HIST_INIT;
    fail_allocs = 1;
    kprof_hist_add(&h, 5000);
    check(kprof_hist_count(&h) == 0 && h.counts == NULL && kprof_hist_percentile(&h, 50) == 0,
          "allocation failure       first add: sample dropped, histogram still empty");
    kprof_hist_add(&h, 5000);
    kprof_hist_add(&h, 6000);
    check(kprof_hist_count(&h) == 2 && kprof_hist_min(&h) == 5000 && kprof_hist_max(&h) == 6000,
          "allocation failure       then adds work");
    fail_allocs = 1;
    kprof_hist_add(&h, 1000000000); /* needs a larger array */
    check(kprof_hist_count(&h) == 2 && kprof_hist_max(&h) == 6000 && within(kprof_hist_percentile(&h, 50), 5000, 0),
          "allocation failure       growth: sample dropped, count, max and percentiles unchanged");
    fail_allocs = 1;
    kprof_hist_add(&h, 5500); /* fits the current array: no allocation */
    check(kprof_hist_count(&h) == 3 && fail_allocs == 1, "allocation failure       adds needing no growth "
          "still work");
    fail_allocs = 0;
    struct kprof_hist big = KPROF_HIST_INIT;
    kprof_hist_add(&big, 1000000000);
    fail_allocs = 1;
    kprof_hist_merge(&h, &big);
    check(kprof_hist_count(&h) == 3 && kprof_hist_max(&h) == 6000, "allocation failure       merge: nothing "
          "merged, destination unchanged");
    fail_allocs = 0;
    kprof_hist_merge(&h, &big);
    check(kprof_hist_count(&h) == 4 && kprof_hist_max(&h) == 1000000000, "allocation failure       then "
          "merge works");
    kprof_hist_free(&h);
    kprof_hist_free(&big);
}
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line out even if a sanitizer ends the run */
    uint64_t *s = malloc(N * sizeof *s);
    if (!s) {
        puts("FAIL out of memory");
        return 1;
    }

    for (uint64_t i = 0; i < N; i++)
        s[i] = 12345;
    run_set("constant 12345", s, N, 1, 0);

    rng_state = 1;
    for (uint64_t i = 0; i < N; i++)
        s[i] = 1 + rng() % 1000000;
    run_set("uniform 1..10^6", s, N, 0, 1);

    rng_state = 2;
    for (uint64_t i = 0; i < N; i++)
        s[i] = (uint64_t)(-50000.0 * log(rng_unit())); /* exponential, mean 50 us */
    run_set("exponential mean 50us", s, N, 0, 1);

    rng_state = 3;
    for (uint64_t i = 0; i < N; i++)
        s[i] = (uint64_t)exp(log(20000.0) + 1.5 * rng_normal()); /* log-normal, median 20 us */
    run_set("log-normal 20us s=1.5", s, N, 0, 1);

    rng_state = 4;
    for (uint64_t i = 0; i < N; i++)
        s[i] = rng() % 100 == 0 ? 200000 : 2000; /* 2 us and 200 us kernels, about 99:1 */
    run_set("bimodal 2us/200us 99:1", s, N, 0, 1);
    for (uint64_t i = 0; i < N; i++)
        s[i] = i % 100 == 99 ? 200000 : 2000; /* exactly 99:1: p99 is the last 2 us, p99.9 a 200 us */
    run_set("bimodal exact 99:1", s, N, 0, 0);

    for (uint64_t i = 0; i < 100000; i++)
        s[i] = 1 + i % 100;
    run_set("tiny 1..100", s, 100000, 1, 1);

    rng_state = 5;
    for (uint64_t i = 0; i < 100000; i++)
        s[i] = ((uint64_t)1 << 39) + rng() % (((uint64_t)1 << 41) - ((uint64_t)1 << 39)); /* 2^39 .. 2^41 */
    run_set("huge 2^39..2^41", s, 100000, 0, 1);

    s[0] = 987654321;
    run_set("single sample", s, 1, 1, 0);

    empty_and_edges();
    medians();
    overflow();
    bucket_bound();
    rank_boundaries();
    merges(s);
#ifdef KPROF_HIST_REALLOC
    alloc_failures();
#else
    printf("skip allocation-failure checks (build both files with -DKPROF_HIST_REALLOC=histogram_test_realloc)\n");
#endif
    free(s);
    printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "PASS", failures, checks);
    return failures ? 1 : 0;
}
