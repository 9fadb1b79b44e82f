/* shim.c: libshim.so, a second LD_PRELOAD library of the kind that breaks when a profiler's dlsym wrapper
 * is not a plain jump. Its puts looks up the next puts with dlsym(RTLD_NEXT) on every call, uncached:
 * glibc resolves RTLD_NEXT relative to the caller's return address, so if a preloaded dlsym reached the
 * real one through a call, "next" would be relative to that library and find this puts again. Such a shim
 * would recurse until the stack overflows (slowly: its string grows each time); this one says so on stderr
 * and aborts at the first re-entry instead. Built without sanitizer flags so it loads under any program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread int depth;
static const char loop[] = "libshim: puts re-entered: dlsym(RTLD_NEXT, \"puts\") found libshim's own puts\n";

int puts(const char *s)
{
    int (*next)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");
    size_t n = strlen(s);
    char *buf;
    int rc;

    if (!next)
        abort();
    if (depth) {
        if (write(2, loop, sizeof loop - 1) < 0)
            abort();
        abort();
    }
    if (!(buf = malloc(n + sizeof "shim: ")))
        return EOF;
    memcpy(buf, "shim: ", 6);
    memcpy(buf + 6, s, n + 1);
    depth++;
    rc = next(buf);
    depth--;
    free(buf);
    return rc;
}
