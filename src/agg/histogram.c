/* histogram.c: bounded log-linear histogram of durations (ns); see histogram.h for layout and bounds. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "histogram.h"

/* Unit tests may substitute an allocator that fails on demand (-DKPROF_HIST_REALLOC=name) to exercise the
 * allocation-failure paths. */
#ifdef KPROF_HIST_REALLOC
void *KPROF_HIST_REALLOC(void *p, size_t size);
#else
#define KPROF_HIST_REALLOC realloc
#endif

#define S KPROF_HIST_SUB_BITS
#define SUB KPROF_HIST_SUB_COUNT

_Static_assert(KPROF_HIST_LIMIT_BITS > S && KPROF_HIST_LIMIT_BITS <= 64, "bucketed range");
_Static_assert(KPROF_HIST_BUCKETS == 2432, "38 groups of 64 buckets");

/* Bucket of a value v < KPROF_HIST_LIMIT.  Below 2^S the value itself; above, with e = floor(log2 v) and
 * shift = e - S, the top S+1 bits m = v >> shift (64..127) pick the sub-bucket of group shift + 1. */
static inline uint32_t bucket_of(uint64_t v)
{
    if (v < SUB)
        return (uint32_t)v;
    uint32_t shift = (uint32_t)(63 - __builtin_clzll(v)) - S;
    return ((shift + 1) << S) + (uint32_t)((v >> shift) - SUB);
}

/* Representative value of bucket i: lo + width/2, where [lo, lo + width) is the bucket's range.  For
 * every v in the bucket, |rep - v| <= width/2 and v >= lo >= 64 * width, so |rep - v| / v <= 1/128. */
static inline uint64_t bucket_rep(uint32_t i)
{
    uint32_t group = i >> S;
    if (group == 0)
        return i;
    uint32_t shift = group - 1;
    uint64_t lo = (uint64_t)((i & (SUB - 1)) + SUB) << shift;
    return lo + (((uint64_t)1 << shift) >> 1);
}

/* Makes room for `groups` groups (zeroing the new ones).  Returns 0 on allocation failure, leaving `h`
 * as it was. */
static int grow(struct kprof_hist *h, uint32_t groups)
{
    if (groups <= h->ngroups)
        return 1;
    uint64_t *c = KPROF_HIST_REALLOC(h->counts, (size_t)groups * SUB * sizeof *c);
    if (!c)
        return 0;
    memset(c + (size_t)h->ngroups * SUB, 0, (size_t)(groups - h->ngroups) * SUB * sizeof *c);
    h->counts = c;
    h->ngroups = groups;
    return 1;
}

void kprof_hist_add(struct kprof_hist *h, uint64_t ns)
{
    kprof_hist_add_n(h, ns, 1);
}

void kprof_hist_add_n(struct kprof_hist *h, uint64_t ns, uint64_t n)
{
    if (n == 0)
        return;
    if (ns < KPROF_HIST_LIMIT) {
        uint32_t i = bucket_of(ns);
        if ((i >> S) >= h->ngroups && !grow(h, (i >> S) + 1))
            return; /* dropped */
        h->counts[i] += n;
    } else {
        h->overflow += n;
    }
    uint64_t before = h->total;
    h->total += n;
    if (before == 0) {
        h->min = h->max = ns;
    } else {
        if (ns < h->min)
            h->min = ns;
        if (ns > h->max)
            h->max = ns;
    }
}

uint64_t kprof_hist_count(const struct kprof_hist *h) { return h->total; }
uint64_t kprof_hist_min(const struct kprof_hist *h) { return h->total ? h->min : 0; }
uint64_t kprof_hist_max(const struct kprof_hist *h) { return h->total ? h->max : 0; }

/* The sample of rank `rank` (1 .. the count) among h's samples and, when `also` is not NULL, the one more
 * sample *also: its bucket's representative clamped to the exact [min, max] of them all, min itself for
 * rank 1 and max for the last; max when it lies in the overflow bucket. */
static uint64_t at_rank(const struct kprof_hist *h, uint64_t rank, const uint64_t *also)
{
    uint64_t n = h->total + (also != NULL);
    uint64_t mn = h->min, mx = h->max;
    if (also && (h->total == 0 || *also < mn))
        mn = *also;
    if (also && (h->total == 0 || *also > mx))
        mx = *also;
    if (rank <= 1)
        return mn;
    if (rank >= n)
        return mx;

    uint32_t extra = also && *also < KPROF_HIST_LIMIT ? bucket_of(*also) : UINT32_MAX;
    uint32_t nb = h->ngroups * SUB;
    if (extra != UINT32_MAX && extra >= nb)
        nb = extra + 1;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < nb; i++) {
        seen += (i < h->ngroups * SUB ? h->counts[i] : 0) + (i == extra);
        if (seen >= rank) {
            uint64_t v = bucket_rep(i);
            return v < mn ? mn : v > mx ? mx : v;
        }
    }
    return mx; /* the overflow bucket */
}

uint64_t kprof_hist_percentile(const struct kprof_hist *h, double q)
{
    return kprof_hist_percentile_units(h, q, 1);
}

uint64_t kprof_hist_percentile_units(const struct kprof_hist *h, double q, uint64_t unit)
{
    uint64_t n = h->total;
    if (n == 0)
        return 0;
    if (!(q >= 0.0)) /* negative or NaN */
        q = 0.0;
    if (q > 100.0)
        q = 100.0;
    /* rank = ceil(q/100 * n).  q is usually a decimal (99.9) that a double only approximates, so a product
     * that should be an exact integer can come out a few ulps above it; a relative tolerance of 8 ulps
     * keeps ceil from skipping to the next rank. */
    double x = q * (double)n / 100.0;
    x -= x * (8 * DBL_EPSILON);
    uint64_t rank;
    if (x <= 1.0) {
        rank = 1;
    } else if (x >= (double)n) {
        rank = n;
    } else {
        rank = (uint64_t)x; /* ceil without libm */
        if ((double)rank < x)
            rank++;
    }
    if (unit > 1 && rank % unit != 0) /* the last count of the sample the rank falls in */
        rank += unit - rank % unit;
    return at_rank(h, rank < n ? rank : n, NULL);
}

double kprof_hist_median(const struct kprof_hist *h, const uint64_t *also)
{
    uint64_t n = h->total + (also != NULL);
    if (n == 0)
        return 0.0;
    uint64_t lo = at_rank(h, (n + 1) / 2, also);
    if (n % 2)
        return (double)lo;
    return ((double)lo + (double)at_rank(h, n / 2 + 1, also)) / 2.0;
}

void kprof_hist_merge(struct kprof_hist *into, const struct kprof_hist *from)
{
    if (from->total == 0)
        return;
    if (!grow(into, from->ngroups))
        return; /* nothing merged */
    uint32_t nb = from->ngroups * SUB;
    for (uint32_t i = 0; i < nb; i++)
        into->counts[i] += from->counts[i];
    into->overflow += from->overflow;
    if (into->total == 0) {
        into->min = from->min;
        into->max = from->max;
    } else {
        if (from->min < into->min)
            into->min = from->min;
        if (from->max > into->max)
            into->max = from->max;
    }
    into->total += from->total;
}

void kprof_hist_free(struct kprof_hist *h)
{
    if (!h)
        return;
    free(h->counts);
    memset(h, 0, sizeof *h);
}
