#!/bin/sh
# An event pair holds, besides its kernel, the GPU's hand-off from whatever came before the kernel on its
# stream.  libkprof measures it per context at start-up (its own kprof_calibrate kernel behind a kernel,
# each copy direction, a memset and an event wait) and takes the matching one off each kernel's pair; a
# host function between changes nothing (after_hostfn follows "event wait, host function").  The fake GPU adds a different hand-off per predecessor (FAKEGPU_HANDOFF_NS): every kernel
# comes out at its own length exactly; with KPROF_CALIBRATE=0 each keeps its hand-off; with another
# kernel-counting tool attached (CUDA_INJECTION64_PATH) the calibration is skipped and says so.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
export FAKEGPU_KERNEL_NS="lead=50000,after_kernel=1000,after_htod=2000,after_dtoh=3000,after_dtod=4000,after_memset=5000,after_wait=6000,after_hostfn=7000"
export FAKEGPU_HANDOFF_NS="kernel=700,htod=1900,dtoh=1300,dtod=800,memset=1100,wait=900"
# Every event stays pending until the program synchronises: every stream stays busy (the fake's hand-off
# applies), as libkprof sees it too (no launch is found idle), whenever its harvester asks.
export FAKEGPU_EVENT_PENDING_QUERIES=1000
FAKEGPU_TRUTH="$WORK/truth" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/preds" >/dev/null ||
    fail "preds failed"
truth_matches "$WORK/r.json" "$WORK/truth"
for k in lead:50000 after_kernel:1000 after_htod:2000 after_dtoh:3000 after_dtod:4000 after_memset:5000 \
         after_wait:6000 after_hostfn:7000; do
    expect_eq "$(kernel_field "$WORK/r.json" "${k%%:*}" max_ns)-$(kernel_field "$WORK/r.json" "${k%%:*}" min_ns)" \
        "${k#*:}-${k#*:}" "${k%%:*}: its own length, every launch"
done
# (Whole ns: the report writes the measured means exactly.)
expect_eq "$(jq -c '.calibration[0] | [.state] + ([.handoff_ns.kernel, .handoff_ns.HtoD, .handoff_ns.DtoH, .handoff_ns.DtoD,
                 .handoff_ns.memset, .handoff_ns.other, .handoff_shared_ns.kernel] | map(round))' "$WORK/r.json")" \
    '["done",700,1900,1300,800,1100,900,700]' "the calibration found the fake's hand-offs"
# Without the correction each kernel keeps its predecessor's hand-off (the test above fails without it).
KPROF_CALIBRATE=0 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/off.json" run_kprof "$PROGS/preds" >/dev/null
expect_eq "$(kernel_field "$WORK/off.json" after_htod max_ns)" 3900 "KPROF_CALIBRATE=0: after_htod keeps 1.9 us of hand-off"
expect_eq "$(jqr '.calibration[0].state' "$WORK/off.json")" "off (KPROF_CALIBRATE=0)" "and says so"
# Another tool that counts kernels is attached: no kprof_calibrate launch for it to count.
CUDA_INJECTION64_PATH=/nonexistent/tool.so FAKEGPU_TRUTH="$WORK/truth2" KPROF_OUTPUT="$WORK/tool.txt" \
    run_kprof "$PROGS/preds" >/dev/null
expect_grep '^Hand-off calibration, device 0: skipped \(another tool that counts kernels is attached\)' "$WORK/tool.txt" \
    "skipped under another tool, in the text report"
expect_no_grep 'kprof_calibrate' "$WORK/truth2" "no calibration kernel ran"
# Text and CSV carry the figures too.
KPROF_OUTPUT="$WORK/r.txt" run_kprof "$PROGS/preds" >/dev/null
expect_grep '^Hand-off calibration, device 0 \([0-9.]+ ms\): .* kernel 0\.70 HtoD 1\.90 DtoH 1\.30 DtoD 0\.80 memset 1\.10 other 0\.90 held [0-9.]+ held_kernel 0\.70;' \
    "$WORK/r.txt" "text: the hand-offs in us"
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/c" run_kprof "$PROGS/preds" >/dev/null
expect_grep '^0,done,[0-9]+,16,own,HtoD,1900$' "$WORK/c.calibration.csv" "csv: calibration.csv"
# A 2D memset (cudaMemset2DAsync's cuMemsetD2D8Async) is a memset: timed as one, and the kernel after it
# loses a memset's hand-off.  It was left untimed and read with an untimed operation's ("other", here the
# event wait's 0.9 us): after_memset2d read 0.2 us long; on the H200 check_fill<1> of the accuracy suite
# read 2.4 us long in every run.
FAKEGPU_KERNEL_NS="lead=50000,after_memset2d=5500" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/m2.json" \
    run_kprof "$PROGS/preds" memset2d >/dev/null || fail "preds memset2d failed"
expect_eq "$(kernel_field "$WORK/m2.json" after_memset2d max_ns)-$(kernel_field "$WORK/m2.json" after_memset2d min_ns)" \
    5500-5500 "after_memset2d: its own length, every launch"
expect_eq "$(jq -c '[.memsets.count, .memsets.bytes]' "$WORK/m2.json")" '[5,20480]' "the 2D memsets timed as memsets (64 x 64 bytes each)"
