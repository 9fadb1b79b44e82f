#!/bin/sh
# KPROF_SAMPLE=N times each kernel's first launch (the one that draws number 0) and reports it as First,
# also when other threads launch the kernel at the same time: with 2 threads every kernel's First read
# null (a new-user helper), since another thread's untimed launch was counted before the first finished.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for t in 2 4; do
    KPROF_SAMPLE=16 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/s$t.json" run_kprof "$PROGS/many_launches" 1000 $t \
        >/dev/null 2>"$WORK/err" || fail "many_launches with $t threads failed: $(cat "$WORK/err")"
    expect_eq "$(jq -c '[.kernels[] | [.name, .calls, (.first_ns != null)]] | sort' "$WORK/s$t.json")" \
        "[[\"kernel_a(float*)\",$((1000 * t)),true],[\"kernel_b(float*)\",$((100 * t)),true]]" \
        "KPROF_SAMPLE=16, $t threads: each kernel's first launch timed"
done
