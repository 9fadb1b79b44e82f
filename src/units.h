/* units.h: how libkprof's text tables (and kprof-merge's) write times and sizes: one time unit per table,
 * sizes in B, KiB, MiB or GiB.  Header-only, so the tools share it without linking the library. */
#ifndef KPROF_UNITS_H
#define KPROF_UNITS_H

#include <stdint.h>
#include <stdio.h>

/* A time unit: its name and its length in ns. */
struct kprof_unit { const char *name; double ns; };

/* The unit for a whole table, chosen so that its largest value, max_ns, reads in the thousands at most. */
static inline struct kprof_unit kprof_unit_for(uint64_t max_ns)
{
    if (max_ns >= 10000000000ull) return (struct kprof_unit){ "s", 1e9 };
    if (max_ns >= 10000000ull) return (struct kprof_unit){ "ms", 1e6 };
    if (max_ns >= 10000ull) return (struct kprof_unit){ "us", 1e3 };
    return (struct kprof_unit){ "ns", 1.0 };
}

/* Writes the byte count b right-aligned in `width` columns of f. */
static inline void kprof_print_bytes(FILE *f, int width, uint64_t b)
{
    char buf[32];
    if (b >= (1ull << 30))
        snprintf(buf, sizeof buf, "%.2f GiB", (double)b / (1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, sizeof buf, "%.2f MiB", (double)b / (1ull << 20));
    else if (b >= (1ull << 10))
        snprintf(buf, sizeof buf, "%.2f KiB", (double)b / (1ull << 10));
    else
        snprintf(buf, sizeof buf, "%llu B", (unsigned long long)b);
    fprintf(f, "%*s", width, buf);
}

#endif
