#!/bin/sh
# reduce under libkprof: exact launch counts and GPU times per kernel, in JSON and text, and the average
# libkprof reports equals the one the program measures itself with its own cudaEvent pair.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
export FAKEGPU_KERNEL_NS="reduce_blocks=25000,reduce_final=3000"

KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$KERNELS/reduce" --no-verify --iters 5 >"$WORK/out" 2>"$WORK/err"
cat "$WORK/out"
expect_eq "$(jqr .schema_version "$WORK/r.json")" 1 "schema_version"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks calls)" 6 "reduce_blocks calls (warm-up + 5)"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks timed)" 6 "reduce_blocks timed"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks total_ns)" 150000 "reduce_blocks total_ns"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks min_ns)" 25000 "reduce_blocks min_ns"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks max_ns)" 25000 "reduce_blocks max_ns"
expect_eq "$(kernel_field "$WORK/r.json" reduce_final calls)" 6 "reduce_final calls"
expect_eq "$(kernel_field "$WORK/r.json" reduce_final total_ns)" 18000 "reduce_final total_ns"
expect_eq "$(jqr '.kernels[0].name' "$WORK/r.json" | cut -d'(' -f1)" reduce_blocks "kernels sorted by total time"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks name)" \
    "reduce_blocks(double const*, double*, unsigned long)" "demangled name"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks grid)" "$(printf '[\n  1024,\n  1,\n  1\n]')" "grid"
expect_eq "$(jqr '.kernel_total_ns' "$WORK/r.json")" 168000 "kernel_total_ns"
expect_eq "$(copy_field "$WORK/r.json" HtoD count)" 1 "HtoD count"
expect_eq "$(copy_field "$WORK/r.json" HtoD bytes)" 83886080 "HtoD bytes"
# 83.886080 ms as cuEventElapsedTime's float milliseconds is exact to about 8 ns.
t=$(copy_field "$WORK/r.json" HtoD total_ns)
[ $((t - 83886080)) -le 8 ] && [ $((83886080 - t)) -le 8 ] || fail "HtoD time $t ns, expected 83886080 (1 ns per byte) within float precision"
pass "HtoD time $t ns"
expect_eq "$(copy_field "$WORK/r.json" DtoH bytes)" 40 "DtoH bytes"
expect_eq "$(jqr '.allocations[0].count' "$WORK/r.json")" 3 "allocations"
expect_eq "$(jqr '.allocations[0].frees' "$WORK/r.json")" 3 "frees"
expect_eq "$(jqr '.allocations[0].peak_bytes' "$WORK/r.json")" $((83886080 + 8192 + 40)) "peak bytes in use"
expect_eq "$(jqr '.events.incomplete' "$WORK/r.json")" 0 "no incomplete pairs"
# The program's own event pair around each reduce_blocks launch reads the same time.
expect_grep 'reduce_blocks: 5 launches, average 25\.000 us' "$WORK/out" "program's own measurement"
expect_no_grep . "$WORK/err" "nothing on stderr besides the report (which went to a file)"

# The text report: fixed section headers and the same figures, on stderr by default.
run_kprof "$KERNELS/reduce" --no-verify --iters 5 >/dev/null 2>"$WORK/text"
cat "$WORK/text"
for section in report "context init" kernels copies memsets allocations api events end; do
    expect_grep "^== libkprof: $section ==\$" "$WORK/text" "text section '$section'"
done
expect_grep '^ *89\.29 +150\.000 +6 +6 +25\.000 +25\.000 +25\.000 +25\.000 +25\.000 +25\.000 +25\.000 +0\.000( +[0-9]+(\.[0-9]{3})?){4}  reduce_blocks\(double const\*, double\*, unsigned long\)$' \
    "$WORK/text" "text kernel row (share, total, calls, timed, first, avg, med, p95, p99, min, max, stddev, host and queue times, name)"
expect_grep '^HtoD +pageable +1 +80\.00 MiB +1 +83\.886 ' "$WORK/text" "text copy row in ms"
expect_eq "$(kernel_field "$WORK/r.json" reduce_blocks first_ns)" 25000 "first launch apart"
