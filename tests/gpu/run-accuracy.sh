#!/usr/bin/env bash
# run-accuracy.sh OUTDIR: the GPU accuracy suite (tests/gpu/accuracy/README.md).  Each program runs three
# times: under libkprof alone (JSON report) and under the CUPTI tracer alone, for the times, and with both
# attached, for the counts; then accuracy_compare.py checks libkprof against CUPTI and prints the tables.
# Environment:
#   KPROF_LIB  libkprof to test (default: the build tree's src/.libs/libkprof.so)
#   LABEL      name of that build in the output files (default: kprof); run the script once per build
#              into the same OUTDIR to compare two builds: the CUPTI-alone runs are shared (REUSE_CUPTI=0
#              runs them again)
#   ONLY="a b" only these programs; PY=0 leaves out the Python programs; TRACE=1 also writes a Chrome
#   trace of each libkprof-alone run (logs/NAME.LABEL.trace.json: each launch's situation and what was
#   taken off it, for a kernel that disagrees)
#   ACC_BIN    the programs built by tests/gpu/accuracy/build.sh (default: tests/gpu/accuracy/bin)
#   CUPTI_LIB  the CUPTI tracer (default: tests/gpu/libkprof-cupti.so); PYTHON (default: python3)
# Writes OUTDIR/logs/* (reports, summaries, program output), OUTDIR/LABEL.runs.tsv (the manifest),
# OUTDIR/LABEL.accuracy.txt (the tables printed), OUTDIR/LABEL.details.txt (every kernel) and
# OUTDIR/LABEL.summary.json.  Exit status: 0 within the tolerances, 1 outside them, 2 setup error.
set -u
out=${1:?usage: run-accuracy.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
acc=$top/tests/gpu/accuracy
lib=${KPROF_LIB:-$top/src/.libs/libkprof.so}; unset KPROF_LIB  # not the programs' (libkprof warns of unknown KPROF_*)
cupti=${CUPTI_LIB:-$top/tests/gpu/libkprof-cupti.so}
bin=${ACC_BIN:-$acc/bin}
label=${LABEL:-kprof}
py=${PYTHON:-python3}
ONLY=${ONLY:-} PY=${PY:-1} REUSE_CUPTI=${REUSE_CUPTI:-1} TRACE=${TRACE:-0}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false TORCHINDUCTOR_COMPILE_THREADS=1
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-${TMPDIR:-/tmp}/kprof-accuracy-inductor}

# program                      pattern      timeout (s)
programs="
first_launch                   lazy-load    60
launch_once                    lazy-load    60
first_call_is_launch           lazy-load    60
first_call_is_launch_shared    lazy-load    60
module_load                    driver-api   60
nvrtc                          driver-api   60
pipeline_1thread               pipeline     60
pipeline_8threads              pipeline     60
short_idle                     short        60
short_back_to_back             short        60
long_kernels                   long         60
after_memset_and_wait          ordering     60
copy_beside_compute            overlap      60
cublas                         libraries    60
cufft                          libraries    60
thrust                         libraries    60
graphs_conditional             graphs       60
graph_and_direct               graphs       60
param_blocks                   params       60
concurrent_streams             concurrency  60
shared_stream_threads          concurrency  60
sync_copy_loop                 copies       60
launch_apis                    launch-apis  60
skewed_lengths                 skewed       60
torch_train.py                 python       90
torch_compile.py               python       120
jax_jit.py                     python       90
cupy_rawkernel.py              python       60
torch_decode.py                python       90
"

[ -f "$lib" ] || { echo "run-accuracy: no libkprof at $lib (KPROF_LIB)"; exit 2; }
[ -f "$cupti" ] || { echo "run-accuracy: no CUPTI tracer at $cupti (make builds it; CUPTI_LIB)"; exit 2; }
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || { echo "run-accuracy: no GPU (nvidia-smi lists none)"; exit 2; }
# The C++ programs selected (ONLY, names without .py) need bin/: without it they would all fail, which is
# a setup error, not an accuracy result.
cxx=$(echo "$programs" | awk 'NF && $1 !~ /\.py$/ { print $1 }' | while read -r p; do
    if [ -z "$ONLY" ] || case " $ONLY " in *" $p "*) true ;; *) false ;; esac; then echo "$p"; fi
done)
[ -d "$bin" ] || [ -z "$cxx" ] ||
    { echo "run-accuracy: no $bin: build the C++ programs with tests/gpu/accuracy/build.sh (or set ACC_BIN)"; exit 2; }
case $label in */* | "") echo "run-accuracy: bad LABEL '$label'"; exit 2 ;; esac
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd) lib=$(readlink -f "$lib") cupti=$(readlink -f "$cupti") # CUDA_INJECTION64_PATH: absolute
logs=$out/logs
manifest=$out/$label.runs.tsv
now() { echo "${EPOCHREALTIME:-$(date +%s)}"; }
start=$(now)

# run BASE TIMEOUT CMD...: runs CMD (environment already set by the caller's env), its stdout and stderr
# in BASE.out and BASE.err; echoes its exit status ("timeout" when killed) and its seconds.
run() {
    local base=$1 t=$2 t0 rc
    shift 2
    t0=$(now)
    timeout -k 10 "$t" "$@" >"$base.out" 2>"$base.err"
    rc=$?
    case $rc in 124 | 137) rc=timeout ;; esac
    echo "$rc $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"
}

echo "== run-accuracy [$label]: $lib; $(nvidia-smi -L 2>/dev/null | head -n 1)"
printf '# label=%s\n# program\tpattern\trc_kprof\trc_cupti\trc_joint\tkprof_json\tcupti\tjoint_json\tjoint_cupti\tsecs_kprof\tsecs_cupti\tsecs_joint\n' \
    "$label" >"$manifest"
printf '%-28s %-8s %-8s %-8s  (exit status, seconds: libkprof, CUPTI, both)\n' program libkprof CUPTI both
while read -r prog pattern limit; do
    [ -n "$prog" ] || continue
    name=${prog%.py}
    if [ -n "$ONLY" ]; then case " $ONLY " in *" $name "*) ;; *) continue ;; esac; fi
    if [ "$prog" != "$name" ]; then
        [ "$PY" = 0 ] && continue
        cmd=("$py" "$acc/$prog")
    else
        cmd=("$bin/$name")
    fi
    if [ "$name" = torch_compile ] && [ ! -e "$logs/torch_compile.warm.out" ]; then
        # Fill inductor's cache first, so that the three runs launch the same kernels (a cold start
        # compiles and autotunes, launching benchmark kernels a number of times that depends on timing).
        run "$logs/torch_compile.warm" 180 "${cmd[@]}" >/dev/null
    fi
    k=$logs/$name.$label j=$logs/$name.$label.joint c=$logs/$name.cupti
    trace=()
    [ "$TRACE" = 1 ] && trace=(KPROF_TRACE="$k.trace.json")
    read -r rk sk < <(run "$k" "$limit" env LD_PRELOAD="$lib" KPROF_FORMAT=json KPROF_OUTPUT="$k.json" "${trace[@]}" "${cmd[@]}")
    if [ "$REUSE_CUPTI" != 0 ] && grep -q '^0 ' "$c.rc" 2>/dev/null && grep -q '^# end' "$c" 2>/dev/null; then
        read -r rc sc <"$c.rc"
        sc="${sc}r" # reused
    else
        read -r rc sc < <(run "$c" "$limit" env CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT="$c" "${cmd[@]}")
        echo "$rc $sc" >"$c.rc"
    fi
    read -r rj sj < <(run "$j" "$limit" env LD_PRELOAD="$lib" KPROF_FORMAT=json KPROF_OUTPUT="$j.json" \
        CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT="$j.cupti" "${cmd[@]}")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$pattern" "$rk" "$rc" "$rj" \
        "logs/${k##*/}.json" "logs/${c##*/}" "logs/${j##*/}.json" "logs/${j##*/}.cupti" "$sk" "$sc" "$sj" >>"$manifest"
    printf '%-28s %-8s %-8s %-8s\n' "$name" "$rk,$sk" "$rc,$sc" "$rj,$sj"
    for r in "$rk:$k" "$rc:$c" "$rj:$j"; do # a failing run: its last words
        [ "${r%%:*}" = 0 ] || tail -n 3 "${r#*:}.err" | sed "s|^|    $name: |"
    done
done <<<"$programs"

# Spin kernels last their time to within one step of %globaltimer; a profiler may change the step.
grep -o 'globaltimer step [0-9]* ns' "$logs/short_idle.$label.out" "$logs/short_idle.cupti.out" 2>/dev/null |
    sed 's|.*/||'
echo "== runs took $(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s"
python3 "$top/tests/gpu/accuracy_compare.py" --manifest "$manifest" --label "$label" \
    --json "$out/$label.summary.json" --details "$out/$label.details.txt" | tee "$out/$label.accuracy.txt"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || [ "$rc" = 1 ] || rc=2
exit "$rc"
