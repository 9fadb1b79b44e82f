/* textput.h: how libkprof's text report (and kprof-merge's) writes a name from a program or a report on
 * one line.  Header-only, so the tools share it without linking the library. */
#ifndef KPROF_TEXTPUT_H
#define KPROF_TEXTPUT_H

#include <limits.h>
#include <stdio.h>

/* The escaped form of byte c (see kprof_text_put) into buf[5]; returns its length. */
static inline size_t kprof_text_char(unsigned char c, char *buf)
{
    switch (c) {
    case '\\': return (size_t)snprintf(buf, 5, "\\\\");
    case '\n': return (size_t)snprintf(buf, 5, "\\n");
    case '\t': return (size_t)snprintf(buf, 5, "\\t");
    case '\r': return (size_t)snprintf(buf, 5, "\\r");
    default:
        if (c < 0x20 || c == 0x7f)
            return (size_t)snprintf(buf, 5, "\\x%02x", c);
        buf[0] = (char)c;
        buf[1] = '\0';
        return 1;
    }
}

/* The width of s as kprof_text_put writes it (INT_MAX at most). */
static inline int kprof_text_len(const char *s)
{
    char buf[5];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += kprof_text_char(*p, buf);
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* Writes s (bytes from a program or a report: a kernel name, a command line, a host) on one line that
 * cannot forge a "== libkprof: ... ==" or "== kprof-merge: ... ==" header: a backslash as \\, a newline,
 * tab or carriage return as \n, \t, \r, any other control character as \xNN; then spaces up to `width`
 * columns. */
static inline void kprof_text_put(FILE *f, const char *s, int width)
{
    char buf[5];
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t l = kprof_text_char(*p, buf);
        fwrite(buf, 1, l, f);
        n += (int)l;
    }
    for (; n < width; n++)
        fputc(' ', f);
}

/* As kprof_text_put, but s is cut to at most `cap` characters (cap >= 4; a UTF-8 sequence counts as one,
 * an escape as its length), its last three then "...": a long C++ name (KPROF_NAME_WIDTH).  Never cuts an
 * escape or a UTF-8 sequence in two. */
static inline void kprof_text_put_capped(FILE *f, const char *s, int width, int cap)
{
    char buf[5];
    int total = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && total <= cap; p++)
        if ((*p & 0xc0) != 0x80)
            total += (int)kprof_text_char(*p, buf);
    if (total <= cap) {
        kprof_text_put(f, s, width);
        return;
    }
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xc0) == 0x80) { /* the rest of a character already begun */
            fputc(*p, f);
            continue;
        }
        size_t l = kprof_text_char(*p, buf);
        if (n + (int)l > cap - 3)
            break;
        fwrite(buf, 1, l, f);
        n += (int)l;
    }
    fputs("...", f);
    for (n += 3; n < width; n++)
        fputc(' ', f);
}

#endif
