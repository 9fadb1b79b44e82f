#!/bin/sh
# The GPU takes a launch's parameters in after the event before its kernel, so an event pair holds more
# hand-off the larger the kernel's parameter block, and CUPTI counts none of it in the kernel.  On the H200
# (docs/accuracy.md, "Parameter blocks") 2 us kernels with 16 B to 32000 B of parameters read +0.0 to
# +2.1..2.5 us over CUPTI, about 70 ns a KiB, idle, behind a kernel or held alike; PyTorch's TensorIterator
# kernels carry 650 to 1250 bytes, cuBLASLt's 1720.  libkprof learns what a KiB adds (its calibration
# times kprof_calibrate_wide, 32 KiB of parameters, against kprof_calibrate's 16 bytes), asks a kernel's
# parameter block once (cuFuncGetParamInfo for its last parameter, at its first launch in a context; the
# number of parameters from its demangled name, as an index past the last would be an error) and takes
# that much more off its pairs.  On the fake GPU FAKEGPU_PARAM_BYTES sets a kernel's parameter block and
# FAKEGPU_PARAM_NS_PER_KIB delays every kernel by it; preds params launches busy_k(Blob) behind lead,
# then idle_k(Blob) on an idle stream.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
# The number of parameters of demangled names: "input<TAB>expected" a line (-1: none known, not asked).
# (Found by a helper set to break the first version: template arguments with libiberty's bare ">>", ">=",
# "<" and "<=" operators counted one parameter too many or too few, so that cuFuncGetParamInfo failed or
# the block read short; and a parameter list of exactly 21 characters, "(float*, float*, int)", was taken
# for "(anonymous namespace)": no count, as KPROF_NAMES=base kept the whole name.)
cat >"$WORK/cases" <<'CASES'
void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)	3
void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1}>(at::native::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1}>(at::native::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})	2
void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::Epi>(float*, float const*, int)	3
pk(Blob<16, 2>, unsigned long long, int*)	3
void foo<((3)>(2))>(int, void (*)(int, float))	2
k(std::array<char*, 3ul>, int (&) [4])	2
reduce_final()	0
saxpy(float*, float*, int)	3
void d2a<8>(Pair<(8)>>(1), 3>, int)	2
void d2b<8>(Pair<(8)>=(4), 3>, int)	2
void d0j<8>(std::enable_if<(8)>=(4), void>::type*)	1
std::enable_if<(8)>=(4), void>::type d0d<8>()	0
std::enable_if<(8)>=(4), void>::type d2c<8>(int, int)	2
void c3y<int>(int, V1<(sizeof (int))<(4)>, V1<(sizeof (int))<(8)>)	3
k(Foo<(1)<(2)>, int)	2
void foo<((3)>(2))>(int)	1
busy_k(Blob)	1
nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_TNT	-1
<unknown kernel 0x1234>	-1
unbalanced<int(float)	-1
CASES
cut -f1 "$WORK/cases" | "$PROGS/base_names" --params >"$WORK/got" || fail "base_names --params failed"
cut -f2 "$WORK/cases" >"$WORK/want"
diff -u "$WORK/want" "$WORK/got" >&2 || fail "parameter counts differ"
pass "parameter counts of $(wc -l <"$WORK/want" | tr -d ' ') demangled names"

export FAKEGPU_KERNEL_NS=lead=50000,busy_k=1000,idle_k=3000 FAKEGPU_HANDOFF_NS=kernel=700 FAKEGPU_PARAM_BYTES=busy_k=8192,idle_k=16016
# busy JSON [VAR=VALUE...]: preds params, every event pending until the end (no stream found idle);
# busy_k's [min, max] and the calibrated ns a KiB (to 0.01 ns)
busy() {
    json=$1
    shift
    (export "$@" FAKEGPU_EVENT_PENDING_QUERIES=1000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$json" &&
        run_kprof "$PROGS/preds" params) >/dev/null || fail "preds params ($*) failed"
    jq -c '[(.kernels[] | select(.name == "busy_k(Blob)") | .min_ns, .max_ns),
            (.calibration[0].param_ns_per_kib * 100 | round / 100)]' "$WORK/$json"
}
expect_eq "$(busy r.json FAKEGPU_PARAM_NS_PER_KIB=64 KPROF_TRACE="$WORK/r.trace.json")" '[1000,1000,64]' \
    "64 ns a KiB: calibrated, and busy_k (8 KiB) at its own length behind lead"
expect_eq "$(jq -c '[.traceEvents[] | select(.cat == "kernel") | [.name, .args.param_bytes]] | unique' "$WORK/r.trace.json")" \
    '[["busy_k(Blob)",8192],["idle_k(Blob)",16016],["lead",0]]' \
    "the trace gives each kernel's parameter block (lead, a C name: its number of parameters unknown, not asked)"
# Without the correction busy_k keeps its parameters' 512 ns (this test fails without it).
expect_eq "$(busy off.json FAKEGPU_PARAM_NS_PER_KIB=64 KPROF_CALIBRATE=0)" '[2212,2212,0]' \
    "KPROF_CALIBRATE=0: busy_k keeps 0.7 + 0.512 us"
# No such delay on the GPU: none calibrated, none taken off.
expect_eq "$(busy none.json)" '[1000,1000,0]' "no delay: none calibrated, busy_k exact"
# An idle stream, on the virtual host clock with the host's launch latency: the idle-stream correction and
# the parameters' share both come off (16016 B: 1000 ns), held or not.
for hold in 1 0; do
    (export FAKEGPU_EVENT_PENDING_QUERIES=0 FAKEGPU_LAUNCH_HOST_NS=3000 FAKEGPU_LAUNCH_LATENCY_NS=2000 \
        FAKEGPU_PARAM_NS_PER_KIB=64 KPROF_HOLD=$hold KPROF_FORMAT=json KPROF_OUTPUT="$WORK/idle$hold.json" &&
        run_clocked "$PROGS/preds" params) >/dev/null || fail "preds params (idle, KPROF_HOLD=$hold) failed"
    expect_eq "$(jq -c '[.kernels[] | select(.name == "idle_k(Blob)") | .total_ns, .min_ns, .max_ns]' "$WORK/idle$hold.json")" \
        '[30000,3000,3000]' "idle stream, KPROF_HOLD=$hold: idle_k exact"
done
# A GPU before sm_70 has no parameter blocks beyond 4 KiB: the wide kernel's PTX (sm_70) is not loaded,
# since the load would fail and libkprof's own driver calls must not (the breaker's build loaded it and
# got CUDA_ERROR_UNSUPPORTED_PTX_VERSION; on the fake, FAKEGPU_COMPUTE_MAJOR refuses such PTX).  The other
# hand-offs are calibrated as ever, busy_k keeps its parameters' share.
(export FAKEGPU_COMPUTE_MAJOR=6 FAKEGPU_ERRORS_FILE="$WORK/old.errors" && busy old.json FAKEGPU_PARAM_NS_PER_KIB=64) >"$WORK/old.out"
expect_eq "$(cat "$WORK/old.out")" '[1511,1511,0]' "sm_60: nothing calibrated, busy_k keeps its 0.512 us (less the 1 ns of the calibration's 16 bytes)"
expect_eq "$(jq -c '.calibration[0].handoff_ns.kernel | round' "$WORK/old.json")" 701 "sm_60: the hand-off behind a kernel calibrated (0.7 us and the 16 bytes' 1 ns)"
expect_eq "$(cat "$WORK/old.errors")" "" "sm_60: no driver call of libkprof's failed"
# A runtime launch by host function (cudaLaunchKernel, as PyTorch's): the parameters found through the
# runtime's function for it (vector_add(float const*, float const*, float*, int): 4 parameters).
(export FAKEGPU_PARAM_BYTES=vector_add=2048/4 KPROF_TRACE="$WORK/va.trace.json" KPROF_OUTPUT="$WORK/va.txt" &&
    run_kprof "$KERNELS/vector_add" --no-verify --n 64) >/dev/null 2>"$WORK/va.err" || fail "vector_add failed: $(cat "$WORK/va.err")"
expect_eq "$(jq -c '[.traceEvents[] | select(.cat == "kernel") | .args.param_bytes] | unique' "$WORK/va.trace.json")" '[2048]' \
    "a runtime launch: its parameter block found"
# The text and CSV reports say it, and kprof report reads it back from JSON.
(export FAKEGPU_PARAM_NS_PER_KIB=64 FAKEGPU_EVENT_PENDING_QUERIES=1000 KPROF_OUTPUT="$WORK/r.txt" &&
    run_kprof "$PROGS/preds" params) >/dev/null || fail "preds params (text) failed"
expect_grep "more 0\.064 per KiB of a kernel's parameters beyond 16 bytes" "$WORK/r.txt" "text: the calibrated share"
(export FAKEGPU_PARAM_NS_PER_KIB=64 FAKEGPU_EVENT_PENDING_QUERIES=1000 KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" &&
    run_kprof "$PROGS/preds" params) >/dev/null || fail "preds params (csv) failed"
expect_grep '^0,done,[0-9]+,16,own,per_param_kib,64$' "$WORK/c.calibration.csv" "csv: calibration.csv"
if [ -x "$top_builddir/tools/kprof-report" ]; then
    "$top_builddir/tools/kprof-report" "$WORK/r.json" >"$WORK/again.txt" 2>&1 || fail "kprof report failed"
    expect_grep "more 0\.064 per KiB of a kernel's parameters" "$WORK/again.txt" "kprof report: the calibrated share"
fi
pass "a kernel's parameters add to its hand-off"
