/* names.c: the tables of names the report writers share with the rest of libkprof (the API functions and
 * whether the api table counts them, the copy directions, memory kinds), the API's expanded from api.def;
 * linked into libkprof and into tools/kprof-report, so that the two cannot drift apart. */
#include <stdio.h>
#include "names.h"

const char *const kprof_api_names[KPROF_API_COUNT] = {
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) #name,
#define KPROF_DRIVER_WRAPPED(name, cls) #name,
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
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) KPROF_CLASS_##cls,
#define KPROF_DRIVER_WRAPPED(name, cls) KPROF_CLASS_##cls,
#include "api.def"
};
const char *const kprof_dir_names[KPROF_DIR_COUNT] = { "HtoH", "HtoD", "DtoH", "DtoD" };
const char *const kprof_host_mem_names[KPROF_HOST_COUNT] = { "-", "pinned", "pageable" };
const char *const kprof_mem_names[KPROF_MEM_COUNT] = { "device", "pinned", "managed" };

void kprof_api_pair_label(char *label, size_t size, int api, int driver)
{
    if (driver >= 0 && driver != api)
        snprintf(label, size, "%s (%s)", kprof_api_names[api], kprof_api_names[driver]);
    else
        snprintf(label, size, "%s", kprof_api_names[api]);
}
