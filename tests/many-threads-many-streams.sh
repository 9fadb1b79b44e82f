#!/bin/sh
# 8 host threads x 4 streams x 1000 launches at once: none lost, none counted twice, all timed, no
# deadlock.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -x "$FAKE/progs/threads8x4" ] || skip "fake threads program not built"
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$FAKE/progs/threads8x4" >/dev/null
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" worker calls)" 32000 "every launch counted once"
expect_eq "$(kernel_field "$WORK/r.json" worker timed)" 32000 "and timed"
expect_eq "$(kernel_field "$WORK/r.json" worker avg_ns)" 1000 "exactly"
