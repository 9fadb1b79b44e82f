#!/bin/sh
# KPROF_HOLD=N learns each launch shape's offset from its own launches measured in full; a kernel has 24
# draw words (KPROF_KERNEL_HOLD_SHAPES), and the launches of shapes past them are drawn 1 in N on one count
# shared by them all (hold.c, shape_count), so such a shape of a few launches gets one reference or none.
# Its launches not drawn take the offset of the nearest grid of their kernel (within a factor of 2 in
# blocks, the same block) with references and launches read the same way (timing/offsets.c,
# borrowed_offset); until the forty-fifth session they kept the idle stream's launch latency that an
# offset would take off (a known bug found by a helper in the forty-fourth session; README's
# "Limitations").  preds pastwords (shape_k with 30 grids of 64 to 1920 blocks in turn, 10 rounds, each
# launch waited for; 3 us kernels, a 7 us launch latency on an idle stream): 900,000 ns due, read 1,056,000
# to 1,204,200 before (seeds 1 to 3; 20 to 39 launches without a reference, those that share their stream's
# last stop 9.6 us each), now exact; with 5 ns more latency a block (a large grid arrives later) 1,219,200
# to 1,475,880 before, now within 1.5% (a grid 64 blocks away arrives 320 ns sooner or later).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "shape_k=3000"
seed_totals pastwords shape_k 900000 5 1 2 3
export FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS=5
seed_totals pastwords shape_k 900000 20 1 2 3
