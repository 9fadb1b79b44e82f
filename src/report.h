/* report.h: the report writers (report*.c): text, CSV, JSON and the Chrome trace. */
#ifndef KPROF_REPORT_H
#define KPROF_REPORT_H

#include <stdio.h>
#include "snapshot.h"

/* Writes the report to the KPROF_OUTPUT destination (stderr by default, or when the path cannot be
 * written) in the KPROF_FORMAT format; then its JSON copy (KPROF_SAVE) and the trace (KPROF_TRACE), when
 * asked for, each to its own file (a warning, and nothing else, when that cannot be written). */
void kprof_report_write(const struct kprof_snapshot *s);
void kprof_report_text(FILE *f, const struct kprof_snapshot *s);
void kprof_report_json(FILE *f, const struct kprof_snapshot *s);
/* CSV: one file per table, `base` + ".kernels.csv" and so on, each opened with kprof_output_open()
 * (`chosen` as there); returns 0 if any could not be written, with *failed (malloc'd, the caller frees)
 * naming the first such file (NULL when out of memory) and *why the reason (a static string). */
int kprof_report_csv(const char *base, int chosen, const struct kprof_snapshot *s, char **failed, const char **why);

/* The Chrome trace-event JSON of the snapshot's trace. */
void kprof_report_trace(FILE *f, const struct kprof_snapshot *s);

#endif
