#!/bin/sh
# Known bug, kept out of TESTS until fixed (tests/Makefile.am, KNOWN_BUG_TESTS; run it with `make check
# TESTS=length-step-read-blind-as-the-runs-mean.sh`), found by a helper set to break the forty-fourth
# session's per-shape blind reading.  KPROF_HOLD=N reads a launch not drawn blind, as its shape's
# references' mean, once that mean is known closely (timing/offsets.c, judge_sure); the mean is settled
# over the whole run at exit (kprof_offsets_settle).  A kernel whose length steps up during the run
# (clocks, caches, a growing problem) has its early launches read blind at a mean that the late
# references pull up: grow_k on an idle stream (preds growing: an 8-block shape and a grid that grows
# every 40 rounds), the 8-block launches 3 us, the growing grid's 0.1 to 1.5 us (too noisy ever to be
# known), every launch 30 us from the 1100th on: 5,020,900 ns due, read 5,694,743 to 5,857,150 (+13 to
# +17%) with seed 7 in 5 runs of 5 (462 of the 550 8-block launches before the step read blind, each
# about 1.46 us long).  c109b24, whose blind reading waited for every shape of a kernel, read it exact
# here, and as wrong with the growing grid's lengths constant (3 us): the flaw is blind reading's, the
# per-shape reading takes it to kernels with a shape never known.  A fix reads a blind launch as the
# references of its own part of the run (those drawn near it), not the whole run's.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "grow_k=3000/100/3000/900/3000/200/3000/1500"
export FAKEGPU_KERNEL_LATER=grow_k=1100:30000
seed_totals growing grow_k 5020900 20 5 7
