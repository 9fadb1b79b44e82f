#!/bin/sh
# Known bug, kept out of TESTS until fixed (tests/Makefile.am, KNOWN_BUG_TESTS; run it with `make check
# TESTS=shapes-past-the-draw-words-keep-their-latency.sh`), found by a helper in the forty-fourth session
# (c109b24 as HEAD; README's "Limitations" tells of it).  KPROF_HOLD=N learns each launch shape's offset
# from its own launches measured in full; a kernel has 24 draw words (KPROF_KERNEL_HOLD_SHAPES), and the
# launches of shapes past them are drawn 1 in N on one count shared by them all (hold.c, shape_count), so
# such a shape of a few launches gets one reference or none, and its launches not drawn keep the idle
# stream's launch latency that its offset would take off (the events' unheld_no_reference counts them).
# preds pastwords (shape_k with 30 grids of 64 to 1920 blocks in turn, 10 rounds, each launch waited for;
# 3 us kernels, a 7 us launch latency on an idle stream): 900,000 ns due, read 1,056,000 to 1,204,200
# (seeds 1 to 3; 20 to 39 launches without a reference, the past shapes' launches that share their
# stream's last stop 9.6 us each); with 5 ns more latency a block (a large grid arrives later) 1,219,200
# to 1,475,880.  The eager decode loop's elementwise kernels whose grid follows the token's position have
# 160 shapes of about 24 launches.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "shape_k=3000"
seed_totals pastwords shape_k 900000 50 1 2 3
