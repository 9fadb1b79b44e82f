/* allocs.c: allocations and frees by kind of memory, with the live allocations' sizes for the frees. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "kprof_hash.h"
#include "module.h"
#include "allocs.h"

/* Live allocations, so a free knows its size: memory in proportion to what the app holds, not to calls. */
struct alloc_entry {
    void *ptr;
    size_t bytes;
    const void *ctx; /* its context (NULL: not known) */
    UT_hash_handle hh;
};
static struct {
    pthread_mutex_t lock;
    struct alloc_entry *live[KPROF_MEM_COUNT];
    struct kprof_alloc_stat s[KPROF_MEM_COUNT];
} allocs = { .lock = PTHREAD_MUTEX_INITIALIZER };

void kprof_alloc_record(enum kprof_mem kind, void *ptr, size_t bytes, uint64_t host_ns, const void *ctx)
{
    struct alloc_entry *e = calloc(1, sizeof *e);
    struct kprof_alloc_stat *s = &allocs.s[kind];
    pthread_mutex_lock(&allocs.lock);
    s->count++;
    s->bytes += bytes;
    s->host_ns += host_ns;
    if (e && ptr) {
        struct alloc_entry *old;
        HASH_FIND_PTR(allocs.live[kind], &ptr, old);
        if (old) { /* a pointer whose free libkprof missed: replace it */
            s->in_use -= old->bytes;
            HASH_DEL(allocs.live[kind], old);
            free(old);
        }
        e->ptr = ptr;
        e->bytes = bytes;
        e->ctx = ctx;
        HASH_ADD_PTR(allocs.live[kind], ptr, e);
        e = NULL;
        s->in_use += bytes;
        if (s->in_use > s->peak)
            s->peak = s->in_use;
    }
    pthread_mutex_unlock(&allocs.lock);
    free(e);
}

void kprof_free_record(enum kprof_mem kind, void *ptr, uint64_t host_ns)
{
    struct kprof_alloc_stat *s = &allocs.s[kind];
    pthread_mutex_lock(&allocs.lock);
    s->host_ns += host_ns;
    struct alloc_entry *e = NULL;
    if (ptr)
        HASH_FIND_PTR(allocs.live[kind], &ptr, e);
    if (e) {
        s->frees++;
        s->freed_bytes += e->bytes;
        s->in_use -= e->bytes;
        HASH_DEL(allocs.live[kind], e);
    }
    pthread_mutex_unlock(&allocs.lock);
    free(e);
}

void kprof_free_record_device(void *ptr, uint64_t host_ns)
{
    int managed = 0;
    pthread_mutex_lock(&allocs.lock);
    struct alloc_entry *e = NULL;
    if (ptr)
        HASH_FIND_PTR(allocs.live[KPROF_MEM_MANAGED], &ptr, e);
    managed = e != NULL;
    pthread_mutex_unlock(&allocs.lock);
    kprof_free_record(managed ? KPROF_MEM_MANAGED : KPROF_MEM_DEVICE, ptr, host_ns);
}

void kprof_allocs_context_gone(const void *ctx)
{
    if (!ctx)
        return;
    pthread_mutex_lock(&allocs.lock);
    for (int m = 0; m < KPROF_MEM_COUNT; m++) {
        struct alloc_entry *e, *tmp;
        HASH_ITER(hh, allocs.live[m], e, tmp) {
            if (e->ctx != ctx)
                continue;
            allocs.s[m].in_use -= e->bytes;
            HASH_DEL(allocs.live[m], e);
            free(e);
        }
    }
    pthread_mutex_unlock(&allocs.lock);
}

void kprof_allocs_snapshot(struct kprof_allocs_part *p)
{
    pthread_mutex_lock(&allocs.lock);
    memcpy(p->alloc, allocs.s, sizeof allocs.s);
    pthread_mutex_unlock(&allocs.lock);
}

/* In a forked child: a fresh start, so its report holds only what the child itself does. */
static void allocs_reset(void)
{
    for (int m = 0; m < KPROF_MEM_COUNT; m++)
        KPROF_HASH_FREE_ALL(allocs.live[m]);
    memset(allocs.s, 0, sizeof allocs.s);
}

/* Order 28: this lock is never held while another module's is taken, nor taken under one. */
KPROF_MUTEX_MODULE(allocs, 28, allocs.lock, allocs_reset)
