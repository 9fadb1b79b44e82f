#!/bin/bash
# gpu-variants.sh LIBDIR [VARIANT ...]: on the GPU machine, what build-variants.sh's libraries cost a launch.
# First the probe builds (1 stream, 4 threads; `kbench launch --n 200000`): each segment's ns a launch, how
# many of the launch path's takes of kprof_ev.lock found it held, and the harvester's passes; for "head"
# also with the harvest passes at least 2 and 20 ms apart (KPROF_PROBE_PASS_US).  Then each variant's
# release build against head's, `tests/gpu/run-bench.sh` with CASES=launch MODES="plain base kprof"
# (REPS rounds, default 5).  Logs under $OUT (default /tmp/kprof-variants).  With the device tool, carry
# LIBDIR and the build outputs kernels, src/.libs, tests/gpu/libkprof-cupti.so and tools (what run-bench.sh
# reaches).  VARIANTs default to harvest-pace-1ms harvest-no-driver.
set -u
libs=$(cd "${1:?usage: gpu-variants.sh LIBDIR [VARIANT ...]}" && pwd)
shift
[ $# -gt 0 ] || set -- harvest-pace-1ms harvest-no-driver
top=$(cd "$(dirname "$0")/../.." && pwd)
O=${OUT:-/tmp/kprof-variants}
mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$top/kernels/kbench
if ! nvidia-smi -L 2>/dev/null | grep '^GPU '; then
    echo "SKIP: no GPU (nvidia-smi lists none): gpu-variants.sh runs on the GPU machine"
    exit 77
fi
probe() { # probe NAME LIB STREAMS [VAR=VALUE]: one probe run, its segment lines
    local name=$1 lib=$2 s=$3
    shift 3
    env "$@" LD_PRELOAD="$lib" "$B" launch --n 200000 --streams "$s" >"$O/$name.out" 2>"$O/$name.err"
    echo "== $name: $(sed -n 's/.*\(per_launch_us=[0-9.]*\).*/\1/p' "$O/$name.out")"
    grep -E '^libkprof-seg: (timed n=|lock busy|harvest)' "$O/$name.err"
}
for s in 1 4; do
    for v in head "$@"; do
        [ -e "$libs/lib_probe_$v.so" ] && probe "probe_${v}_s$s" "$libs/lib_probe_$v.so" $s
    done
    for pace in 2000 20000; do
        probe "probe_head_pace${pace}_s$s" "$libs/lib_probe_head.so" $s KPROF_PROBE_PASS_US=$pace
    done
done
for v in "$@"; do
    [ -e "$libs/lib_$v.so" ] || continue
    KPROF_LIB=$libs/lib_$v.so KPROF_BASE_LIB=$libs/lib_head.so MODES="plain base kprof" CASES=launch REPS=${REPS:-5} \
        "$top/tests/gpu/run-bench.sh" "$O/bench-$v" >"$O/bench-$v.log" 2>&1
    echo "== $v (kprof) against head (base)"
    grep "^launch" "$O/bench-$v.log"
done
