#!/bin/sh
# Through kprof, a run that profiled nothing ends with one line saying why, not in silence: a program
# that cannot be run (a kprof: line, not the shell's words), no CUDA driver, no CUDA call, KPROF_START=paused
# never resumed (libkprof: lines).  Child processes that never tried CUDA stay silent, a profiled run gets
# no such line, and without kprof nothing changes (no-cuda-no-report.sh, no-driver-passes-through.sh).
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
K=$top_builddir/tools/kprof
for v in $(env | sed -n 's/^\(KPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = KPROF_TEST_TIMEOUT ] || unset "$v"
done
kp() { env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="${LIBS:-$FAKE_LIB}" LD_PRELOAD="$SAN_PRELOAD" "$K" "$@"; }

# cannot PROGRAM STATUS: kprof cannot run it: exit status STATUS and one kprof: line.
cannot() {
    rc=0; (cd "$WORK" && "$K" "$1") >"$WORK/out" 2>"$WORK/err" || rc=$?
    expect_eq "$rc" "$2" "kprof $1: exit status $2"
    expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "kprof $1: one line ($(cat "$WORK/err"))"
    expect_grep "^kprof: cannot run '$1'" "$WORK/err" "kprof $1: a kprof: message"
}
printf 'echo ran\n' >"$WORK/not-executable"
mkdir "$WORK/a-directory"
printf '#!/no/such/interpreter\necho ran\n' >"$WORK/bad-interpreter"; chmod +x "$WORK/bad-interpreter"
cannot ./does-not-exist 127
cannot does-not-exist-anywhere 127
cannot ./not-executable 126
cannot ./a-directory 126
cannot ./bad-interpreter 127
# The kernel alone knows a file it cannot execute: the shell's line, then kprof's.
printf '\177ELF not really' >"$WORK/bad-elf"; chmod +x "$WORK/bad-elf"
rc=0; (cd "$WORK" && "$K" ./bad-elf) 2>"$WORK/err" || rc=$?
expect_eq "$rc" 126 "kprof ./bad-elf: exit status 126"
expect_grep "^kprof: cannot run './bad-elf'" "$WORK/err" "kprof ./bad-elf: a kprof: message"

case $SAN_PRELOAD in
*tsan*) skip "the rest runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
# No CUDA call: the program kprof started says so, once; its children that never tried CUDA say nothing.
# (perl: sh ends with _exit() and coreutils close stderr at exit, and then no line can be written, as no
# report could.)
command -v perl >/dev/null 2>&1 || skip "perl not found"
# (detect_leaks=0: in the AddressSanitizer build, LeakSanitizer reports perl's own leaks at its exit.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    kp perl -e 'system("/bin/true"); system("sh", "-c", "/bin/true; /bin/true"); print "hello\n"' >"$WORK/out" 2>"$WORK/err"
expect_eq "$(cat "$WORK/out")" hello "program output"
cat "$WORK/err"
expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "no CUDA call: one line"
expect_grep '^libkprof: nothing profiled in perl \(pid [0-9]+\): it made no CUDA call$' "$WORK/err" "no CUDA call: says so"

# CUDA calls, but no context: the weak cuInit of cuda_probe, and nothing more.
kp "$PROGS/cuda_probe" >/dev/null 2>"$WORK/err"
cat "$WORK/err"
expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "no context: one line"
expect_grep '^libkprof: nothing profiled in cuda_probe \(pid [0-9]+\): it created no CUDA context \(no GPU, or its CUDA calls failed\)$' "$WORK/err" "no context: says so"

# nvcc's default static runtime against the fake driver: it reaches the driver through private tables
# (cuGetExportTable) that only NVIDIA's libcuda.so.1 serves, so its calls fail; the line says so.
if [ -x "$KERNELS/reduce-static" ]; then
    kp "$KERNELS/reduce-static" --no-verify >/dev/null 2>"$WORK/err" || true
    expect_grep '^libkprof: nothing profiled in reduce-static \(pid [0-9]+\): it created no CUDA context \(no GPU, or its CUDA calls failed; its CUDA runtime is linked into it, nvcc.s default, and needs NVIDIA.s own libcuda\.so\.1\)$' \
        "$WORK/err" "static runtime: says so"
fi

# No driver: the program's own output, then one line.
mkdir -p "$WORK/lib"
cp "$FAKE_LIB/libcudart.so.13" "$WORK/lib/"   # a runtime, but no libcuda.so.1
rc1=0; env LD_LIBRARY_PATH="$WORK/lib" ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} "$KERNELS/vector_add" --no-verify >/dev/null 2>"$WORK/plain.err" || rc1=$?
rc2=0; LIBS=$WORK/lib kp "$KERNELS/vector_add" --no-verify >/dev/null 2>"$WORK/err" || rc2=$?
expect_eq "$rc2" "$rc1" "no driver: the program's exit status ($rc1)"
cat "$WORK/err"
head -n "$(wc -l <"$WORK/plain.err")" "$WORK/err" | diff -u "$WORK/plain.err" - || fail "no driver: the program's own stderr first"
expect_eq "$(($(wc -l <"$WORK/err") - $(wc -l <"$WORK/plain.err")))" 1 "no driver: one line more"
expect_grep '^libkprof: nothing profiled in .*vector_add \(pid [0-9]+\): the CUDA driver could not be loaded \(.*libcuda\.so\.1.*\)$' "$WORK/err" "no driver: says so"

# No driver, a static runtime (the fake's, and nvcc's when built): its own dlopen of libcuda.so.1 fails,
# and no call reaches libkprof; the line says the driver could not be loaded (a new user's helper read "it
# made no CUDA call" after the program's "CUDA driver version is insufficient").
for p in "$PROGS/rt_calls_static" "$KERNELS/reduce-static"; do
    [ -x "$p" ] || continue
    LIBS=$WORK/lib kp "$p" --no-verify >/dev/null 2>"$WORK/err" || true
    cat "$WORK/err"
    expect_eq "$(grep -c '^libkprof: nothing profiled' "$WORK/err")" 1 "no driver, $(basename "$p"): one line"
    expect_grep "^libkprof: nothing profiled in $(basename "$p") \(pid [0-9]+\): the CUDA driver could not be loaded \(.*libcuda\.so\.1.*\), and no CUDA call reached libkprof \(a CUDA runtime linked into the program, nvcc.s default, fails without the driver before any does\)$" \
        "$WORK/err" "no driver, $(basename "$p"): says so"
done

# Paused, never resumed.
kp --paused "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
cat "$WORK/err"
expect_eq "$(grep -c '^libkprof: nothing profiled' "$WORK/err")" 1 "paused: one line"
expect_grep '^libkprof: nothing profiled in .*vector_add \(pid [0-9]+\): KPROF_START=paused, and it never called cudaProfilerStart or cuProfilerStart$' "$WORK/err" "paused: says so"

# KPROF_DISABLE=1 left in the environment: nothing was said at all (a new user's helper); kprof says it, once,
# also when the program is a wrapper that execs the real one (libkprof said it in each image: a breaker
# helper).
for wrap in "" env; do
    KPROF_DISABLE=1 kp $wrap "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
    expect_eq "$(cat "$WORK/err")" "kprof: KPROF_DISABLE=1 is set in the environment: libkprof profiles nothing (unset it to profile)" \
        "KPROF_DISABLE=1${wrap:+ through $wrap}: one line, from kprof"
done

# Profiled: no such line.
kp "$KERNELS/vector_add" --no-verify --n 64 >/dev/null 2>"$WORK/err"
expect_grep '^== libkprof: kernels' "$WORK/err" "profiled: a report"
expect_no_grep 'nothing profiled' "$WORK/err" "profiled: no 'nothing profiled' line"
# A program that execs another after its report: the second (no CUDA) is the process kprof started, but an
# earlier program of it reported, so no "nothing profiled" line (a breaker helper).
kp -o "$WORK/ex.txt" "$PROGS/exec_after" execl >"$WORK/ex.out" 2>"$WORK/ex.err" || fail "kprof exec_after execl failed"
expect_grep '^== libkprof: end ==$' "$WORK/ex.txt" "exec: the first program's report"
expect_no_grep 'nothing profiled' "$WORK/ex.err" "exec: no 'nothing profiled' line for the program exec'd after it"
