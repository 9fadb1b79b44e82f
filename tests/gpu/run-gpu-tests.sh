#!/usr/bin/env bash
# run-gpu-tests.sh OUTDIR: every GPU check of libkprof, on the GPU machine, from a tree built elsewhere
# (src/.libs, kernels/ and tests/gpu/libkprof-cupti.so carried over).  For each kernels/ sample: a run
# under libkprof (text report), and a run under libkprof and the CUPTI tracer at once, compared by
# kprof-compare.py; then the GPU tests of tests/*.sh; then the static-cudart builds.  Logs go to OUTDIR.
set -u
out=${1:-${OUT:-/tmp/kprof-gpu}}
mkdir -p "$out"
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/src/.libs/libkprof.so
cupti=$top/tests/gpu/libkprof-cupti.so
K=$top/kernels
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
failed=0
note() { echo "== $*"; }

nvidia-smi -L
for p in reduce vector_add stream_overlap context_init; do
    note "$p: libkprof, text report"
    KPROF_OUTPUT="$out/$p.txt" LD_PRELOAD="$lib" "$K/$p" >"$out/$p.out" 2>"$out/$p.err" || { echo "FAIL: $p exited $?"; failed=1; }
    cat "$out/$p.out" "$out/$p.err" "$out/$p.txt"
    note "$p: libkprof and CUPTI in one run"
    KPROF_FORMAT=json KPROF_OUTPUT="$out/$p.json" LD_PRELOAD="$lib" \
        CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT="$out/$p.cupti" "$K/$p" >/dev/null 2>"$out/$p.cupti.err" ||
        { echo "FAIL: $p under libkprof+CUPTI exited $?"; failed=1; }
    cat "$out/$p.cupti.err"
    python3 "$top/tests/gpu/kprof-compare.py" --pct 5 --us 6 "$out/$p.json" "$out/$p.cupti" || failed=1
done

note "tests/*.sh GPU tests"
for t in "$top"/tests/gpu-*.sh; do
    top_builddir=$top top_srcdir=$top sh "$t"
    rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] || { echo "FAIL: $(basename "$t")"; failed=1; }
done

note "static-cudart builds (the driver-API issue covers them): what libkprof sees"
for p in reduce vector_add; do
    KPROF_OUTPUT="$out/$p-static.txt" LD_PRELOAD="$lib" "$K/$p-static" >"$out/$p-static.out" 2>&1
    echo "$p-static exited $?; report:"
    cat "$out/$p-static.txt" 2>/dev/null || echo "(no report)"
done
echo "run-gpu-tests: $([ $failed = 0 ] && echo PASSED || echo FAILED)"
exit $failed
