#!/bin/sh
# Long C++ kernel names (PyTorch's run to 700 characters): KPROF_NAMES=base shows, in the text report, the
# qualified function name without return type, template arguments and parameters (as Nsight Systems'
# `base`), each instantiation keeping its own row, and the full name staying in JSON and CSV; and
# KPROF_NAME_WIDTH cuts the text report's names to a number of characters, ending "...".
. "${top_srcdir:-..}/tests/lib.sh"
need_jq

# The base name of demangled names: "input<TAB>expected" a line.
cat >"$WORK/cases" <<'CASES'
void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)	at::native::vectorized_elementwise_kernel
void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1}>(at::native::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1}>(at::native::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})	at::native::elementwise_kernel
void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::Epi>(float*, float const*, int)	at::native::(anonymous namespace)::cunn_SoftMaxForward
(anonymous namespace)::k(int)	(anonymous namespace)::k
void cub::CUB_200200_800_NS::DeviceReduceKernel<cub::CUB_200200_800_NS::Policy<int>, float>(float*)	cub::CUB_200200_800_NS::DeviceReduceKernel
reduce_blocks(double const*, double*, unsigned long)	reduce_blocks
std::vector<int, std::allocator<int> > make<int>(int)	make
void foo<((3)>(2))>(int)	foo
f[abi:cxx11](int)	f
at::native::direct_copy_kernel_cuda(at::native::TensorIteratorBase&)::{lambda()#1}::operator()() const	at::native::direct_copy_kernel_cuda::{lambda()#1}::operator()
ns::f(int)::S::g() const &	ns::f::S::g
foo()::'lambda'(int)::operator()(int) const	foo::'lambda'(int)::operator()
int operator<< <int>(S, int)	operator<<
bool operator< <int>(S, int)	operator<
S::operator->() const	S::operator->
S::operator unsigned long() const	S::operator unsigned long
void* operator new[](unsigned long)	operator new[]
saxpy(float*, float*, int)	saxpy
std::enable_if<(8)>=(4), void>::type d0d<8>()	d0d
kprof_calibrate	kprof_calibrate
_Z1fI1AI1AI	_Z1fI1AI1AI
<unknown kernel 0x1234>	<unknown kernel 0x1234>
unbalanced<int(float)	unbalanced<int(float)
CASES
cut -f1 "$WORK/cases" | "$PROGS/base_names" >"$WORK/got" || fail "base_names failed"
cut -f2 "$WORK/cases" >"$WORK/want"
diff -u "$WORK/want" "$WORK/got" >&2 || fail "base names differ"
pass "base names of $(wc -l <"$WORK/want" | tr -d ' ') demangled names (templates, lambdas, anonymous namespaces, operators)"

# Through the report: two instantiations of one template, a kernel templated on a lambda, one in an
# anonymous namespace.
A=_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_
B=_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIiEESt5arrayIPcLm1EEEEviT0_T1_
C=_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_cudaERNS0_18TensorIteratorBaseEENKUlvE_clEvENKUlvE_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_
D=_ZN2at6native12_GLOBAL__N_119cunn_SoftMaxForwardILi4EfffNS1_3EpiEEEvPT2_PKT0_i
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/full.json" run_kprof "$PROGS/named" $A $B $C $D >/dev/null
KPROF_NAMES=base KPROF_FORMAT=json KPROF_OUTPUT="$WORK/base.json" run_kprof "$PROGS/named" $A $B $C $D >/dev/null
expect_eq "$(jq -c '[.kernels[].name] | sort' "$WORK/base.json")" "$(jq -c '[.kernels[].name] | sort' "$WORK/full.json")" \
    "JSON: the full names"
expect_eq "$(jq -r '[.kernels[].name | select(startswith("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<"))] | length' "$WORK/base.json")" 2 \
    "JSON: the two instantiations, demangled"
KPROF_NAMES=base KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$PROGS/named" $A $B $C $D >/dev/null
expect_eq "$(grep -c '"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<' "$WORK/c.kernels.csv")" 2 "CSV: the full names"
KPROF_NAMES=base run_kprof "$PROGS/named" $A $B $C $D 2>"$WORK/base.txt" >/dev/null
sed -n '/^== libkprof: kernels ==$/,/^First:/p' "$WORK/base.txt" | sed -n 's/.*[0-9]  \([^ ].*\)$/\1/p' | sort >"$WORK/rows"
sort >"$WORK/rows.want" <<'ROWS'
at::native::(anonymous namespace)::cunn_SoftMaxForward
at::native::elementwise_kernel
at::native::vectorized_elementwise_kernel
at::native::vectorized_elementwise_kernel
ROWS
diff -u "$WORK/rows.want" "$WORK/rows" >&2 || { cat "$WORK/base.txt" >&2; fail "text rows differ"; }
pass "text: base names, one row per instantiation"

# KPROF_NAME_WIDTH: 40 characters at most, the last three "..."; a short name whole.
KPROF_NAME_WIDTH=40 run_kprof "$PROGS/named" $A reduce_blocks 2>"$WORK/w.txt" >/dev/null
full=$(jq -r --arg m "$A" '.kernels[] | select(.mangled == $m) | .name' "$WORK/full.json")
cut=$(printf '%s' "$full" | cut -c1-37)
expect_grep "^ +[0-9.]+ .*[0-9]  $(printf '%s' "$cut" | sed 's/[][\.*^$()+?{}|]/\\&/g')\\.\\.\\.\$" "$WORK/w.txt" "KPROF_NAME_WIDTH=40 cuts a long name to 37 characters and ..."
expect_grep '[0-9]  reduce_blocks$' "$WORK/w.txt" "and leaves a short one whole"
KPROF_NAMES=base KPROF_NAME_WIDTH=30 run_kprof "$PROGS/named" $D 2>"$WORK/bw.txt" >/dev/null
expect_grep '[0-9]  at::native::\(anonymous name\.\.\.$' "$WORK/bw.txt" "with KPROF_NAMES=base, the base name is cut"
KPROF_NAME_WIDTH=40 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/wj.json" run_kprof "$PROGS/named" $A >/dev/null
expect_eq "$(jqr '.kernels[0].name' "$WORK/wj.json")" "$full" "JSON keeps the whole name"
KPROF_NAME_WIDTH=5 run_kprof "$PROGS/named" $A 2>"$WORK/bad.txt" >/dev/null
expect_grep "^libkprof: ignoring KPROF_NAME_WIDTH='5' \\(expected 0 \\(whole names\\) or 10 to 1073741824\\); using 0$" "$WORK/bad.txt" \
    "a width under 10 warns"
expect_grep "[0-9]  $(printf '%s' "$full" | sed 's/[][\.*^$()+?{}|]/\\&/g')\$" "$WORK/bad.txt" "and whole names are shown"
KPROF_NAMES=short run_kprof "$PROGS/named" $A 2>"$WORK/badn.txt" >/dev/null
expect_grep "^libkprof: ignoring KPROF_NAMES='short' \\(expected demangled, mangled or base\\); using demangled$" "$WORK/badn.txt" \
    "a bad KPROF_NAMES warns"
# Characters, not bytes: a UTF-8 name is cut between its characters.
KPROF_NAME_WIDTH=10 run_kprof "$PROGS/named" "ééééééééééééééé" 2>"$WORK/u.txt" >/dev/null
expect_grep '[0-9]  ééééééé\.\.\.$' "$WORK/u.txt" "a UTF-8 name cut to 7 characters and ..."
