/* units.h: how libkprof's text tables (and kprof-merge's) write times and sizes: a time unit chosen from
 * the values it writes, sizes in B, KiB, MiB or GiB.  Header-only, so the tools share it without linking
 * the library. */
#ifndef KPROF_UNITS_H
#define KPROF_UNITS_H

#include <stdint.h>
#include <stdio.h>

/* A time unit: its name and its length in ns. */
struct kprof_unit { const char *name; double ns; };

/* The unit in which the largest value, max_ns, reads in the thousands at most (kprof-merge's tables). */
static inline struct kprof_unit kprof_unit_for(uint64_t max_ns)
{
    if (max_ns >= 10000000000ull) return (struct kprof_unit){ "s", 1e9 };
    if (max_ns >= 10000000ull) return (struct kprof_unit){ "ms", 1e6 };
    if (max_ns >= 10000ull) return (struct kprof_unit){ "us", 1e3 };
    return (struct kprof_unit){ "ns", 1.0 };
}

/* The time units of the text report, from 0 (ns) to KPROF_UNITS - 1 (s). */
#define KPROF_UNITS 4
static inline struct kprof_unit kprof_unit_at(int i)
{
    static const struct kprof_unit u[KPROF_UNITS] = { { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
    return u[i];
}

/* Chooses a column's (or a group of columns') unit from its values, given one by one to
 * kprof_unit_pick_add(), for values written with 3 decimals (ns whole: kprof_unit_decimals): the largest
 * unit in which the largest value reads at least 1 (1.000 us, not 1000 ns), unless a smaller one has fewer
 * nonzero values reading 0 (0.000) and still gives no value more than 4 integer digits (more than 4
 * digits is the worse: a 0.000 beside 20000.000 keeps the larger unit).  From us to ns that never happens
 * (below half a ns reads 0 in both).  Zero-initialise it before the first value. */
struct kprof_unit_pick {
    double max;                      /* ns */
    unsigned long zeros[KPROF_UNITS]; /* nonzero values that read 0.000 in each unit */
};
/* Half the last digit written in unit i: what reads 0 below it, and what rounds up past 9999 (ns whole). */
static inline double kprof_unit_half_digit(int i)
{
    return i == 0 ? 0.5 : 0.0005;
}
static inline void kprof_unit_pick_add(struct kprof_unit_pick *p, double ns)
{
    if (ns > p->max)
        p->max = ns;
    for (int i = 0; i < KPROF_UNITS; i++)
        if (ns > 0.0 && ns / kprof_unit_at(i).ns < kprof_unit_half_digit(i))
            p->zeros[i]++;
}
static inline struct kprof_unit kprof_unit_pick_best(const struct kprof_unit_pick *p)
{
    int best = KPROF_UNITS - 1;
    while (best > 0 && p->max / kprof_unit_at(best).ns < 0.9995) /* what %.3f rounds to 1.000 counts */
        best--;
    for (int i = best - 1; i >= 0 && p->max / kprof_unit_at(i).ns < 10000.0 - kprof_unit_half_digit(i); i--)
        if (p->zeros[i] < p->zeros[best])
            best = i;
    return kprof_unit_at(best);
}

/* The decimals of a time written in unit u, for printf's "%.*f": whole ns (a GPU's event stamps are
 * 0.5 us apart: a tenth of a ns is noise, and "171.000 ns" read as precise), 3 in the larger units. */
static inline int kprof_unit_decimals(struct kprof_unit u)
{
    return u.ns == 1.0 ? 0 : 3;
}

/* The text report's unit for one value alone (kprof_unit_pick_best): 1.000 us, not 1000 ns. */
static inline struct kprof_unit kprof_unit_of(double ns)
{
    struct kprof_unit_pick p = { 0.0, { 0 } };
    kprof_unit_pick_add(&p, ns);
    return kprof_unit_pick_best(&p);
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
