#!/bin/sh
# tools/demo.sh BUILDDIR [PROGRAM [ARG...]]: what `make demo` runs, the README's main command.  With a GPU
# (nvidia-smi lists one) the bundled kernels/reduce (or PROGRAM) runs under libkprof for real.  Without
# one, this says so in one line and runs the same against the fake CUDA stack of tests/fake, whose times
# are simulated (said again after the report); without nvcc (no kernels/ samples) and no PROGRAM, the
# fake stack's own mathapp instead.  Only this demo falls back to the fake stack: kprof never does for a
# user's program.
b=${1:?usage: demo.sh BUILDDIR [PROGRAM [ARG...]]}
shift
case ${1:-} in
-*) echo "demo: usage: demo.sh BUILDDIR [PROGRAM [ARG...]]: the program first (kprof's options as KPROF_* variables: KPROF_FORMAT=json ...)" >&2
    exit 2 ;;
esac
kprof=$b/tools/kprof
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    [ $# -gt 0 ] && exec "$kprof" "$@"
    [ -x "$b/kernels/reduce" ] || { echo "demo: kernels/reduce was not built (configure found no nvcc)" >&2; exit 1; }
    exec "$kprof" "$b/kernels/reduce"
fi
fake=$b/tests/fake
if [ $# -gt 0 ]; then
    what=$1
elif [ -x "$b/kernels/reduce" ]; then
    set -- "$b/kernels/reduce" --no-verify # its kernels do not run on the fake: nothing to verify
    what="kernels/reduce"
else
    [ -x "$fake/progs/mathapp" ] || ${MAKE:-make} -s -C "$fake" progs/mathapp >/dev/null || exit 1
    set -- "$fake/progs/mathapp"
    what="tests/fake's mathapp (no nvcc, so no kernels/ samples)"
fi
[ -e "$fake/lib/libcudart.so" ] ||
    ${MAKE:-make} -s -C "$fake" lib/libcuda.so.1 lib/libcudart.so.13 lib/libcuda.so lib/libcudart.so >/dev/null || exit 1
echo "demo: no GPU here (nvidia-smi lists none): running $what against the fake CUDA stack; its times are simulated and its kernels do not run (a program's own results read 0)" >&2
# One query of each event answers "not ready", as on a busy GPU, so the fake's exact times come through.
# The fake's virtual host clock (libfakeclock.so, preloaded before libkprof, after a sanitizer's runtime) keeps its GPU clock in step
# with the host's, a launch call taking 3 us of it (2 to 5 us on an H200), so that the Host and Queue
# columns mean what they would on a GPU (without it the fake's GPU clock is unrelated to the host's and
# the queue times mean nothing).
clock=
[ -e "$fake/lib/libfakeclock.so" ] || ${MAKE:-make} -s -C "$fake" lib/libfakeclock.so >/dev/null 2>&1
[ -e "$fake/lib/libfakeclock.so" ] && clock=$fake/lib/libfakeclock.so
FAKEGPU_LAUNCH_HOST_NS=3000 FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH=$fake/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD${clock:+ }}$clock "$kprof" "$@"
rc=$?
# (126, 127: kprof found no program to run, and said so.)
if [ $rc != 126 ] && [ $rc != 127 ]; then
    where=" above" # a KPROF_FORMAT or KPROF_OUTPUT of the user's may have sent it elsewhere (csv: files)
    case "${KPROF_FORMAT:-}${KPROF_OUTPUT:-}" in ?*) where= ;; esac
    echo "demo: the report$where was made on the fake CUDA stack (tests/fake): simulated times, not a GPU's" >&2
    echo "demo: there a launch call takes 3 us before its kernel is queued (as a GPU's launch latency): a program's own event timing includes it, libkprof takes it off" >&2
    echo "demo: the hand-off calibration's time is the fake's too (hundreds of ms there; 35 to 45 ms a context on an H200)" >&2
fi
exit $rc
