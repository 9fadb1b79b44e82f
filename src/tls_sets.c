/* tls_sets.c: per-thread blocks freed at thread exit (tls_sets.h). */
#include <pthread.h>
#include <stdlib.h>
#include "tls_sets.h"

#define TLS_BLOCKS 4

static pthread_key_t blocks_key;
static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;
static int blocks_key_ok;
/* This thread's slots with a block in them, in the order made. */
static __thread void **tls_slots[TLS_BLOCKS] __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_nslots __attribute__((tls_model("initial-exec")));

static void blocks_free(void *v)
{
    (void)v;
    for (unsigned i = 0; i < tls_nslots; i++) {
        free(*tls_slots[i]);
        *tls_slots[i] = NULL;
    }
    tls_nslots = 0;
}

static void blocks_key_make(void)
{
    blocks_key_ok = pthread_key_create(&blocks_key, blocks_free) == 0;
}

void *kprof_tls_block(void **slot, size_t size)
{
    if (*slot)
        return *slot;
    pthread_once(&blocks_once, blocks_key_make);
    if (!blocks_key_ok || tls_nslots == TLS_BLOCKS)
        return NULL;
    void *b = calloc(1, size);
    if (!b)
        return NULL;
    if (pthread_setspecific(blocks_key, (void *)1) != 0) {
        free(b);
        return NULL;
    }
    tls_slots[tls_nslots++] = slot;
    *slot = b;
    return b;
}
