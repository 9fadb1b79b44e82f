/* log.c: libkprof's messages, one line each on stderr, prefixed "libkprof: ". */
#include <stdio.h>
#include <unistd.h>
#include "kprof.h"

void kprof_log(enum kprof_log_level level, const char *fmt, ...)
{
    if (level > kprof_config.log)
        return;
    /* One write() per message, so lines from several threads never interleave. */
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "libkprof: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    n += m;
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w;
}
