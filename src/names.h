/* names.h: the API functions, copy directions, host memory and allocation kinds by index, with their names
 * (names.c), which libkprof and kprof-report share so that the two cannot drift apart. */
#ifndef KPROF_NAMES_H
#define KPROF_NAMES_H

#include <stddef.h>

/* The API table's index for each interposed runtime and driver function. */
enum kprof_api {
#define KPROF_RUNTIME_WRAPPED(name, proto, cls) KPROF_API_##name,
#define KPROF_DRIVER_WRAPPED(name, cls) KPROF_API_##name,
#include "api.def"
    KPROF_API_COUNT
};
extern const char *const kprof_api_names[KPROF_API_COUNT];
extern const char kprof_api_counted[KPROF_API_COUNT]; /* 0 for NAME, PROC and CTX entries */

/* Writes into label (size bytes) the context-creation label the reports show: "api (driver)", or "api" when
 * driver is -1 or the same function (enum kprof_api indexes). */
void kprof_api_pair_label(char *label, size_t size, int api, int driver);

/* Copy directions. */
enum kprof_dir { KPROF_HTOH, KPROF_HTOD, KPROF_DTOH, KPROF_DTOD, KPROF_DIR_COUNT };
extern const char *const kprof_dir_names[KPROF_DIR_COUNT];

/* Host memory of a copy's host side: page-locked (pinned) or ordinary (pageable); NONE for DtoD. */
enum kprof_host_mem { KPROF_HOST_NONE, KPROF_HOST_PINNED, KPROF_HOST_PAGEABLE, KPROF_HOST_COUNT };
extern const char *const kprof_host_mem_names[KPROF_HOST_COUNT];

/* Allocation kinds, each with its own row. */
enum kprof_mem { KPROF_MEM_DEVICE, KPROF_MEM_PINNED, KPROF_MEM_MANAGED, KPROF_MEM_COUNT };
extern const char *const kprof_mem_names[KPROF_MEM_COUNT];

#endif
