#!/bin/sh
# cpu-launch-path.sh [BUILDDIR [N]]: wall-clock ns per kernel launch of `kbench launch` (N, default 200000, empty launches on 1 stream; median of 5 interleaved runs) on the fake CUDA stack without libkprof, with launches left untimed (KPROF_SAMPLE=1000000), and with every launch timed; a benchmark, not a test (BUILDDIR defaults to the tree this script lives in).  CPU=1: the processes' user + system CPU time per launch instead (whole runs, start and exit included; the clock ticks in 10 ms, so use N of a few million), which other jobs on a loaded machine disturb far less.  KERNELS=K: K distinct kernels launched in turn (kbench --kernels; a model's step has tens to hundreds), 1 by default.
set -eu
B=$(cd "${1:-$(dirname "$0")/../..}" && pwd); N=${2:-200000}; RUNS=5
[ "$N" -gt 0 ] 2>/dev/null || { echo "N must be a positive number" >&2; exit 2; }
for f in "$B/kernels/kbench" "$B/src/.libs/libkprof.so" "$B/tests/fake/lib"; do
    [ -e "$f" ] || { echo "SKIP: $f missing (make, then make check for the fake CUDA stack)"; exit 77; }
done
# A sanitizer build's fake stack needs its runtime preloaded, and its timings mean nothing.
if readelf -d "$B/tests/fake/lib/libcudart.so.13" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "SKIP: $B is a sanitizer build"; exit 77
fi
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
cpu_s() { # cpu_s FILE: the CPU seconds (user + system) of the shell's children in FILE, `times` output
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}
run() { # run MODE [VAR=VALUE ...]: appends one run's region_us (CPU=1: its CPU time, in us) to $D/MODE
    m=$1; shift
    times >"$D/times0" # in this shell: a command substitution's subshell has children of its own
    env LD_LIBRARY_PATH="$B/tests/fake/lib" FAKEGPU_EVENT_PENDING_QUERIES=1 "$@" "$B/kernels/kbench" launch \
        --n "$N" --streams 1 --kernels "${KERNELS:-1}" >"$D/$m.log" 2>&1 || { echo "$m failed:" >&2; tail -5 "$D/$m.log" >&2; exit 1; }
    if [ "${CPU:-0}" = 1 ]; then
        times >"$D/times1"
        awk -v a="$(cpu_s "$D/times0")" -v b="$(cpu_s "$D/times1")" 'BEGIN { printf "%.0f\n", (b - a) * 1e6 }' >>"$D/$m"
    else
        sed -n 's/.* region_us=\([0-9.]*\) .*/\1/p' "$D/$m.log" >>"$D/$m"
    fi
}
P=LD_PRELOAD=$B/src/.libs/libkprof.so
i=0
while [ $i -lt $RUNS ]; do # interleaved, so a slow spell of the machine touches every mode alike
    run plain; run untimed "$P" KPROF_SAMPLE=1000000; run timed "$P"
    i=$((i + 1))
done
med() { # med MODE: median region_us of MODE's runs, as ns per launch
    [ "$(wc -l <"$D/$1")" -eq $RUNS ] || { echo "$1: no region_us in kbench's output" >&2; exit 1; }
    sort -n "$D/$1" | awk -v n="$N" -v k=$(((RUNS + 1) / 2)) 'NR == k {printf "%.0f", $1 * 1000 / n}'
}
plain=$(med plain); untimed=$(med untimed); timed=$(med timed)
echo "${CPU:+cpu_}ns_per_launch plain=$plain untimed=$untimed timed=$timed"
