#!/bin/sh
# kprof-merge saturates its sums at the largest value instead of wrapping round to a small number: three
# reports whose counts, bytes and times are each 2^63-1 merge to 2^64-1 in the text summary, 2^63-1 (the
# largest JSON integer it writes) in JSON.
. "${top_srcdir:-..}/tests/lib.sh"
MERGE=$top_builddir/tools/kprof-merge
[ -x "$MERGE" ] || skip "kprof-merge not built (configure found no jansson)"
M=9223372036854775807
for r in 0 1 2; do
    cat >"$WORK/r$r.json" <<JSON
{"schema_version": 1, "tool": "libkprof", "pid": $r, "host": "node", "wall_ns": $M,
 "context_init": [{"device": 0, "api": "cuInit", "host_ns": $M}],
 "kernels": [{"name": "big", "mangled": "_Z3bigv", "calls": $M, "timed": $M, "total_ns": $M, "measured_ns": $M}],
 "copies": [{"direction": "HtoD", "count": $M, "bytes": $M, "timed": $M, "timed_bytes": $M, "total_ns": $M}],
 "memsets": {"count": $M, "bytes": $M, "timed": $M, "timed_bytes": $M, "total_ns": $M},
 "allocations": [{"kind": "device", "count": $M, "bytes": $M, "frees": $M, "freed_bytes": $M, "host_ns": $M,
                  "peak_bytes": 1}]}
JSON
done
"$MERGE" -f json -o "$WORK/m.json" "$WORK/r0.json" "$WORK/r1.json" "$WORK/r2.json"
# jq reads numbers as doubles (2^63-1 would read as 2^63): Python reads them exactly.
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read 64-bit integers exactly"
# fields EXPR FIELD...: the fields of the JSON object EXPR (a Python expression over the report r).
fields() {
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
o = eval(sys.argv[2])
print(" ".join(str(o[f]) for f in sys.argv[3:]))' "$WORK/m.json" "$@"
}
expect_eq "$(fields 'r["kernels"][0]' calls timed total_ns)" "$M $M $M" "kernel calls, timed, total_ns saturate"
expect_eq "$(fields 'r' kernel_total_ns)" "$M" "kernel_total_ns saturates"
expect_eq "$(fields 'r["copies"][0]' count bytes timed timed_bytes total_ns)" "$M $M $M $M $M" "copies saturate"
expect_eq "$(fields 'r["memsets"]' count bytes timed timed_bytes total_ns)" "$M $M $M $M $M" "memsets saturate"
expect_eq "$(fields 'r["allocations"][0]' count bytes frees freed_bytes host_ns)" "$M $M $M $M $M" \
    "allocations saturate"
expect_eq "$(fields 'r["wall_ns"]' total)" "$M" "wall time total saturates"
"$MERGE" "$WORK/r0.json" "$WORK/r1.json" "$WORK/r2.json" >"$WORK/m.txt"
cat "$WORK/m.txt"
expect_grep '^ +3 +18446744073709551615 ' "$WORK/m.txt" "text: kernel calls at 2^64-1"
expect_grep '^HtoD +18446744073709551615 ' "$WORK/m.txt" "text: copy count at 2^64-1"
expect_grep '^device +18446744073709551615 ' "$WORK/m.txt" "text: allocation count at 2^64-1"
