/* kprof_hash.h: uthash as libkprof uses it. */
#ifndef KPROF_HASH_H
#define KPROF_HASH_H

/* uthash tables never abort the app on out-of-memory: the entry is just not added. */
#define HASH_NONFATAL_OOM 1
#include <stdlib.h>
#include <uthash.h>

/* Empties the table `head` (entries linked by their `hh` handle), freeing each entry with free(). */
#define KPROF_HASH_FREE_ALL(head)                                                                  \
    do {                                                                                           \
        __typeof__(head) e_, t_;                                                                   \
        HASH_ITER(hh, head, e_, t_) {                                                              \
            HASH_DEL(head, e_);                                                                    \
            free(e_);                                                                              \
        }                                                                                          \
    } while (0)

#endif
