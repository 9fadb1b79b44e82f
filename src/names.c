/* names.c: the tables of names the report writers share with the rest of libkprof (the API functions and
 * whether the api table counts them, the copy directions), expanded from api.def; linked into libkprof
 * and into tools/kprof-report, so that the two cannot drift apart.  Declared in stats.h. */
#include <stdio.h>
#include "cuda_api.h"
#include "stats.h"
#include "snapshot.h"

const char *const kprof_api_names[KPROF_API_COUNT] = {
#define KPROF_RT(name, proto, cls) #name,
#define KPROF_DH(name, cls) #name,
#include "api.def"
};
#define KPROF_CLASS_NAME 0
#define KPROF_CLASS_LAUNCH 1
#define KPROF_CLASS_COPY 1
#define KPROF_CLASS_ALLOC 1
#define KPROF_CLASS_FREE 1
#define KPROF_CLASS_SYNC 1
#define KPROF_CLASS_OTHER 1
#define KPROF_CLASS_MEMSET 1
#define KPROF_CLASS_PROC 0
#define KPROF_CLASS_CTX 0
#define KPROF_CLASS_RANGE 0
#define KPROF_CLASS_CAPTURE 0
#define KPROF_CLASS_GRAPH 1
#define KPROF_CLASS_GRAPHNODE 0
#define KPROF_CLASS_CTXEND 1
#define KPROF_CLASS_STREAMOP 1
#define KPROF_CLASS_OUTER 1
const char kprof_api_counted[KPROF_API_COUNT] = {
#define KPROF_RT(name, proto, cls) KPROF_CLASS_##cls,
#define KPROF_DH(name, cls) KPROF_CLASS_##cls,
#include "api.def"
};
const char *const kprof_dir_names[KPROF_DIR_COUNT] = { "HtoH", "HtoD", "DtoH", "DtoD" };

void kprof_ctx_init_label(struct kprof_ctx_init *c)
{
    if (c->driver >= 0 && c->driver != c->api)
        snprintf(c->label, sizeof c->label, "%s (%s)", kprof_api_names[c->api], kprof_api_names[c->driver]);
    else
        snprintf(c->label, sizeof c->label, "%s", kprof_api_names[c->api]);
}
