/* kprof_hash.h: uthash as libkprof uses it. */
#ifndef KPROF_HASH_H
#define KPROF_HASH_H

/* uthash tables never abort the app on out-of-memory: the entry is just not added. */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#endif
