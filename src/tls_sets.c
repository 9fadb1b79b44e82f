/* tls_sets.c: per-thread blocks, handed on at thread exit (tls_sets.h). */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include "tls_sets.h"

#define TLS_SLOTS 4

/* A block: its header, then the caller's bytes. */
struct tls_block {
    struct tls_block *next; /* every block of its kind, newest first (set before it is listed) */
    int in_use;             /* atomic: a thread holds it */
    _Alignas(16) unsigned char data[];
};

static pthread_key_t blocks_key;
static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;
static int blocks_key_ok;
/* This thread's blocks, each with the slot that points at its data; and whether its blocks were given back
 * at its exit (then it gets none again: a later call comes from another destructor). */
static __thread struct {
    struct tls_block *b;
    void **slot;
} tls_held[TLS_SLOTS] __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_nheld __attribute__((tls_model("initial-exec")));
static __thread int tls_exited __attribute__((tls_model("initial-exec")));

static void blocks_release(void *v)
{
    (void)v;
    for (unsigned i = 0; i < tls_nheld; i++) {
        *tls_held[i].slot = NULL;
        __atomic_store_n(&tls_held[i].b->in_use, 0, __ATOMIC_RELEASE);
    }
    tls_nheld = 0;
    tls_exited = 1;
}

static void blocks_key_make(void)
{
    blocks_key_ok = pthread_key_create(&blocks_key, blocks_release) == 0;
}

/* A block of `size` bytes from *list no thread holds, or a new one listed; NULL when out of memory. */
static struct tls_block *block_claim(struct tls_block **list, size_t size)
{
    for (struct tls_block *b = __atomic_load_n(list, __ATOMIC_ACQUIRE); b; b = b->next) {
        int idle = 0;
        if (__atomic_load_n(&b->in_use, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&b->in_use, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return b;
    }
    struct tls_block *b = calloc(1, sizeof *b + size);
    if (!b)
        return NULL;
    b->in_use = 1;
    b->next = __atomic_load_n(list, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(list, &b->next, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    return b;
}

void *kprof_tls_block(struct kprof_tls_blocks *kind, void **slot)
{
    if (*slot)
        return *slot;
    if (tls_exited || tls_nheld == TLS_SLOTS)
        return NULL;
    pthread_once(&blocks_once, blocks_key_make);
    if (!blocks_key_ok || pthread_setspecific(blocks_key, (void *)1) != 0)
        return NULL;
    struct tls_block *b = block_claim(&kind->list, kind->size);
    if (!b)
        return NULL;
    tls_held[tls_nheld].b = b;
    tls_held[tls_nheld].slot = slot;
    tls_nheld++;
    *slot = b->data;
    return b->data;
}

void *kprof_tls_blocks_next(struct kprof_tls_blocks *kind, void *data)
{
    struct tls_block *b = data ? ((struct tls_block *)(void *)((char *)data - offsetof(struct tls_block, data)))->next
                               : __atomic_load_n(&kind->list, __ATOMIC_ACQUIRE);
    return b ? b->data : NULL;
}
