/* report-html.h: saved reports as one self-contained HTML page (report-html.c). */
#ifndef KPROF_REPORT_HTML_H
#define KPROF_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>
#include "report-read.h"

/* Writes reports r[0..nr) to f as one HTML page: inline CSS and SVG, no script, no link, nothing fetched.
 * The `top` kernels by total GPU time over all reports (0: all) as bars with their calls and mean; the
 * copies and memsets by direction; each device's busy share of its process's wall time; and, for nr > 1,
 * each of those kernels' time per process (one bar per report, in order) with its imbalance (largest over
 * mean).  Names are escaped (HTML, and control characters as the text report writes them).  Returns 1;
 * write errors are f's (ferror).  Exits with a message when out of memory. */
int kprof_html_write(FILE *f, const struct kprof_saved *r, size_t nr, long top);

#endif
