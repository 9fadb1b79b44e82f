/* text-report.h: whether a file given to kprof report or kprof-merge is a libkprof text report, so that
 * the message can say so instead of a JSON parser's. */
#ifndef KPROF_TOOLS_TEXT_REPORT_H
#define KPROF_TOOLS_TEXT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* 1 when the regular file at path begins as libkprof's text report does ("== libkprof: ").  Not asked of
 * anything else: a FIFO, read once already, opened again waits for another writer (kprof report hung for
 * ever on one: a breaker helper).  Reads 13 bytes; thread-safe. */
static inline bool kprof_file_is_text_report(const char *path)
{
    static const char head[] = "== libkprof: ";
    char buf[sizeof head - 1];
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    FILE *f = fopen(path, "r");
    bool is = f && fread(buf, 1, sizeof buf, f) == sizeof buf && memcmp(buf, head, sizeof buf) == 0;
    if (f)
        fclose(f);
    return is;
}

#endif
