#!/bin/sh
# Known bug, kept out of TESTS until fixed (tests/Makefile.am, KNOWN_BUG_TESTS; run it with `make check
# TESTS=skewed-lengths-offset-not-taken-for-chance.sh`), found in the forty-third session: KPROF_HOLD=N
# takes a kernel shape's offset off its cheap launches (timing/offsets.c, offset_of) where their mean
# and their references' differ by more than 2 standard errors, each group's from its own spread.  A
# kernel whose lengths are skewed (1 us, every 16th launch 40 us) spreads its references' mean far more
# than a normal law says: the ~60 references hold the 40 us launches 2 to 8 times where 3.8 are due,
# their spread with them, so a difference of chance passes the test, and the cheap launches, read exact,
# are brought to the references' mean: preds paced, 400 launches, 1,375,000 ns due, read 870,644 to
# 3,055,467 ns in some runs of some seeds (seeds 1 and 3 most; the harvester's pace decides which drawn
# launches become references).  A pooled spread (the two groups' together, as the test's null law has
# it) fixes the references that missed the long launches and worsens those that caught too many
# (tried, not kept).  A test that reads a shift of the whole law (a latency moves every
# launch; a chance tail moves the mean alone), on the medians say, would tell them apart.
# The forty-fourth session found the larger part elsewhere: the shape's first 8 launches, all measured in
# full, read 1 us each, a spread of 0, so the references' mean was "known" at once and the launches not
# drawn read blind as it (341 of 400 in one run whose 58 references held no long one: 400,000 ns).
# docs/probes/skew-far-tail.patch mends both (60 seeds: 24 to 34 beyond 5% before, 0 with it) and cost
# the decode loop 0.11x on an H100 (docs/accuracy.md, "Skewed lengths"): not kept.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS=idle_k=1000/1000/1000/1000/1000/1000/1000/1000/1000/1000/1000/1000/1000/1000/1000/40000
seed_totals paced idle_k 1375000 50 1 2 3 4 5 6 7 8
