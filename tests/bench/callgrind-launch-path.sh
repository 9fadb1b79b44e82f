#!/bin/sh
# callgrind-launch-path.sh BUILDDIR [N]: CPU instructions per kernel launch (valgrind callgrind) of `kbench launch` on the fake CUDA stack without libkprof, with libkprof timing every launch, and with launches left untimed (KPROF_SAMPLE=1000000); N (default 12000) launches minus 2000, so start-up and exit cancel.  KERNELS=K: K distinct kernels launched in turn (kbench --kernels), 1 by default.
set -eu
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not found"; exit 77; }
B=$(cd "${1:?usage: $0 BUILDDIR [N]}" && pwd); N=${2:-12000}; N0=2000
[ "$N" -gt "$N0" ] || { echo "N must exceed $N0" >&2; exit 2; }
for f in "$B/kernels/kbench" "$B/src/.libs/libkprof.so" "$B/tests/fake/lib"; do
    [ -e "$f" ] || { echo "SKIP: $f missing (make, then make check for the fake CUDA stack)"; exit 77; }
done
# CG_KEEP=DIR keeps the callgrind.out.MODE.N files (for callgrind_annotate) and each run's output.
if [ -n "${CG_KEEP:-}" ]; then D=$CG_KEEP; mkdir -p "$D"; else D=$(mktemp -d); trap 'rm -rf "$D"' EXIT; fi
cg() { # cg MODE N [VAR=VALUE ...]: total instructions of one run
    m=$1 n=$2; shift 2
    env LD_LIBRARY_PATH="$B/tests/fake/lib" FAKEGPU_EVENT_PENDING_QUERIES=1 "$@" valgrind --tool=callgrind \
        --trace-children=no --callgrind-out-file="$D/callgrind.out.$m.$n" "$B/kernels/kbench" launch --n "$n" \
        --streams 1 --kernels "${KERNELS:-1}" >"$D/$m.$n.log" 2>&1 || { echo "$m n=$n failed:" >&2; tail -5 "$D/$m.$n.log" >&2; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$D/callgrind.out.$m.$n"
}
per() { m=$1; shift; big=$(cg "$m" "$N" "$@"); small=$(cg "$m" "$N0" "$@"); echo $(((big - small) / (N - N0))); }
P=LD_PRELOAD=$B/src/.libs/libkprof.so
plain=$(per plain); timed=$(per timed "$P"); untimed=$(per untimed "$P" KPROF_SAMPLE=1000000)
echo "instructions_per_launch plain=$plain timed=$timed untimed=$untimed" \
     "(libkprof adds timed-plain=$((timed - plain)), untimed-plain=$((untimed - plain)))"
