#!/bin/sh
# Launches KPROF_SAMPLE leaves untimed are counted per thread (no counter shared by every launching
# thread), each thread in a block handed on to a new thread once its own has exited: the API table and the
# kernels still count every launch, across rounds of new threads.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
api_calls() { # api_calls FILE NAME: the API table's calls of NAME
    jq -r --arg n "$2" '[.api[] | select(.name == $n) | .calls] | add // 0' "$1"
}
for n in 1000000 7; do
    KPROF_SAMPLE=$n KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$n.json" run_kprof "$PROGS/two_threads" 6 >/dev/null
    expect_eq "$(api_calls "$WORK/r$n.json" __cudaLaunchKernel)" 6000 "KPROF_SAMPLE=$n: 6 rounds of 2 threads x 500 launches in the API table"
    expect_eq "$(kernel_field "$WORK/r$n.json" kernel_a calls)" 3000 "KPROF_SAMPLE=$n: kernel_a's launches"
    expect_eq "$(kernel_field "$WORK/r$n.json" kernel_b calls)" 3000 "KPROF_SAMPLE=$n: kernel_b's launches"
done
