/* probe_seg.h: a probe build's breakdown of the kernel launch path's host time by segment.
 *
 * Built with -DKPROF_PROBE_SEG (`./configure CPPFLAGS=-DKPROF_PROBE_SEG`, x86-64 only), each kernel launch
 * a wrapper counts reads the time stamp counter at SEG_BEGIN and at each SEG(i), adds the ticks since the
 * last read to segment i, and at SEG_END adds the launch's segments to its thread's sums for untimed or
 * timed launches (a launch over 2,000,000 ticks, such as the first with its calibration, to a third class
 * instead).  At exit the library prints, to stderr, each class's mean ns per launch by segment, a log2
 * histogram of the launches' ticks, how many of the launch path's two takes of kprof_ev.lock found it held
 * (SEG_LOCK: begin, end), the harvester's passes (SEG_PASS) and the parts of them (SEG_H: its queries of
 * whether a queue's pairs completed, each pair's cuEventElapsedTime, each pair's accounting, context
 * switches, references, settling the offsets, its takes of kprof_ev.lock, each round over the queues: ns
 * each and how many); see docs/performance.md.  The probe build also reads KPROF_PROBE_PASS_US, the least
 * sleep in us between harvest passes (default 0: the release's pace), to measure what the harvester's pace
 * costs the launching thread.
 * Without the define every macro is empty and the build is the release's.
 *
 * Segments (a launch fills those its path reaches; each holds the time since the previous mark):
 *   0  entry to the sampling decision, host clock and kernel made ready (wrap_launch.h)
 *  14  the draw words (kprof_hold_words)
 *  12  kprof_timing_begin's start: context and pool
 *  13  the reference request (kprof_ev_ref_request)
 *   1  the rest of begin_find_pool
 *   2  the stream's queue, events taken, hold decided (kprof_ev.lock)
 *   3  the start chosen (the lent stop asked, or a start of its own)
 *   4  the launch's turn, the hold placed
 *   5  the start event recorded
 *   6  the launch itself (the driver's or runtime's call)
 *  11  counted (kprof_kernel_count, kprof_kernel_untimed_done)
 *   7  kprof_timing_end: was the stream idle (the start asked)
 *   8  the stop event recorded
 *   9  the hold released, the turn given back
 *  10  the pair queued (kprof_ev.lock), the harvester woken
 *  15  kprof_call_end, to the wrapper's return
 * The stamps cost about 10 to 20 ns each, so a probe build runs slower than the release.  Per-thread sums,
 * no lock on the launch path; thread-safe. */
#ifndef KPROF_PROBE_SEG_H
#define KPROF_PROBE_SEG_H
#ifdef KPROF_PROBE_SEG
#include <stdint.h>
#include <x86intrin.h>
#define SEG_N 16
/* One thread's sums (probe_seg.c keeps a list of them, never freed): the launch in progress (cur), and per
 * class (0 untimed, 1 timed, 2 over 2,000,000 ticks) the sums of segments, launches and the histogram. */
struct kprof_seg {
    uint64_t last, cur[SEG_N], sum[3][SEG_N], n[3], hist[2][32];
    struct kprof_seg *next;
};
extern __thread struct kprof_seg *kprof_seg_tls __attribute__((tls_model("initial-exec")));
/* The calling thread's sums, made and listed (NULL when out of memory: that thread is not counted). */
struct kprof_seg *kprof_seg_new(void);
/* Adds one harvest pass of `ticks` to the harvester's sums. */
void kprof_seg_harvest(uint64_t ticks);
static inline void kprof_seg_begin(void)
{
    struct kprof_seg *s = kprof_seg_tls;
    if (!s)
        s = kprof_seg_new();
    if (s)
        s->last = __rdtsc();
}
static inline void kprof_seg_mark(int i)
{
    struct kprof_seg *s = kprof_seg_tls;
    if (!s)
        return;
    uint64_t t = __rdtsc();
    s->cur[i] += t - s->last;
    s->last = t;
}
static inline void kprof_seg_end(int timed)
{
    struct kprof_seg *s = kprof_seg_tls;
    if (!s)
        return;
    uint64_t t = __rdtsc(), tot = 0;
    s->cur[SEG_N - 1] += t - s->last;
    for (int i = 0; i < SEG_N; i++)
        tot += s->cur[i];
    if (tot > 2000000u)
        timed = 2;
    else
        s->hist[timed][tot ? 63 - __builtin_clzll(tot) : 0]++;
    for (int i = 0; i < SEG_N; i++) {
        s->sum[timed][i] += s->cur[i];
        s->cur[i] = 0;
    }
    s->n[timed]++;
}
/* Launch-path takes of kprof_ev.lock that found it held (site 0: the begin's, 1: the end's), and all. */
extern uint64_t kprof_seg_lock_busy[2], kprof_seg_lock_all[2];
#define SEG_LOCK(m, site)                                                                              \
    do {                                                                                               \
        __atomic_add_fetch(&kprof_seg_lock_all[site], 1, __ATOMIC_RELAXED);                            \
        if (pthread_mutex_trylock(m) != 0) {                                                           \
            __atomic_add_fetch(&kprof_seg_lock_busy[site], 1, __ATOMIC_RELAXED);                       \
            pthread_mutex_lock(m);                                                                     \
        }                                                                                              \
    } while (0)
#define SEG_BEGIN() kprof_seg_begin()
#define SEG(i) kprof_seg_mark(i)
#define SEG_END(timed) kprof_seg_end(timed)
#define SEG_PASS(expr)                                                                                 \
    ({                                                                                                 \
        uint64_t t0_ = __rdtsc();                                                                      \
        long r_ = (expr);                                                                              \
        kprof_seg_harvest(__rdtsc() - t0_);                                                            \
        r_;                                                                                            \
    })
/* The harvester's parts (SEG_H_*): ticks and times of each, summed over the run (harvest.c). */
enum {
    SEG_H_QUERY, SEG_H_ELAPSED, SEG_H_ACCOUNT, SEG_H_CTX, SEG_H_REF, SEG_H_SETTLE, SEG_H_LOCK, SEG_H_QUEUES, SEG_H_N
};
extern uint64_t kprof_seg_h_tsc[SEG_H_N], kprof_seg_h_n[SEG_H_N];
#define SEG_H(i, stmt)                                                                                 \
    do {                                                                                               \
        uint64_t t0_ = __rdtsc();                                                                      \
        stmt;                                                                                          \
        __atomic_fetch_add(&kprof_seg_h_tsc[i], __rdtsc() - t0_, __ATOMIC_RELAXED);                    \
        __atomic_fetch_add(&kprof_seg_h_n[i], 1, __ATOMIC_RELAXED);                                    \
    } while (0)
#else
#define SEG_H(i, stmt)                                                                                 \
    do {                                                                                               \
        stmt;                                                                                          \
    } while (0)
#define SEG_LOCK(m, site) pthread_mutex_lock(m)
#define SEG_BEGIN() ((void)0)
#define SEG(i) ((void)0)
#define SEG_END(timed) ((void)0)
#define SEG_PASS(expr) (expr)
#endif
#endif
