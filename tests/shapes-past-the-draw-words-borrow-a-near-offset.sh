#!/bin/sh
# KPROF_HOLD=N learns each launch shape's offset from its own launches measured in full; a kernel has 24
# draw words (KPROF_KERNEL_HOLD_SHAPES), and the launches of shapes past them are drawn 1 in N on one count
# shared by them all (hold.c, shape_count), so such a shape of a few launches gets one reference or none.
# Its launches not drawn take the offset of the nearest grid of their kernel (within a factor of 2 in
# blocks, the same block) among those with 8 references and 2 launches or more read the same way
# (timing/offsets.c, borrowed_offset); until the forty-fifth session they kept the idle stream's launch
# latency that an offset would take off (a known bug found by a helper in the forty-fourth session;
# README's "Limitations").  preds pastwords (shape_k with 30 grids of 64 to 1920 blocks in turn, 10
# rounds, each launch waited for; 3 us kernels, a 7 us launch latency on an idle stream): 900,000 ns due,
# read 1,056,000 to 1,204,200 before (seeds 1 to 3; 20 to 39 launches without a reference, those that
# share their stream's last stop 9.6 us each), now exact; with 5 ns more latency a block (a large grid
# arrives later) 1,219,200 to 1,475,880 before, now +1 to +4% (the nearest shape that can lend may be a
# few grids away, 320 ns of latency a grid).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "shape_k=3000"
seed_totals pastwords shape_k 900000 5 1 2 3
export FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS=5
seed_totals pastwords shape_k 900000 50 1 2 3
# A shape lends only once its offset is its own latency, not one launch's chance length: 8 references and
# 2 launches read the same way (can_lend).  A helper's case against the first form, which lent the offset of
# a shape of 1 reference and 1 such launch (a standard error of 0, so any difference counted): 1,000 grids
# of 3 launches whose lengths vary from launch to launch (1 to 8 us), no launch latency, 12,426,000 ns due;
# 1934f6f read +12 to +14% (the past shapes' launches that share their stream's last stop hold the host's
# time since), the first form -39 to +57% (seeds 3 to 6), now as 1934f6f.
export FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS=0 FAKEGPU_LAUNCH_LATENCY_NS=0 \
    FAKEGPU_KERNEL_NS=shape_k=3000/4000/5000/2000/8000/1000/6000
seed_totals manypast shape_k 12426000 200 3 4 5 6
