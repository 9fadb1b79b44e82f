/* histogram.h: bounded log-linear histogram of durations (ns) for per-kernel percentiles (p50/p95/p99). */
#ifndef KPROF_HISTOGRAM_H
#define KPROF_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Layout (S = KPROF_HIST_SUB_BITS = 6, so 2^S = 64 sub-buckets per power of two):
 *
 *   - values 0 .. 127 ns each have their own bucket (exact);
 *   - from 2^S on, each power-of-two range [2^e, 2^(e+1)) is split into 64 equal sub-buckets of width
 *     2^(e-6) ns (the ranges [64, 128) have width 1, so they are exact too);
 *   - values up to KPROF_HIST_LIMIT - 1 = 2^43 - 1 ns (about 2.44 hours) are bucketed: 38 groups of 64
 *     buckets (group 0: 0..63; group g >= 1: [2^(g+5), 2^(g+6))), 2432 buckets in all;
 *   - values >= 2^43 ns go to one overflow bucket, whose representative value is the maximum recorded.
 *
 * Error bound: a bucket is reported as its representative value lo + width/2 (lo its lowest value), so
 * for every recorded value v < 2^43 in that bucket |rep - v| <= width/2 <= v * 2^-(S+1), i.e. the
 * relative error is at most 2^-7 = 0.78125 % (reached only at the lowest value of a bucket whose
 * sub-bucket index is 64; every value below 128 ns is exact).  Percentiles are further clamped to the
 * exact [min, max] recorded, which never increases the error; rank 1 returns min and rank N returns max
 * exactly.  Percentiles that fall in the overflow bucket (only possible with samples >= 2^43 ns) return
 * the maximum recorded, which bounds them from above only.
 *
 * Memory: the struct itself is 48 bytes and allocates nothing while empty.  The count array is allocated
 * on the first add and grown (realloc, one 512-byte group of 64 counts at a time) only as far as the
 * largest value recorded needs: (g + 1) * 64 * 8 bytes for a largest value in group g, e.g. 4 KiB when
 * every duration is under 8.2 us, 8 KiB under 2.1 ms, at most 38 * 64 * 8 = 19,456 bytes (19 KiB)
 * per histogram whatever is recorded.
 *
 * Counts are uint64_t: uint32_t would overflow at 2^32 - 1 = 4.29e9 samples in one bucket, and a kernel
 * of constant duration launched 10^10 times (a long training run at ~10^4 launches/s for 12 days) puts
 * every sample in the same bucket.  uint64_t cannot overflow in practice (1.8e19 samples).
 *
 * Thread-safety: none.  A histogram must not be used from two threads at once; the caller serializes
 * (libkprof holds its statistics lock around every call).  Distinct histograms are independent.
 *
 * Errors: no function aborts or reports an error.  If the count array cannot be (re)allocated, the
 * sample being added is dropped (not counted anywhere: count, min and max are unchanged) and the
 * histogram stays valid and usable; kprof_hist_merge merges nothing in that case.
 *
 * Usage: a zero-initialized struct (KPROF_HIST_INIT, memset 0, calloc, static storage) is an empty
 * histogram.  The struct owns its count array; release it with kprof_hist_free.  Do not copy a
 * non-empty struct by assignment (both copies would own the same array); use kprof_hist_merge into an
 * empty histogram instead.
 */

#define KPROF_HIST_SUB_BITS 6                                 /* S */
#define KPROF_HIST_SUB_COUNT (1u << KPROF_HIST_SUB_BITS)     /* 64 sub-buckets per power of two */
#define KPROF_HIST_LIMIT_BITS 43                              /* values < 2^43 ns are bucketed */
#define KPROF_HIST_LIMIT ((uint64_t)1 << KPROF_HIST_LIMIT_BITS)
#define KPROF_HIST_GROUPS (KPROF_HIST_LIMIT_BITS - KPROF_HIST_SUB_BITS + 1)   /* 38 */
#define KPROF_HIST_BUCKETS (KPROF_HIST_GROUPS * KPROF_HIST_SUB_COUNT)         /* 2432 */
#define KPROF_HIST_MAX_BYTES (KPROF_HIST_BUCKETS * sizeof(uint64_t))          /* 19456 */
/* Relative error bound of kprof_hist_percentile for values < KPROF_HIST_LIMIT: 2^-(S+1) = 1/128. */
#define KPROF_HIST_REL_ERROR (1.0 / (double)(2u << KPROF_HIST_SUB_BITS))

struct kprof_hist {
    uint64_t *counts;   /* ngroups * 64 counts, NULL while empty; owned */
    uint32_t ngroups;   /* groups allocated, 0 .. KPROF_HIST_GROUPS */
    uint64_t total;     /* samples recorded, overflow included */
    uint64_t overflow;  /* samples >= KPROF_HIST_LIMIT */
    uint64_t min, max;  /* exact extremes in ns; meaningful only while total > 0 */
};

#define KPROF_HIST_INIT {0}

/* A set of durations summed up as nsys's summaries (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_api_sum)
 * sum up each row: how many, their total, mean, extremes and sample standard deviation (0 for fewer than
 * two), in ns; all 0 for an empty set.  The median, which costs a walk of the histogram, is asked apart. */
struct kprof_spread { uint64_t n, total_ns, min_ns, max_ns; double avg_ns, stddev_ns; };

/* Records one duration of `ns` nanoseconds (any value; >= 2^43 goes to the overflow bucket).  O(1); may
 * allocate or grow the count array (the first add, and a new largest value in a higher group); if that
 * allocation fails the sample is dropped and `h` is unchanged.  Not thread-safe. */
void kprof_hist_add(struct kprof_hist *h, uint64_t ns);
/* The same, recording `n` samples of `ns` at once (a weighted sample; n = 0 records nothing). */
void kprof_hist_add_n(struct kprof_hist *h, uint64_t ns, uint64_t n);

/* Number of samples recorded (dropped ones excluded).  Not thread-safe. */
uint64_t kprof_hist_count(const struct kprof_hist *h);

/* Exact smallest / largest duration recorded, in ns; 0 for an empty histogram.  Not thread-safe. */
uint64_t kprof_hist_min(const struct kprof_hist *h);
uint64_t kprof_hist_max(const struct kprof_hist *h);

/* The q-th percentile in ns, q in [0, 100] (values outside are clamped, NaN is taken as 0), by the
 * nearest-rank definition: the smallest recorded value v such that at least q % of the samples are <= v
 * (rank ceil(q/100 * N), at least 1).  Returned as the representative value of v's bucket, clamped to
 * [min, max]: within a relative error of 2^-(S+1) = 2^-7 = 0.78125 % of v for v < 2^43 ns, exact for
 * v < 128 ns, for q = 0 (min) and for rank N (max); the maximum recorded if v is in the overflow bucket.
 * Returns 0 for an empty histogram.  O(number of buckets), allocates nothing.  Not thread-safe. */
uint64_t kprof_hist_percentile(const struct kprof_hist *h, double q);
/* The same for a histogram of weighted samples recorded in counts of 1/unit (kprof_hist_add_n): the rank is
 * taken up to the next multiple of `unit`, so that samples of weight 1 (unit counts each) give
 * kprof_hist_percentile's answer for one count each, the last sample's exact max included; other weights
 * move the rank up by less than one unit.  unit 0 or 1: kprof_hist_percentile. */
uint64_t kprof_hist_percentile_units(const struct kprof_hist *h, double q, uint64_t unit);

/* The median in ns as nsys's summaries compute it: the middle sample, or the mean of the two middle ones
 * for an even count, of h's samples and, when `also` is not NULL, of the one more sample *also (a value kept
 * out of the histogram, such as a kernel's first launch).  Each middle sample is read as
 * kprof_hist_percentile reads one (its bucket's representative clamped to the exact min and max, now
 * those of the samples and *also): within KPROF_HIST_REL_ERROR of it, exact below 128 ns.  Returns 0 when
 * there is no sample.  O(number of buckets), allocates nothing.  Not thread-safe. */
double kprof_hist_median(const struct kprof_hist *h, const uint64_t *also);

/* Adds every sample of `from` to `into` (counts, min, max), as if each had been added to `into`; `from`
 * is not changed and keeps its own array (`into == from` doubles every count).  May grow `into`'s array;
 * if that fails, nothing is merged and `into` is unchanged.  Not thread-safe: the caller must hold
 * whatever protects both histograms. */
void kprof_hist_merge(struct kprof_hist *into, const struct kprof_hist *from);

/* Releases the count array and leaves `h` empty (and usable again).  NULL is accepted.  Not
 * thread-safe. */
void kprof_hist_free(struct kprof_hist *h);

#endif
