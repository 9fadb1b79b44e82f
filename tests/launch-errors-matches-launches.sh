#!/bin/sh
# tests/gpu/launch_errors.py (docs/accuracy.md, "Parameter blocks": how the decode loop's excess was traced
# to the held launches) matches each launch of a libkprof trace to CUPTI's record of the same kernel and
# launch index in another run, and sums libkprof's duration less CUPTI's by the trace's `after` class, by
# how the pair was read (`read`), by kernel, by kernel and launch shape, or by kernel and how it was read.  Made-up inputs: k_a launched 3 times (CUPTI 2, 2, 2 us; libkprof
# 2.5 held, 2.0 idle, 3.0 idle), k_b once (CUPTI 1 us, libkprof 0.5 after a kernel), and a fourth k_a launch
# CUPTI did not record.
. "${top_srcdir:-..}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
cat >"$WORK/r.json" <<'JSON'
{"kernels": [{"name": "k_a(int)", "mangled": "_Z3k_ai"}, {"name": "k_b()", "mangled": "_Z3k_bv"}]}
JSON
ev() { # ev TS DUR NAME AFTER [READ]
    printf '{"ph": "X", "cat": "kernel", "ts": %s, "dur": %s, "name": "%s", "args": {"grid": [1, 1, 1], "block": [32, 1, 1], "after": "%s", "read": "%s", "taken_off_ns": 2000}}' "$1" "$2" "$3" "$4" "${5:-in full}"
}
{
    echo '{"traceEvents": ['
    echo "$(ev 10 2.5 'k_a(int)' held), $(ev 20 2.0 'k_a(int)' idle), $(ev 30 0.5 'k_b()' kernel),"
    echo "$(ev 40 3.0 'k_a(int)' idle 'blind, offset'), $(ev 50 2.0 'k_a(int)' idle)"
    echo ']}'
} >"$WORK/t.json"
printf '# start_ns\tend_ns\tstream\tname\n' >"$WORK/k.tsv"
for s in 1000 5000 9000; do printf '%s\t%s\t7\t_Z3k_ai\n' "$s" $((s + 2000)) >>"$WORK/k.tsv"; done
printf '7000\t8000\t7\t_Z3k_bv\n' >>"$WORK/k.tsv"
out=$(python3 "$top_srcdir/tests/gpu/launch_errors.py" "$WORK/r.json" "$WORK/t.json" "$WORK/k.tsv" 2>"$WORK/err") ||
    fail "launch_errors.py failed: $(cat "$WORK/err")"
echo "$out"
expect_eq "$(echo "$out" | awk '$NF == "idle" {print $1, $2}')" "2 1.0" "idle: 2 launches, +1 us in all (the fourth unmatched)"
expect_eq "$(echo "$out" | awk '$NF == "held" {print $1, $2}')" "1 0.5" "held: +0.5 us"
expect_eq "$(echo "$out" | awk '$NF == "kernel" {print $1, $2}')" "1 -0.5" "after a kernel: -0.5 us"
expect_eq "$(echo "$out" | tail -n 1)" "all 4 launches: libkprof - CUPTI +1.0 us" "the total"
expect_grep "1 launch\(es\) of _Z3k_ai beyond CUPTI's 3" "$WORK/err" "the unmatched launch named"
by_kernel=$(python3 "$top_srcdir/tests/gpu/launch_errors.py" --by kernel --class idle "$WORK/r.json" "$WORK/t.json" "$WORK/k.tsv" 2>/dev/null)
expect_eq "$(echo "$by_kernel" | awk 'NR == 2 {print $1, $3, $NF}')" "2 +0.500 k_a(int)" "--by kernel --class idle: k_a's two idle launches, +0.5 us each"
by_read=$(python3 "$top_srcdir/tests/gpu/launch_errors.py" --by read "$WORK/r.json" "$WORK/t.json" "$WORK/k.tsv" 2>/dev/null)
expect_eq "$(echo "$by_read" | awk '$NF == "offset" {print $1, $2}')" "1 1.0" "--by read: the one launch read blind with an offset, +1 us"
expect_eq "$(echo "$by_read" | awk '$NF == "full" {print $1, $2}')" "3 0.0" "--by read: the three read in full, +0.5, 0 and -0.5 us"
by_kr=$(python3 "$top_srcdir/tests/gpu/launch_errors.py" --by kernel-read --read "in full" "$WORK/r.json" "$WORK/t.json" "$WORK/k.tsv" 2>/dev/null)
expect_eq "$(echo "$by_kr" | awk 'NR > 1 && !/^all/ {print $1, $3}' | sort | tr '\n' ' ')" "1 -0.500 2 +0.250 " "--by kernel-read --read 'in full': k_a's two and k_b's one"
python3 "$top_srcdir/tests/gpu/launch_errors.py" "$WORK/r.json" "$WORK/missing.json" "$WORK/k.tsv" >/dev/null 2>&1 && fail "a missing trace should fail"
pass "launch_errors.py matches launches across runs"
