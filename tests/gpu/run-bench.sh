#!/usr/bin/env bash
# run-bench.sh OUTDIR: libkprof's overhead and accuracy on the GPU (issue: overhead near the floor of event
# timing).  Each case runs without libkprof (plain), the launch, spin and PyTorch cases also without libkprof but with one
# cudaEventRecord of a timing event after each launch or op (floor: `kbench launch --record`, `torch_workload.py
# --record`, the floor of event timing; floor0: the same with events made without timing, which the GPU passes
# at less cost on a busy stream), on any case with libkprof's interception but one timing event recorded after
# each call and nothing else (evfloor; evfloor2: one before and one after, as an idle stream needs; a build
# with docs/probes/event-floor.patch, KPROF_FLOOR_LIB: the floor for programs that cannot record events
# themselves, such as the decode loop), with it
# (kprof: the defaults, every launch timed),
# with two events per timed call always (pairs: KPROF_ONE_EVENT=0), with every idle launch held (hold1:
# KPROF_HOLD=1), with KPROF_SAMPLE=16, 64 and auto, with every launch but each kernel's first left untimed
# (untimed: KPROF_SAMPLE=1000000, the wrapper's own cost, which KPROF_SAMPLE=N pays on every launch), and
# under the CUPTI activity tracer (what Nsight Systems uses), interleaved, REPS times; the figure is the
# region the benchmark times itself, and the table shows medians and ratios to plain.  Then accuracy
# (per-kernel means against CUPTI's, for kprof and pairs) and scale (10 million launches: added resident
# memory and exit time).  Logs go to OUTDIR.  CASES="launch reduce" runs only the cases whose names start
# with those words (and accuracy/scale only when named); REPS sets the rounds; MODES a subset of modes,
# where mode "base" is another build of libkprof (KPROF_BASE_LIB), for A/B rounds; PIN confines every run to
# a set of CPUs (below).
set -u
out=${1:-${OUT:-/tmp/kprof-bench}}
mkdir -p "$out"
top=$(cd "$(dirname "$0")/../.." && pwd)
# Not the programs' variables (libkprof warns of unknown KPROF_* ones).
lib=${KPROF_LIB:-$top/src/.libs/libkprof.so} base_lib=${KPROF_BASE_LIB:-} floor_lib=${KPROF_FLOOR_LIB:-}
unset KPROF_LIB KPROF_BASE_LIB KPROF_FLOOR_LIB
cupti=$top/tests/gpu/libkprof-cupti.so
B=$top/kernels/kbench
REPS=${REPS:-3}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
MODES=${MODES:-plain floor kprof pairs sample16 sample64 auto cupti}

# PIN: the CPUs every run of every mode is confined to (taskset -c), so that rounds do not move with the
# cores the scheduler picks: "local" (the GPU's NUMA-local CPUs this process may use, leaving out the first,
# at most 6), a list for taskset (0-5,8), or "none" (default).
pin_cpus() {
    case ${PIN:-none} in
    none) return ;;
    local)
        local bus allowed local_list
        bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | head -n1 | tr A-Z a-z | sed 's/^0000//')
        allowed=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
        local_list=$(cat "/sys/bus/pci/devices/$bus/local_cpulist" 2>/dev/null)
        python3 - "$allowed" "$local_list" <<'PY'
import sys
def cpus(s):
    r = set()
    for part in filter(None, (x.strip() for x in s.split(","))):
        a, _, b = part.partition("-")
        r.update(range(int(a), int(b or a) + 1))
    return r
allowed = cpus(sys.argv[1])
c = sorted(allowed & cpus(sys.argv[2])) or sorted(allowed)
print(",".join(map(str, c[1:7] if len(c) > 1 else c)))
PY
        ;;
    *) echo "$PIN" ;;
    esac
}
pin=()
cpus=$(pin_cpus)
if [ -n "$cpus" ]; then
    if command -v taskset >/dev/null && taskset -c "$cpus" true 2>/dev/null; then
        pin=(taskset -c "$cpus")
    else
        echo "run-bench.sh: PIN=$PIN: cannot confine runs to CPUs '$cpus' (taskset); runs are not pinned" >&2
        cpus=
    fi
fi

# run MODE CMD...: one run; prints the program's output
run() {
    local mode=$1; shift
    case $mode in
    plain) "${pin[@]}" "$@" ;;
    floor) "${pin[@]}" "$@" --record ;;
    floor0) "${pin[@]}" "$@" --record --untimed-events ;;
    evfloor) "${pin[@]}" env PROBE_FLOOR=1 KPROF_OUTPUT=/dev/null LD_PRELOAD="${floor_lib:?mode evfloor needs KPROF_FLOOR_LIB}" "$@" ;;
    evfloor2) "${pin[@]}" env PROBE_FLOOR=2 KPROF_OUTPUT=/dev/null LD_PRELOAD="${floor_lib:?mode evfloor2 needs KPROF_FLOOR_LIB}" "$@" ;;
    kprof) "${pin[@]}" env KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    base) "${pin[@]}" env KPROF_OUTPUT=/dev/null LD_PRELOAD="${base_lib:?mode base needs KPROF_BASE_LIB}" "$@" ;;
    pairs) "${pin[@]}" env KPROF_ONE_EVENT=0 KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    hold1) "${pin[@]}" env KPROF_HOLD=1 KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    sample16) "${pin[@]}" env KPROF_SAMPLE=16 KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    sample64) "${pin[@]}" env KPROF_SAMPLE=64 KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    untimed) "${pin[@]}" env KPROF_SAMPLE=1000000 KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    auto) "${pin[@]}" env KPROF_SAMPLE=auto KPROF_OUTPUT=/dev/null LD_PRELOAD="$lib" "$@" ;;
    cupti) "${pin[@]}" env CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT=/dev/null "$@" ;;
    esac
}

# bench NAME FIELD CMD...: REPS interleaved rounds of every mode; FIELD is the figure to read (a
# key=value in the output, or a sed expression after "sed:").
bench() {
    local name=$1 field=$2; shift 2
    case " ${CASES:-all} " in *" all "*|*" $(echo "$name" | cut -d' ' -f1 | tr -d ,) "*) ;; *) return ;; esac
    local tsv=$out/$(echo "$name" | tr -c 'A-Za-z0-9\n' '_').tsv
    : >"$tsv"
    for rep in $(seq "$REPS"); do
        for m in $MODES; do
            case $m/$name in floor*/launch* | floor*/spin* | floor*/PyTorch*) ;; floor*/*) continue ;; esac # kbench, torch_workload.py
            if [ "$field" = sed ]; then # reduce: "reduce_blocks: N launches, average X us per launch"
                v=$(run "$m" "$@" 2>/dev/null | sed -n 's/.*launches, average \([0-9.]*\) us.*/\1/p' | head -n1)
            else
                v=$(run "$m" "$@" 2>/dev/null | sed -n "s/.*[ ]$field=\([0-9.]*\).*/\1/p" | head -n1)
            fi
            echo "$m	$v" >>"$tsv"
        done
    done
    python3 - "$name" "$tsv" <<'PY'
import statistics, sys
name, path = sys.argv[1], sys.argv[2]
vals = {}
for line in open(path):
    m, v = line.rstrip("\n").split("\t")
    if v:
        vals.setdefault(m, []).append(float(v))
base = statistics.median(vals["plain"]) if vals.get("plain") else None
cells = []
for m in ("plain", "floor", "floor0", "evfloor", "evfloor2", "base", "kprof", "hold1", "pairs", "sample16", "sample64", "untimed", "auto", "cupti"):
    if vals.get(m) and base:
        med = statistics.median(vals[m])
        # per launch where the figure allows: the launch cases time 200k launches, reduce prints us/launch
        per = 200000 if "200k" in name else 1 if "us/launch" in name else None
        cells.append("%s %.4gx" % (m, med / base) + (" (%+.2f us)" % ((med - base) / per) if per else ""))
    elif m not in ("floor", "floor0", "evfloor", "evfloor2", "base", "auto", "hold1", "untimed"):
        cells.append("%s -" % m)
print("%-34s base %10.1f   %s" % (name, base or 0, "   ".join(cells[1:])))
PY
}

nvidia-smi -L
[ -n "$cpus" ] && echo "every run confined to CPUs $cpus (PIN=$PIN)"
echo "== overhead: medians of $REPS interleaved runs; ratios to the run without libkprof"
bench "launch 200k, 1 stream/1 thread" region_us "$B" launch --n 200000 --streams 1
bench "launch 200k, 4 streams/4 threads" region_us "$B" launch --n 200000 --streams 4
bench "launch 200k, 64 kernels in turn, 1 stream" region_us "$B" launch --n 200000 --streams 1 --kernels 64
# Kernels of 10 us queued back to back (the GPU's pace): what an event between kernels costs the GPU itself.
bench "spin 10 us x 20000, busy stream (us/launch)" per_kernel_us "$B" spin --us 10 --n 20000 --busy
bench "copy 4 KiB x 20000, pinned" region_us "$B" copy --bytes 4096 --n 20000 --pinned
bench "copy 4 KiB x 20000, pageable" region_us "$B" copy --bytes 4096 --n 20000 --pageable
bench "copy 64 MiB x 20, pinned" region_us "$B" copy --bytes 67108864 --n 20 --pinned
bench "copy 64 MiB x 20, pageable" region_us "$B" copy --bytes 67108864 --n 20 --pageable
bench "reduce, its own timed loop (us/launch)" sed "$top/kernels/reduce" --iters 50
bench "PyTorch steady-state step (ms)" step_ms python3 "$top/tests/gpu/torch_workload.py" --steps 50 --warmup 10
bench "decode, eager LLM, 12 layers (ms/token)" token_ms python3 "$top/tests/gpu/decode_loop.py"
# The same loop's profiled blocks against its paused ones within each run (decode_loop.py --ab; 1 without
# a profiler): the ratio without the machine's moves from run to run.
bench "decode A/B, profiled/paused blocks of one run" ab_ratio python3 "$top/tests/gpu/decode_loop.py" --ab --tokens 512 --block 16

# accuracy and scale each run when CASES is all (or unset) or names them; one not named is skipped, and
# the other still runs (CASES=scale used to exit here, before the scale case).
wanted() { case " ${CASES:-all} " in *" all "*|*" $1 "*) return 0 ;; *) return 1 ;; esac; }
if wanted accuracy; then
echo
echo "== accuracy: libkprof's per-kernel mean against CUPTI's (launches after the first)"
printf '%-12s %-5s %12s %12s %10s %8s  %s\n' "kernel" "stream" "libkprof us" "CUPTI us" "diff us" "diff %" "target"
for us in 2 5 20 100 1000; do
    n=200; [ "$us" = 1000 ] && n=50
    for how in idle busy; do
      CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT="$out/spin$us-$how.cupti" "$B" spin --us $us --n $n --$how >/dev/null
      for one in 1 0; do
        KPROF_ONE_EVENT=$one KPROF_FORMAT=json KPROF_OUTPUT="$out/spin$us-$how-$one.json" LD_PRELOAD="$lib" \
            "$B" spin --us $us --n $n --$how >/dev/null
        python3 - "$out/spin$us-$how-$one.json" "$out/spin$us-$how.cupti" "$us" "$how" "$one" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k = [x for x in r["kernels"] if "spin_kernel" in x["name"]][0]
kp = k["avg_ns"] / 1000.0
cu = None
first = None
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "kernel" and "spin_kernel" in f[5]:
        cnt, tot = int(f[1]), int(f[2])
    if f[0] == "kfirst" and "spin_kernel" in f[2]:
        first = int(f[1])
cu = (tot - first) / (cnt - 1) / 1000.0
d = kp - cu
target = abs(d) <= 0.02 * cu if cu >= 20 else abs(d) <= 1.0
print("%-12s %-5s %12.3f %12.3f %+10.3f %+7.1f%%  %s (calls %d/%d, %s, one-event launches %d)" % (
      "spin %sus" % sys.argv[3], sys.argv[4], kp, cu, d, 100 * d / cu, "met" if target else "MISSED", k["calls"], cnt,
      "kprof" if sys.argv[5] == "1" else "pairs", r["events"].get("one_event", 0)))
PY
      done
    done
done

fi

wanted scale || exit 0
echo
echo "== scale: 10 million launches (resident memory added by libkprof, exit time after main)"
for m in plain kprof; do
    start=$(date +%s%N)
    line=$(run "$m" "$B" scale --n 10000000 2>/dev/null)
    end=$(date +%s%N)
    echo "$line" | grep -v main_end_ns
    main_end=$(echo "$line" | sed -n 's/.*main_end_ns=\([0-9]*\).*/\1/p')
    echo "$m: exit (drain and report) took $(( (end - main_end) / 1000000 )) ms after main returned; whole run $(( (end - start) / 1000000 )) ms"
done
