/* units_test.c: unit test of units.h's choice of a column's time unit (kprof_unit_pick), for values written
 * with 3 decimals in us, ms and s and in whole ns (kprof_unit_decimals).  Built from this file and the header
 * alone.  Prints one line per check ("ok ..." or "FAIL ..."); exits 1 if any check failed. */
#include <stdio.h>
#include <string.h>
#include "units.h"

static int failed;

/* The unit picked for the n values (ns) in v. */
static const char *pick(const double *v, int n)
{
    struct kprof_unit_pick p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < n; i++)
        kprof_unit_pick_add(&p, v[i]);
    return kprof_unit_pick_best(&p).name;
}

static void check(const char *what, const double *v, int n, const char *want)
{
    const char *got = pick(v, n);
    int ok = strcmp(got, want) == 0;
    printf("%s %s: %s (expected %s)\n", ok ? "ok" : "FAIL", what, got, want);
    failed |= !ok;
}

int main(void)
{
    /* A breaker helper's cases, once ns were written whole: 9999.6 ns reads "10000" (5 digits) and 0.4 ns
     * reads "0" in ns, so ns is no better than us there. */
    check("9999.6 and 0.4 ns", (const double[]){ 9999.6, 0.4 }, 2, "us");
    check("1000 and 0.43 ns (0.43 reads 0 in either)", (const double[]){ 1000.0, 0.43 }, 2, "us");
    /* Stepping down where it keeps a value from reading 0.000, while no value passes 4 digits (from us to
     * ns it never does now: below half a ns reads 0 in both). */
    check("1500 and 0.6 ns (0.001 us)", (const double[]){ 1500.0, 0.6 }, 2, "us");
    check("2 ms and 100 ns (0.100 us; 0.000 ms)", (const double[]){ 2e6, 100.0 }, 2, "us");
    check("9999.4 ms and 100 us", (const double[]){ 9999.4e6, 1e5 }, 2, "ms");
    check("20 ms and 100 ns", (const double[]){ 2e7, 100.0 }, 2, "ms");
    check("1 us alone", (const double[]){ 1000.0 }, 1, "us");
    check("999 ns alone", (const double[]){ 999.0 }, 1, "ns");
    return failed;
}
