/* text-report.h: whether a file given to kprof report or kprof-merge is a libkprof text report or CSV
 * table, so that the message can say so instead of a JSON parser's. */
#ifndef KPROF_TOOLS_TEXT_REPORT_H
#define KPROF_TOOLS_TEXT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
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

/* 1 when path names a regular file whose name ends in ".csv" (any case) and whose first line holds a comma before any
 * '{' or '[' (a CSV table of libkprof's, or nsys stats'); reads at most 256 bytes; thread-safe. */
static inline bool kprof_file_is_csv(const char *path)
{
    size_t n = strlen(path);
    struct stat st;
    if (n < 4 || strcasecmp(path + n - 4, ".csv") != 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char buf[256];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    for (size_t i = 0; i < got && buf[i] != '\n'; i++) {
        if (buf[i] == '{' || buf[i] == '[')
            return false;
        if (buf[i] == ',')
            return true;
    }
    return false;
}

#endif
