/* report_writers.h: the report's formats (report_text.c, report_json.c, report_csv.c, report_trace.c),
 * each writing a snapshot; report.c and kprof-report choose among them. */
#ifndef KPROF_REPORT_WRITERS_H
#define KPROF_REPORT_WRITERS_H

#include <stdio.h>
#include "snapshot.h"

/* The text report of s, to f. */
void kprof_report_text(FILE *f, const struct kprof_snapshot *s);
/* The JSON report of s (schema_version 1, man/libkprof.7), to f. */
void kprof_report_json(FILE *f, const struct kprof_snapshot *s);
/* CSV: one file per table, `base` + ".kernels.csv" and so on, each opened with kprof_output_open()
 * (`chosen` as there); returns 0 if any could not be written, with *failed (malloc'd, the caller frees)
 * naming the first such file (NULL when out of memory) and *why the reason (a static string). */
int kprof_report_csv(const char *base, int chosen, const struct kprof_snapshot *s, char **failed, const char **why);

/* The Chrome trace-event JSON of the snapshot's trace. */
void kprof_report_trace(FILE *f, const struct kprof_snapshot *s);

#endif
