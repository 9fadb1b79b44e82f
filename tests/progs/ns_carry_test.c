/* ns_carry_test.c: unit test of sample.h's kprof_ns_carry and kprof_ns_adjust, with which the learned
 * offsets' corrections (timing/offsets.c, kprof_offsets_settle) reach the kernels' and devices' totals in
 * whole ns.  Built from this file and the header alone.  Prints one line per check ("ok ..." or
 * "FAIL ..."); exits 1 if any check failed. */
#include <stdint.h>
#include <stdio.h>
#include "sample.h"

static int failed;

static void check(int ok, const char *what, double got, double want)
{
    printf("%s %s: %.3f (expected %.3f)\n", ok ? "ok" : "FAIL", what, got, want);
    failed |= !ok;
}

/* The total after adding ns n times to a total of start, carried; *rest_out the fraction left. */
static uint64_t add_n(uint64_t start, double ns, int n, double *rest_out)
{
    uint64_t u = start;
    double rest = 0.0;
    for (int i = 0; i < n; i++)
        u = kprof_ns_add_clamped(u, kprof_ns_carry(&rest, ns));
    *rest_out = rest;
    return u;
}

int main(void)
{
    double rest;
    /* 0.4 ns a thousand times: 400 ns (rounded one by one, each added nothing: the drift of the
     * twenty-fifth session's build, 2 to 17 ns in a run's totals). */
    uint64_t u = add_n(1000, 0.4, 1000, &rest);
    check(u == 1400, "0.4 ns x 1000 adds 400 ns", (double)u, 1400);
    check(rest > -0.5 && rest <= 0.5, "the fraction left within half a ns", rest, 0);
    /* -1.5 ns a hundred times: -150 (each rounded on its own, -1.5 read -1: -100). */
    u = add_n(1000, -1.5, 100, &rest);
    check(u == 850, "-1.5 ns x 100 takes 150 ns", (double)u, 850);
    /* 1.5 then -1.5 in turn: nothing in the end. */
    uint64_t v = 500;
    rest = 0.0;
    for (int i = 0; i < 1000; i++)
        v = kprof_ns_add_clamped(v, kprof_ns_carry(&rest, i % 2 ? -1.5 : 1.5));
    check(v == 500, "1.5 and -1.5 in turn leave the total", (double)v, 500);
    /* Never below 0. */
    u = add_n(10, -3.0, 10, &rest);
    check(u == 0, "a total taken below 0 reads 0", (double)u, 0);
    /* kprof_ns_adjust: what a total cannot take is carried, not dropped: 100, then -300 and +250 in turn
     * (an offset's roles settled one by one, the one taking off first) leave 50 (dropped: 250). */
    u = 100;
    rest = 0.0;
    double added = kprof_ns_adjust(&u, &rest, -300.0);
    check(u == 0 && added == -100.0, "an adjustment of -300 on 100 takes 100", (double)u, 0);
    check(rest == -200.0, "and carries the other 200", rest, -200.0);
    kprof_ns_adjust(&u, &rest, 250.0);
    check(u == 50, "then +250 leaves 50", (double)u, 50);
    kprof_ns_adjust(&u, &rest, 0.4);
    kprof_ns_adjust(&u, &rest, 0.4);
    check(u == 51 && rest > -0.5 && rest <= 0.5, "fractions carried as before", (double)u, 51);
    return failed;
}
