/* report-read.h: a libkprof JSON report read back into the snapshot the report writers render from
 * (report-read.c, the inverse of src/report_json.c), for kprof-report. */
#ifndef KPROF_REPORT_READ_H
#define KPROF_REPORT_READ_H

#include <stdbool.h>
#include "kprof_config.h"
#include "snapshot.h"

/* One report read back: the snapshot, and the settings of the run that the writers read from
 * kprof_config (kprof_saved_apply() puts them there). */
struct kprof_saved {
    struct kprof_snapshot s;
    long sample;               /* sample_period (KPROF_SAMPLE; 0: auto) */
    long seed, budget;         /* sample_seed (KPROF_SEED), sample_budget (KPROF_SAMPLE_BUDGET) */
    enum kprof_group group;    /* group (KPROF_GROUP) */
    enum kprof_names names;    /* names (KPROF_NAMES: base gives each kernel row its base name) */
    long name_width;           /* name_width (KPROF_NAME_WIDTH) */
    long top;                  /* top (KPROF_TOP: kernels in the text report's table, 0 all) */
    int auto_check;            /* the report has "auto_check" (KPROF_AUTO_CHECK=1): its kernel rows' check_* set */
    char *file;                /* the report's path, owned */
};

/* Reads the libkprof JSON report at path into *r (zeroed first); each problem is one "kprof: " line on
 * stderr.  Returns false when the file cannot be read or is not a libkprof report of schema_version 1
 * (*r is then empty); an entry whose name, direction or kind this kprof does not know is left out, with
 * a warning.  A report written before steady_ns and steady_m2 has its averages and standard deviations
 * rebuilt from the rounded avg_ns and stddev_ns (one warning).  Release with kprof_saved_free(). */
bool kprof_saved_read(struct kprof_saved *r, const char *path);
/* Sets kprof_config's sample, seed, sample_budget, group, names, name_width, top and auto_check to r's, for
 * the writers.
 * Not thread-safe (a global). */
void kprof_saved_apply(const struct kprof_saved *r);
/* Releases what r owns and zeroes it. */
void kprof_saved_free(struct kprof_saved *r);

#endif
