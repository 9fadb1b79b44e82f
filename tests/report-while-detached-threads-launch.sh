#!/bin/sh
# A report written while detached threads still launch (main returned, the threads never joined): the
# program exits 0 with its report, and the report's reads of what the launches note (each kernel's last
# launch shape) are atomic, so a ThreadSanitizer build finds no race (one was found by a helper set to
# break libkprof: kprof_json_object reading a kernel's grid while kprof_kernel_shape stored it, then the
# snapshot reading a kernel's calls while kprof_kernel_count added to them).  The launches are left untimed
# (KPROF_SAMPLE): timed ones also meet the fake runtime's teardown of the context at exit, which the threads
# outlive (an AddressSanitizer build saw kprof_hold_release write a hold word the teardown had freed, 1 run
# in 5; the teardown now waits for timed calls in flight, context-reset-waits-for-launches-in-flight.sh,
# and 16 sanitizer runs of this test with every launch timed were clean, but the fake's own teardown is not
# made for threads that outlive it).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
for s in 1000000; do
    rc=0
    KPROF_SAMPLE=$s KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r$s.json" run_kprof "$PROGS/detached" 8 >"$WORK/out$s" 2>"$WORK/err$s" || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/err$s" >&2; fail "KPROF_SAMPLE=$s: detached exited $rc"; }
    expect_grep '^detached: main returns$' "$WORK/out$s" "KPROF_SAMPLE=$s: the program ran"
    expect_eq "$(jq '[.kernels[] | select(.name == "detached()") | .calls > 0] | any' "$WORK/r$s.json")" true \
        "KPROF_SAMPLE=$s: the report counts the threads' launches"
    grep -q 'ThreadSanitizer' "$WORK/err$s" && { cat "$WORK/err$s" >&2; fail "KPROF_SAMPLE=$s: a data race"; }
    pass "KPROF_SAMPLE=$s: no sanitizer report"
done
# Half the threads capturing their streams: the kernels' captured-launch counts move too while the report
# sorts the captured kernels by them (the sort's comparator read them with plain loads, and a comparator
# whose answers change during qsort is undefined behaviour: the report now sorts counts read once).
rc=0
KPROF_SAMPLE=1000000 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/capture.json" run_kprof "$PROGS/detached" 8 capture \
    >"$WORK/out.capture" 2>"$WORK/err.capture" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/err.capture" >&2; fail "capture: detached exited $rc"; }
expect_eq "$(jq '[.captured[] | select(.name == "captured()") | .launches > 0] | any' "$WORK/capture.json")" true \
    "capture: the report counts the captured launches"
grep -q 'ThreadSanitizer' "$WORK/err.capture" && { cat "$WORK/err.capture" >&2; fail "capture: a data race"; }
pass "capture: no sanitizer report"
