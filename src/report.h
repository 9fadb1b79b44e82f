/* report.h: writing the report at exit (report.c): the format, destination and extra copies that the
 * KPROF_* settings ask for, each written by a format of report_writers.h. */
#ifndef KPROF_REPORT_H
#define KPROF_REPORT_H

#include "snapshot.h"

/* Writes the report to the KPROF_OUTPUT destination (stderr by default, or when the path cannot be
 * written) in the KPROF_FORMAT format; then its JSON copy (KPROF_SAVE) and the trace (KPROF_TRACE), when
 * asked for, each to its own file (a warning, and nothing else, when that cannot be written). */
void kprof_report_write(const struct kprof_snapshot *s);

/* At the start of the run: one warning for each of KPROF_OUTPUT, KPROF_SAVE and KPROF_TRACE whose path (as
 * its pattern names it now) cannot be written, so that a long run learns it before its end (the report
 * still falls back to stderr at exit, and every path is tried again then).  Creates no file. */
void kprof_report_check_paths(void);

#endif
