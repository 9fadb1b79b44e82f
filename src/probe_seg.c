/* probe_seg.c: the probe build's sums of the launch path's segments, printed at exit (probe_seg.h); empty
 * without -DKPROF_PROBE_SEG. */
#ifdef KPROF_PROBE_SEG
#include "probe_seg.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__thread struct kprof_seg *kprof_seg_tls __attribute__((tls_model("initial-exec")));
static struct kprof_seg *all;
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t tsc0, ns0, harvest_tsc, harvest_n;
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
__attribute__((constructor)) static void seg_init(void)
{
    tsc0 = __rdtsc();
    ns0 = now_ns();
}
struct kprof_seg *kprof_seg_new(void)
{
    struct kprof_seg *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_lock(&all_lock);
    s->next = all;
    all = s;
    pthread_mutex_unlock(&all_lock);
    kprof_seg_tls = s;
    return s;
}
void kprof_seg_harvest(uint64_t tsc)
{
    __atomic_fetch_add(&harvest_tsc, tsc, __ATOMIC_RELAXED);
    __atomic_fetch_add(&harvest_n, 1, __ATOMIC_RELAXED);
}
uint64_t kprof_seg_lock_busy[2], kprof_seg_lock_all[2];
uint64_t kprof_seg_h_tsc[SEG_H_N], kprof_seg_h_n[SEG_H_N];
__attribute__((destructor)) static void seg_report(void)
{
    double ghz = (double)(__rdtsc() - tsc0) / (double)(now_ns() - ns0);
    uint64_t sum[3][SEG_N] = { { 0 } }, n[3] = { 0, 0, 0 }, hist[2][32] = { { 0 } };
    pthread_mutex_lock(&all_lock);
    for (struct kprof_seg *s = all; s; s = s->next)
        for (int c = 0; c < 3; c++) {
            if (c < 2)
                for (int i = 0; i < 32; i++)
                    hist[c][i] += s->hist[c][i];
            n[c] += s->n[c];
            for (int i = 0; i < SEG_N; i++)
                sum[c][i] += s->sum[c][i];
        }
    pthread_mutex_unlock(&all_lock);
    for (int c = 0; c < 3; c++) {
        if (!n[c])
            continue;
        double tot = 0;
        fprintf(stderr, "libkprof-seg: %s n=%lu ns/launch:", c == 2 ? "over2Mtsc" : c ? "timed" : "untimed", (unsigned long)n[c]);
        for (int i = 0; i < SEG_N; i++) {
            double v = (double)sum[c][i] / ghz / (double)n[c];
            tot += v;
            fprintf(stderr, " s%d=%.0f", i, v);
        }
        fprintf(stderr, " total=%.0f\n", tot);
        if (c < 2) {
            fprintf(stderr, "libkprof-seg: %s hist(tsc log2: count):", c ? "timed" : "untimed");
            for (int i = 0; i < 32; i++)
                if (hist[c][i])
                    fprintf(stderr, " %d:%lu", i, (unsigned long)hist[c][i]);
            fprintf(stderr, "\n");
        }
    }
    fprintf(stderr, "libkprof-seg: lock busy begin=%lu/%lu end=%lu/%lu\n", (unsigned long)kprof_seg_lock_busy[0],
            (unsigned long)kprof_seg_lock_all[0], (unsigned long)kprof_seg_lock_busy[1],
            (unsigned long)kprof_seg_lock_all[1]);
    fprintf(stderr, "libkprof-seg: harvest passes=%lu ns_each=%.0f ns_all=%.0f tsc_ghz=%.3f\n",
            (unsigned long)harvest_n, harvest_n ? (double)harvest_tsc / ghz / (double)harvest_n : 0.0,
            (double)harvest_tsc / ghz, ghz);
    static const char *const h_names[SEG_H_N] = { "queries",      "elapsed", "account", "ctx",
                                                  "refs",         "settle",  "lock",    "queues" };
    fprintf(stderr, "libkprof-seg: harvester ns_each(count):");
    for (int i = 0; i < SEG_H_N; i++)
        fprintf(stderr, " %s=%.0f(%lu)", h_names[i],
                kprof_seg_h_n[i] ? (double)kprof_seg_h_tsc[i] / ghz / (double)kprof_seg_h_n[i] : 0.0,
                (unsigned long)kprof_seg_h_n[i]);
    fprintf(stderr, "\n");
}
#endif
