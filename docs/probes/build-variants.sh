#!/bin/sh
# build-variants.sh OUTDIR [VARIANT ...]: builds libkprof at HEAD, as the release and as a probe build
# (./configure CPPFLAGS=-DKPROF_PROBE_SEG, src/probe_seg.h), with each patch of docs/probes applied in turn,
# into OUTDIR/lib_NAME.so and OUTDIR/lib_probe_NAME.so ("head" is HEAD unpatched).  VARIANTs are patch names
# without .patch (default: head harvest-pace-1ms harvest-no-driver).  Each build is made in a temporary git
# worktree, removed afterwards; the work tree is not touched.  For gpu-variants.sh, on the GPU machine.
set -eu
out=${1:?usage: build-variants.sh OUTDIR [VARIANT ...]}
shift
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ $# -gt 0 ] || set -- head harvest-pace-1ms harvest-no-driver
for v in "$@"; do
    for kind in release probe; do
        wt=$(mktemp -d)
        git -C "$top" worktree add -q --detach "$wt" HEAD
        flags=
        [ $kind = release ] || flags=-DKPROF_PROBE_SEG
        # One && chain: set -e does not act in a subshell whose status is tested (a patch that failed to
        # apply would otherwise build HEAD unpatched under the variant's name).
        (
            cd "$wt" && { [ "$v" = head ] || git apply "$top/docs/probes/$v.patch"; } &&
                ./autogen.sh >/dev/null 2>&1 && ./configure -q CPPFLAGS="$flags" >/dev/null && make -j"$(nproc)" >/dev/null 2>&1
        ) || { echo "build-variants.sh: $v ($kind) failed to build" >&2; git -C "$top" worktree remove --force "$wt"; exit 1; }
        name=lib_$v.so
        [ $kind = probe ] && name=lib_probe_$v.so
        cp "$wt/src/.libs/libkprof.so" "$out/$name"
        git -C "$top" worktree remove --force "$wt"
        echo "built $out/$name"
    done
done
