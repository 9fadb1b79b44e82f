#!/bin/sh
# Another preload that wraps dlsym (unversioned) and chains with dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"),
# as HAMi-core does, works with libkprof in either order: each sees the program's driver lookups, the
# other library's wrapper (its "limit") applies to every allocation, and libkprof reports every launch
# and allocation.  Before, libkprof first passed over the other dlsym (looking up GLIBC_2.34 only), and
# libkprof second was passed over by it: a driver-API or static-cudart program got no report at all.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
[ -e "$FAKE_LIB/libdlshim.so" ] && [ -x "$FAKE/progs/driverapp" ] || skip "dlsym shim not built"
export FAKEGPU_KERNEL_NS="triton_kernel_0=4000,reduce_blocks=25000,reduce_final=3000"

# run_order NAME PRELOAD... -- PROGRAM ARGS: runs PROGRAM with the sanitizer runtime (if any) and PRELOAD
run_order() {
    name=$1; shift; pre=
    while [ "$1" != -- ]; do pre="$pre${pre:+ }$1"; shift; done; shift
    rc=0
    FAKEGPU_TRUTH="$WORK/$name.truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$name.json" \
        timeout -k 10 "${KPROF_TEST_TIMEOUT:-300}" env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$pre" "$@" >/dev/null 2>"$WORK/$name.err" || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: the program failed ($rc)"; }
    [ -s "$WORK/$name.json" ] || { cat "$WORK/$name.err" >&2; fail "$name: no libkprof report"; }
    truth_matches "$WORK/$name.json" "$WORK/$name.truth"
}

# check NAME ALLOCS: the shim saw the lookups and each allocation, and so did libkprof
check() {
    expect_grep '^dlshim: dlsym cuGetProcAddress_v2$' "$WORK/$1.err" "$1: the shim saw the cuGetProcAddress_v2 lookup"
    expect_eq "$(grep -c '^dlshim: cuMemAlloc_v2 ' "$WORK/$1.err" || true)" "$2" "$1: the shim's wrapper saw every allocation"
    expect_eq "$(jqr '.allocations[0].count' "$WORK/$1.json")" "$2" "$1: libkprof counted every allocation"
}

run_order driver-kprof-first "$KPROF_LIB" "$FAKE_LIB/libdlshim.so" -- "$FAKE/progs/driverapp"
check driver-kprof-first 1
expect_eq "$(kernel_field "$WORK/driver-kprof-first.json" triton_kernel_0 calls)" 6 "driver-kprof-first: every launch"
run_order driver-shim-first "$FAKE_LIB/libdlshim.so" "$KPROF_LIB" -- "$FAKE/progs/driverapp"
check driver-shim-first 1
expect_eq "$(kernel_field "$WORK/driver-shim-first.json" triton_kernel_0 calls)" 6 "driver-shim-first: every launch"

if [ -x "$FAKE/static/reduce" ]; then
    run_order static-kprof-first "$KPROF_LIB" "$FAKE_LIB/libdlshim.so" -- "$FAKE/static/reduce" --no-verify --iters 5
    check static-kprof-first 3
    run_order static-shim-first "$FAKE_LIB/libdlshim.so" "$KPROF_LIB" -- "$FAKE/static/reduce" --no-verify --iters 5
    check static-shim-first 3
else
    echo "static fake programs not built: static-cudart orders not checked"
fi

# libkprof's dlsym answers the version nodes callers ask for; the CUDA names stay unversioned.
nm -D --defined-only "$KPROF_LIB" >"$WORK/nm"
expect_grep ' dlsym@@GLIBC_2\.34$' "$WORK/nm" "dlsym@@GLIBC_2.34 exported"
expect_grep ' dlsym@GLIBC_2\.2\.5$' "$WORK/nm" "dlsym@GLIBC_2.2.5 exported"
expect_no_grep ' (cu|__cuda)[A-Za-z0-9_]*@' "$WORK/nm" "no CUDA name versioned"
