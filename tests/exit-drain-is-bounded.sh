#!/bin/sh
# A GPU that never finishes (the fake's FAKEGPU_HANG) cannot hang the exit: libkprof waits at most
# KPROF_EXIT_TIMEOUT, says how many pairs were incomplete, and still writes the report.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
start=$(date +%s%N)
FAKEGPU_HANG=1 KPROF_EXIT_TIMEOUT=300 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" \
    run_kprof "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt 5000 ] || fail "exit took $ms ms with a 300 ms bound"
pass "exit took $ms ms"
expect_eq "$(kernel_field "$WORK/r.json" vector_add calls)" 1 "launch counted"
expect_eq "$(kernel_field "$WORK/r.json" vector_add timed)" 0 "but untimed"
expect_eq "$(jqr '.events.incomplete' "$WORK/r.json")" 4 "incomplete pairs reported (1 launch + 3 copies)"
expect_grep '^libkprof: 4 timed call\(s\) had not completed on the GPU after 300 ms' "$WORK/err" "warning"
