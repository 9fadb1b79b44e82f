/* report.c: where the report goes (KPROF_OUTPUT, falling back to stderr) and in which format. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kprof.h"

void kprof_report_write(const struct kprof_snapshot *s)
{
    FILE *f = stderr;
    if (kprof_config.output) {
        f = fopen(kprof_config.output, "w");
        if (!f) {
            kprof_warn("cannot write the report to '%s' (%s); writing it to stderr", kprof_config.output,
                       strerror(errno));
            f = stderr;
        }
    }
    if (kprof_config.format == KPROF_FORMAT_JSON)
        kprof_report_json(f, s);
    else
        kprof_report_text(f, s);
    if (f != stderr) {
        if (fclose(f) != 0)
            kprof_warn("error while writing the report to '%s' (%s)", kprof_config.output, strerror(errno));
    } else {
        fflush(stderr);
    }
}
