/* transfers.c: copies by direction and host memory, and memsets: counted lock-free, timed under a lock. */
#include <pthread.h>
#include <string.h>
#include "histogram.h"
#include "module.h"
#include "transfers.h"

#define ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

static pthread_mutex_t transfers_lock = PTHREAD_MUTEX_INITIALIZER; /* the timed figures and histograms */
static struct kprof_copy copies[KPROF_DIR_COUNT][KPROF_HOST_COUNT];

static struct kprof_copy memsets;

void kprof_copy_describe(const struct kprof_copy *c, enum kprof_dir *dir, enum kprof_host_mem *host)
{
    size_t i = (size_t)(c - &copies[0][0]);
    *dir = (enum kprof_dir)(i / KPROF_HOST_COUNT);
    *host = (enum kprof_host_mem)(i % KPROF_HOST_COUNT);
}

int kprof_copy_is_memset(const struct kprof_copy *c)
{
    return c == &memsets;
}

struct kprof_copy *kprof_memset_count(size_t bytes)
{
    ATOMIC_ADD(&memsets.count, 1);
    ATOMIC_ADD(&memsets.bytes, (uint64_t)bytes);
    return &memsets;
}

struct kprof_copy *kprof_copy_count(enum kprof_dir dir, enum kprof_host_mem host, size_t bytes)
{
    struct kprof_copy *c = &copies[dir][dir == KPROF_DTOD ? KPROF_HOST_NONE : host];
    ATOMIC_ADD(&c->count, 1);
    ATOMIC_ADD(&c->bytes, (uint64_t)bytes);
    return c;
}

void kprof_copy_add_time(struct kprof_copy *c, uint64_t ns, uint64_t bytes)
{
    pthread_mutex_lock(&transfers_lock);
    c->timed++;
    c->timed_bytes += bytes;
    c->total_ns += ns;
    if (c->timed == 1 || ns < c->min_ns)
        c->min_ns = ns;
    if (ns > c->max_ns)
        c->max_ns = ns;
    double d = (double)ns - c->mean_ns;
    c->mean_ns += d / (double)c->timed;
    c->m2 += d * ((double)ns - c->mean_ns);
    kprof_hist_add(&c->hist, ns);
    pthread_mutex_unlock(&transfers_lock);
}

double kprof_copy_instances_median(const struct kprof_copy *c)
{
    return kprof_hist_median(&c->hist, NULL);
}

void kprof_transfers_snapshot(struct kprof_transfers_part *p)
{
    pthread_mutex_lock(&transfers_lock);
    memcpy(p->copies, copies, sizeof copies);
    p->memsets = memsets;
    /* Each histogram copied: the snapshot's own, which a copy timed after it cannot grow or move. */
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++) {
            memset(&p->copies[d][h].hist, 0, sizeof p->copies[d][h].hist);
            kprof_hist_merge(&p->copies[d][h].hist, &copies[d][h].hist);
        }
    memset(&p->memsets.hist, 0, sizeof p->memsets.hist);
    kprof_hist_merge(&p->memsets.hist, &memsets.hist);
    pthread_mutex_unlock(&transfers_lock);
}

void kprof_transfers_part_free(struct kprof_transfers_part *p)
{
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++)
            kprof_hist_free(&p->copies[d][h].hist);
    kprof_hist_free(&p->memsets.hist);
}

/* In a forked child: a fresh start, so its report holds only what the child itself does. */
static void transfers_reset(void)
{
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++)
            kprof_hist_free(&copies[d][h].hist);
    kprof_hist_free(&memsets.hist);
    memset(copies, 0, sizeof copies);
    memset(&memsets, 0, sizeof memsets);
}

/* Order 25: this lock is never held while another module's is taken, nor taken under one. */
KPROF_MUTEX_MODULE(transfers, 25, transfers_lock, transfers_reset)
