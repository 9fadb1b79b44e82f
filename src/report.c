/* report.c: where the report and the trace go (KPROF_OUTPUT and KPROF_TRACE patterns, stderr as the
 * fallback) and in which format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kprof.h"

/* The path a pattern names: in a forked child, with ".%p" added when the pattern has no %p of its own. */
static char *expand(const char *pattern)
{
    if (!kprof_forked_child || strstr(pattern, "%p"))
        return kprof_expand_path(pattern);
    size_t n = strlen(pattern) + 4;
    char *p = malloc(n);
    if (!p)
        return NULL;
    snprintf(p, n, "%s.%%p", pattern);
    char *r = kprof_expand_path(p);
    free(p);
    return r;
}

/* Opens the expansion of `pattern` for writing; NULL (after a warning naming `what`) if it cannot be. */
static FILE *open_expanded(const char *pattern, const char *what, char **path_out)
{
    char *path = expand(pattern);
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        kprof_warn("cannot write the %s to '%s' (%s)%s", what, path ? path : pattern,
                   path ? strerror(errno) : "out of memory",
                   strcmp(what, "report") == 0 ? "; writing it to stderr" : "");
    if (!f)
        free(path);
    else
        *path_out = path;
    return f;
}

/* Closes f; returns 0 (after a warning) if anything written to it was lost. */
static int close_file(FILE *f, char *path, const char *what)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        kprof_warn("error while writing the %s to '%s' (%s)%s", what, path, strerror(errno ? errno : EIO),
                   strcmp(what, "report") == 0 ? "; writing it to stderr" : "");
        free(path);
        return 0;
    }
    free(path);
    return 1;
}

void kprof_report_write(const struct kprof_snapshot *s)
{
    if (kprof_config.format == KPROF_FORMAT_CSV) {
        char *base = expand(kprof_config.output ? kprof_config.output : "kprof.%p");
        if (!base || !kprof_report_csv(base, s)) {
            kprof_warn("writing the report as text to stderr instead");
            kprof_report_text(stderr, s);
        } else {
            kprof_info("report written to %s.*.csv", base);
        }
        free(base);
    } else {
        FILE *f = stderr;
        char *path = NULL;
        if (kprof_config.output && !(f = open_expanded(kprof_config.output, "report", &path)))
            f = stderr;
        for (;;) {
            errno = 0;
            if (kprof_config.format == KPROF_FORMAT_JSON)
                kprof_report_json(f, s);
            else
                kprof_report_text(f, s);
            if (f == stderr || close_file(f, path, "report"))
                break;
            f = stderr; /* the file could not take it: the report is never lost */
        }
        fflush(stderr);
    }

    if (kprof_config.trace) {
        char *path = NULL;
        FILE *f = open_expanded(kprof_config.trace, "trace", &path);
        if (f) {
            errno = 0;
            kprof_report_trace(f, s);
            close_file(f, path, "trace");
        }
    }
}
