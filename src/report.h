/* report.h: writing the report at exit (report.c): the format, destination and extra copies that the
 * KPROF_* settings ask for, each written by a format of report_writers.h. */
#ifndef KPROF_REPORT_H
#define KPROF_REPORT_H

#include "snapshot.h"

/* Writes the report to the KPROF_OUTPUT destination (stderr by default, or when the path cannot be
 * written) in the KPROF_FORMAT format; then its JSON copy (KPROF_SAVE) and the trace (KPROF_TRACE), when
 * asked for, each to its own file (a warning, and nothing else, when that cannot be written). */
void kprof_report_write(const struct kprof_snapshot *s);

#endif
