#!/usr/bin/env bash
# queue-time-vs-cupti.sh [OUTDIR]: libkprof's host versus device split per kernel (launch_host_ns_med,
# queue_ns_med: the launch call's host time and the queue time from the call's start to the kernel's
# start) against CUPTI's, on the GPU.  Each program runs once under libkprof (JSON report) and once under
# the CUPTI tracer (tests/gpu/libkprof-cupti.so with CUPTI_TRACE_LAUNCHES: per launch, the kernel record's
# start less the start of the runtime (else driver) API record of the same correlationId, and that API
# call's duration).  The median queue time of each kernel launched at least MIN_LAUNCHES times must agree
# within max(KPROF_QUEUE_US us, KPROF_QUEUE_PCT % of CUPTI's) (default max(2 us, 20%): the two are separate
# runs, each clock reading has its own perturbation, CUPTI's API tracing adds its own host time to every
# call, and libkprof's reference events anchor the GPU clock to the host's within about 1 us); the host
# times are printed beside them, not judged (CUPTI's API records include its own callback's cost).
# Programs judged: kbench spin --idle (every launch finds its stream idle and is held: the queue time is
# the launch latency) and kbench spin --behind (a 200 us kernel, then an empty one queued behind it, then
# a synchronize: the empty kernel's queue time is about 200 us, whatever the host's launch rate; the
# spinning kernel's, the launch latency again).  Printed only: the same without holds (KPROF_HOLD=0: the kernel's start is
# then estimated from the host clock), and reduce and kbench spin --busy, whose loops launch without
# waiting, so that their queue times grow with a backlog that depends on the host's launch rate, which
# libkprof slows (reduce read 545 us against CUPTI's 886 at the median on an H200, its p95 1.0 ms
# against 1.7: a shorter backlog, not a misread clock).  Exit 77 without a GPU or without the libraries built.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/src/.libs/libkprof.so
cupti=$top/tests/gpu/libkprof-cupti.so
K=$top/kernels
out=${1:-${OUT:-/tmp/kprof-queue}}
US=${KPROF_QUEUE_US:-2} PCT=${KPROF_QUEUE_PCT:-20} MIN_LAUNCHES=${MIN_LAUNCHES:-5}
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU (nvidia-smi -L failed)"; exit 77; }
for f in "$lib" "$cupti" "$K/kbench" "$K/reduce"; do
    [ -e "$f" ] || { echo "SKIP: $f not built"; exit 77; }
done
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
failed=0

# judge NAME JUDGED CMD...: both runs and the comparison (JUDGED 0: printed only).
judge() {
    local name=$1 judged=$2; shift 2
    echo; echo "== $name: $*"
    KPROF_FORMAT=json KPROF_OUTPUT="$out/$name.json" LD_PRELOAD="$lib" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
        { echo "FAIL: $name exited $? under libkprof"; cat "$out/$name.err"; failed=1; return; }
    CUDA_INJECTION64_PATH="$cupti" CUPTI_TRACE_OUT="$out/$name.cupti" CUPTI_TRACE_LAUNCHES="$out/$name.launches" \
        "$@" >/dev/null 2>"$out/$name.cupti.err" ||
        { echo "FAIL: $name exited $? under CUPTI"; cat "$out/$name.cupti.err"; failed=1; return; }
    python3 - "$out/$name.json" "$out/$name.launches" "$US" "$PCT" "$MIN_LAUNCHES" "$judged" <<'PY' || failed=1
import json, math, sys
report, launches, us, pct, min_launches, judged = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
def rank(v, q):  # nearest rank, as libkprof's histogram reads it
    v = sorted(v)
    return v[max(1, math.ceil(q / 100.0 * len(v))) - 1]
cupti = {}
for line in open(launches):
    if line.startswith("#"):
        continue
    q, a, kind, name = line.rstrip("\n").split("\t", 3)
    cupti.setdefault(name, []).append((int(q), int(a), kind))
r = json.load(open(report))
bad = 0
print("%-40s %6s %6s %11s %11s %9s %9s %11s %11s %11s" % ("kernel", "timed", "cupti", "queue med", "CUPTI", "diff",
      "allowed", "host med", "CUPTI API", "queue p95"))
for k in r["kernels"]:
    c = cupti.get(k["mangled"]) or cupti.get(k["name"])
    if not c:
        print("%-40s no CUPTI launch record" % k["name"][:40]); bad += judged; continue
    qm, hm = k.get("queue_ns_med"), k.get("launch_host_ns_med")
    cq = rank([x[0] for x in c], 50); ca = rank([x[1] for x in c], 50); cp95 = rank([x[0] for x in c], 95)
    if qm is None:
        print("%-40s libkprof has no queue time (timed %d)" % (k["name"][:40], k["timed"])); bad += judged; continue
    allowed = max(us * 1000.0, pct / 100.0 * cq)
    diff = qm - cq
    ok = abs(diff) <= allowed
    gated = judged and k["timed"] >= min_launches and len(c) >= min_launches
    verdict = ("ok" if ok else "FAIL") if gated else "(not judged)"
    print("%-40s %6d %6d %9.2fus %9.2fus %+7.2fus %7.2fus %9.2fus %9.2fus %5.1f/%5.1fus  %s" % (k["name"][:40], k["timed"], len(c),
          qm / 1e3, cq / 1e3, diff / 1e3, allowed / 1e3, (hm or 0) / 1e3, ca / 1e3, (k.get("queue_ns_p95") or 0) / 1e3,
          cp95 / 1e3, verdict))
    bad += gated and not ok
print("api records matched: %s" % ", ".join(sorted({x[2] for v in cupti.values() for x in v})) + " (R runtime, D driver)")
sys.exit(1 if bad else 0)
PY
}

nvidia-smi -L
judge spin_idle 1 "$K/kbench" spin --us 20 --n 200 --idle
judge spin_behind 1 "$K/kbench" spin --us 200 --n 100 --behind
judge spin_idle_unheld 0 env KPROF_HOLD=0 "$K/kbench" spin --us 20 --n 200 --idle
judge reduce 0 "$K/reduce" --iters 100
judge spin_busy 0 "$K/kbench" spin --us 20 --n 200 --busy
echo; echo "queue-time-vs-cupti: $([ $failed = 0 ] && echo PASSED || echo FAILED) (tolerance max($US us, $PCT%), kernels with at least $MIN_LAUNCHES launches; logs in $out)"
exit $failed
