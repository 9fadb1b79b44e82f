#!/bin/sh
# KPROF_HOLD=N (the default, 8): a launch not drawn on an idle stream reads blind (no start of its own, no
# question whether its stream was idle: idle-launches-not-drawn-start-at-the-last-stop.sh) once its
# kernel's references' mean is known closely, and that was judged per kernel: every shape of it had to be
# known.  A kernel whose grid follows a growing length (the eager decode loop's gemv and elementwise
# kernels over its cache: 10 to 160 shapes) had a new shape with too few references every few tokens, and
# its launches of every shape recorded starts of their own and asked meanwhile (on the H100's decode trace
# about 2,800 launches of 81,000 whose own shape was known).  Now a shape known closely reads blind by
# itself.  grow_k (3 us) on an idle stream, 600 rounds of 8 blocks and of a grid that grows by 64 blocks
# every 40 rounds, each launch waited for: in the second half of the run, the 8-block launches, whose
# shape has long been known, must all read blind (before: about 8 in every 40 rounds read unheld, as each
# new grid's first launches were drawn: 125 of 300; 2 now), and the total stay exact.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
idle_env "grow_k=3000"
preds_exact growing g '[1200,3600000,3000,3000]'
# The 8-block launches in launch order, their reads in the run's second half (rounds 300 to 599).
reads=$(jq -r '[.traceEvents[] | select((.name // "") == "grow_k" and .args.grid[0] == 8)] | sort_by(.ts) |
    .[300:] | map(.args.read) | group_by(.) | map("\(.[0])=\(length)") | join(" ")' "$WORK/g.trace.json")
unheld=$(jq '[.traceEvents[] | select((.name // "") == "grow_k" and .args.grid[0] == 8)] | sort_by(.ts) | .[300:] |
    map(select(.args.read | startswith("unheld"))) | length' "$WORK/g.trace.json")
[ "$unheld" -le 10 ] || fail "second half: $unheld of the 300 8-block launches read unheld, expected all but 10 blind ($reads)"
pass "second half, the 8-block launches: $reads"
