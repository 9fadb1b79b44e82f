#!/bin/sh
# A module unloaded and another loaded: the new module's kernel may get the old one's handle (a driver's
# allocator reuses memory; FAKEGPU_REUSE_FUNC_HANDLE makes the fake do it every time).  libkprof forgets its launch keys on cuModuleUnload/cuLibraryUnload,
# so the new kernel is counted under its own name, not the unloaded one's (JAX's autotuner loads and unloads
# modules all the time).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
FAKEGPU_REUSE_FUNC_HANDLE=1 FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/preds" reload >"$WORK/out" ||
    fail "preds reload failed"
truth_matches "$WORK/r.json" "$WORK/truth"
expect_eq "$(kernel_field "$WORK/r.json" reloaded_a calls)" 2 "the unloaded kernel: its 2 launches"
expect_eq "$(kernel_field "$WORK/r.json" reloaded_b calls)" 3 "the new one: its 3"
expect_grep 'handle reused' "$WORK/out" "(the fake gave the new kernel the old one's handle: FAKEGPU_REUSE_FUNC_HANDLE)"
