#!/bin/sh
# bench-merge.sh: times kprof-merge over N generated JSON reports, for each N given (default 1000 and 10000).
# Each report holds 10 kernels every process ran and U of its own (BENCH_UNIQUE, default 20: JIT-compiled
# kernels get per-process names), so the merged kernel table grows with N: a merge whose per-report cost grows with that table is
# quadratic in N, and shows here.  A benchmark, not a test: it prints times and checks only the counts.
#
#   tools/bench-merge.sh [N...]          KPROF_MERGE=path/to/kprof-merge (default: next to this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
merge=${KPROF_MERGE:-$here/kprof-merge}
[ -x "$merge" ] || { echo "bench-merge: no kprof-merge at $merge (build it, or set KPROF_MERGE)" >&2; exit 2; }
[ $# -gt 0 ] || set -- 1000 10000
u=${BENCH_UNIQUE:-20}
case $u in ''|*[!0-9]*) echo "bench-merge: BENCH_UNIQUE must be a number, not '$u'" >&2; exit 2 ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-merge.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# gen N: writes reports r0.json .. r<N-1>.json into $dir/N.
gen() {
    mkdir -p "$dir/$1"
    awk -v n="$1" -v u="$u" -v d="$dir/$1" 'BEGIN {
        for (r = 0; r < n; r++) {
            f = d "/r" r ".json"
            printf "{\"schema_version\": 1, \"tool\": \"libkprof\", \"pid\": %d, \"host\": \"node%d\", \"wall_ns\": %d,\n", 1000 + r, r % 64, 1000000000 + r >f
            printf " \"context_init\": [{\"device\": 0, \"api\": \"cuInit\", \"host_ns\": %d}],\n \"kernels\": [", 20000000 + r >f
            for (k = 0; k < 10 + u; k++) {
                name = k < 10 ? "_Z6sharedILi" k "EEvv" : "triton_rank" r "_k" k
                printf "%s\n  {\"name\": \"%s\", \"mangled\": \"%s\", \"calls\": %d, \"timed\": %d, \"total_ns\": %d, \"measured_ns\": %d}", k ? "," : "", name, name, 10 + k, 10 + k, 1000 * (k + 1) + r, 1000 * (k + 1) + r >f
            }
            printf "],\n \"copies\": [{\"direction\": \"HtoD\", \"count\": 4, \"bytes\": 4096, \"timed\": 4, \"timed_bytes\": 4096, \"total_ns\": 2048}],\n" >f
            printf " \"memsets\": {\"count\": 1, \"bytes\": 64, \"timed\": 1, \"timed_bytes\": 64, \"total_ns\": 10},\n" >f
            printf " \"allocations\": [{\"kind\": \"device\", \"count\": 2, \"bytes\": 8192, \"frees\": 2, \"freed_bytes\": 8192, \"host_ns\": 500, \"peak_bytes\": 8192}]}\n" >f
            close(f)
        }
    }'
}

for n in "$@"; do
    gen "$n"
    # The reports in numeric order, as a job's ranks would be named (the order decides no figure).
    set -- $(i=0; while [ "$i" -lt "$n" ]; do printf '%s ' "$dir/$n/r$i.json"; i=$((i + 1)); done)
    t0=$(date +%s.%N)
    "$merge" -f json -o "$dir/merged.json" "$@"
    t1=$(date +%s.%N)
    got=$(grep -c '"mangled"' "$dir/merged.json")
    [ "$got" -eq $((10 + u * n)) ] || { echo "bench-merge: N=$n: $got kernels merged, expected $((10 + u * n))" >&2; exit 1; }
    printf 'kprof-merge: N=%s reports (%s kernels): %.2f s\n' "$n" "$got" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')"
    rm -rf "${dir:?}/$n"
done
