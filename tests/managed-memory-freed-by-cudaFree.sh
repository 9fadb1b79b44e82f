#!/bin/sh
# cudaFree frees managed memory as well as device memory: a managed allocation freed with cudaFree is
# counted as a managed free (it once stayed "in use" for ever, booked as an unknown device free).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/managed" >/dev/null
m='[.allocations[] | select(.kind == "managed")][0]'
d='[.allocations[] | select(.kind == "device")][0]'
expect_eq "$(jqr "$m.count" "$WORK/r.json")" 1 "managed allocation counted (cuMemAllocManaged)"
expect_eq "$(jqr "$m.frees" "$WORK/r.json")" 1 "freed by cudaFree"
expect_eq "$(jqr "$m.in_use_bytes" "$WORK/r.json")" 0 "nothing left in use"
expect_eq "$(jqr "$d.frees" "$WORK/r.json")" 1 "the device allocation's free stays a device free"
