/* report-stubs.c: what libkprof's report writers (linked into kprof-report) take from the parts of the
 * library that kprof-report does not link (config.c, stats.c, calibrate.c: they need the CUDA driver and
 * the interposed process): the configuration, the name tables and a kernel's percentiles.
 *
 * The API names are expanded from src/api.def as stats.c expands them; the other tables are copies of
 * stats.c's and calibrate.c's (calibrate.c cannot be linked without the driver).  A report entry whose
 * name is not in these tables is left out with a warning, so tests/report-rereads-the-text-report.sh
 * fails as soon as a table here drifts from the library's. */
#include <string.h>
#include "kprof_config.h"
#include "kernels.h"
#include "stats.h"
#include "calibrate.h"
#include "report-stubs.h"

/* The writers read the format settings from here: kprof_saved_apply() sets the report's own. */
struct kprof_config kprof_config = { .format = KPROF_FORMAT_TEXT, .sample = 1 };

const char *const kprof_api_names[KPROF_API_COUNT] = {
#define KPROF_RT(name, proto, cls) #name,
#define KPROF_DH(name, cls) #name,
#include "api.def"
};
/* As stats.c: 0 for the classes the API table leaves out. */
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
const char kprof_api_counted[KPROF_API_COUNT] = {
#define KPROF_RT(name, proto, cls) KPROF_CLASS_##cls,
#define KPROF_DH(name, cls) KPROF_CLASS_##cls,
#include "api.def"
};

const char *const kprof_dir_names[KPROF_DIR_COUNT] = { "HtoH", "HtoD", "DtoH", "DtoD" };
const char *const kprof_host_mem_names[KPROF_HOST_COUNT] = { "-", "pinned", "pageable" };
const char *const kprof_mem_names[KPROF_MEM_COUNT] = { "device", "pinned", "managed" };
const char *const kprof_pred_names[KPROF_PRED_COUNT] = { "idle", "kernel", "HtoD", "DtoH", "DtoD", "memset", "other",
                                                          "held", "held_kernel" };

const char *kprof_calib_state_text(enum kprof_calib_state state)
{
    switch (state) {
    case KPROF_CALIB_DONE: return "done";
    case KPROF_CALIB_OFF: return "off (KPROF_CALIBRATE=0)";
    case KPROF_CALIB_TOOL: return "skipped (another tool that counts kernels is attached)";
    case KPROF_CALIB_CAPTURE: return "skipped (a stream capture was in progress)";
    case KPROF_CALIB_FAILED: return "failed";
    default: return "not run";
    }
}

/* The saved percentiles of a kernel read back (struct kprof_saved_kernel); the writers ask for 50, 95
 * and 99 only, any other q reads 0. */
uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q)
{
    const struct kprof_saved_kernel *sk = (const struct kprof_saved_kernel *)k; /* k is its first member */
    return q == 50.0 ? sk->median_ns : q == 95.0 ? sk->p95_ns : q == 99.0 ? sk->p99_ns : 0;
}
