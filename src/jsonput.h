/* jsonput.h: how libkprof's report writers (the JSON report, its column renderer, the trace) write a JSON
 * string or number.  Header-only, below the writers, so that the column table and the JSON report share it
 * without calling into each other. */
#ifndef KPROF_JSONPUT_H
#define KPROF_JSONPUT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "utf8.h"

/* Writes s as a JSON string literal (quoted, escaped); each byte that is not part of a valid UTF-8 sequence
 * (RFC 3629) is written as \ufffd, so the output is always valid UTF-8. */
static inline void kprof_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = kprof_utf8_len(p);
        if (n == 0) { /* not UTF-8 (a kernel name is just bytes): JSON must be, so mark it replaced */
            fputs("\\ufffd", f);
            p++;
        } else if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n;
        } else {
            if (*p == '"' || *p == '\\')
                fprintf(f, "\\%c", *p);
            else if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
            p++;
        }
    }
    fputc('"', f);
}

/* Writes d as a JSON number: the shortest decimal (at most 17 significant digits) that strtod reads back
 * as the very same double, so that kprof report renders a saved report exactly; null when d is not
 * finite. */
static inline void kprof_json_real(FILE *f, double d)
{
    if (!isfinite(d)) {
        fputs("null", f);
        return;
    }
    char buf[32];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    fputs(buf, f);
}

#endif
