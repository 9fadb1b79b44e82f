/* utf8.h: the UTF-8 check that the JSON writers (libkprof's report and trace, kprof-merge) share. */
#ifndef KPROF_UTF8_H
#define KPROF_UTF8_H

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 when it is not one: a stray continuation byte,
 * a lead byte C0, C1 or F5-FF, an overlong form, a surrogate (U+D800-DFFF), a code point above U+10FFFF or a
 * sequence cut short (RFC 3629, section 4).  p is NUL-terminated, so a short sequence stops at the NUL.
 * Pure function; thread-safe. */
static inline int kprof_utf8_len(const unsigned char *p)
{
    int n = p[0] < 0x80 ? 1 : p[0] < 0xc2 ? 0 : p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : p[0] < 0xf5 ? 4 : 0;
    if (n < 2)
        return n;
    /* The second byte's range depends on the lead: that is where overlong forms, surrogates and code
     * points above U+10FFFF show. */
    unsigned char lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

#endif
