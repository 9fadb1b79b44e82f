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
/* Writes s as a JSON string literal (quoted, escaped); each byte that is not part of a valid UTF-8 sequence
 * (RFC 3629) is written as \ufffd, so the output is always valid UTF-8. */
void kprof_json_string(FILE *f, const char *s);
/* Writes d as a JSON number: the shortest decimal (at most 17 significant digits) that strtod reads back
 * as the very same double, so that kprof report renders a saved report exactly; null when d is not
 * finite. */
void kprof_json_real(FILE *f, double d);
/* CSV: one file per table, `base` + ".kernels.csv" and so on, each opened with kprof_output_open()
 * (`chosen` as there); returns 0 if any could not be written, with *failed (malloc'd, the caller frees)
 * naming the first such file (NULL when out of memory) and *why the reason (a static string). */
int kprof_report_csv(const char *base, int chosen, const struct kprof_snapshot *s, char **failed, const char **why);

/* The Chrome trace-event JSON of the snapshot's trace. */
void kprof_report_trace(FILE *f, const struct kprof_snapshot *s);

#endif
