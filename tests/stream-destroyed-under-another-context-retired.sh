#!/bin/sh
# A stream destroyed while another device's context is current (CUDA allows it; a library may leave its own
# context current): libkprof looked for the stream's queue under the current context, found none, and a
# stream made afterwards with the same handle took the destroyed stream's queue as its own, its first launch
# read as behind the destroyed stream's last kernel.  The queue is now found through the stream's own
# context (cuStreamGetCtx) and forgotten as when the stream is destroyed under its own: the new stream's
# first launch has no known predecessor (held as behind unknown work, "held_kernel").
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_DEVICES=2 FAKEGPU_REUSE_STREAM_HANDLE=1
for how in other same; do
    (if [ $how = same ]; then export PREDS_SAME_CONTEXT=1; fi
     KPROF_HOLD=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$how.json" KPROF_TRACE="$WORK/$how.trace.json" \
         run_kprof "$PROGS/preds" crossdestroy) >"$WORK/$how.out" 2>"$WORK/$how.err" ||
        fail "preds crossdestroy ($how) failed: $(cat "$WORK/$how.out" "$WORK/$how.err")"
    expect_grep 'the second stream has the first.s handle' "$WORK/$how.out" "$how: the handle given again"
done
classes() { jq -c '[.traceEvents[] | select(.name == "cross_k") | .args.after]' "$1"; }
expect_eq "$(classes "$WORK/same.trace.json")" '["held_kernel","held_kernel"]' "destroyed under its own context: forgotten"
expect_eq "$(classes "$WORK/other.trace.json")" '["held_kernel","held_kernel"]' "destroyed under another context: forgotten alike"
