#!/bin/sh
# `make demo` (tools/demo.sh), the README's main command, on a machine without a GPU (an nvidia-smi that
# lists none first on PATH): one line says so, kernels/reduce (or, without nvcc, the fake stack's mathapp)
# runs against the fake CUDA stack with its report, and a last line says the times were simulated.
. "${top_srcdir:-..}/tests/lib.sh"
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexit 9\n' >"$WORK/bin/nvidia-smi"
chmod +x "$WORK/bin/nvidia-smi"
case $SAN_PRELOAD in
*tsan*) skip "the demo is a shell script run with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
PATH="$WORK/bin:$PATH" LD_PRELOAD="$SAN_PRELOAD" sh "$top_srcdir/tools/demo.sh" "$(cd "$top_builddir" && pwd)" >"$WORK/out" 2>"$WORK/err" ||
    fail "demo failed: $(cat "$WORK/err")"
expect_eq "$(head -n 1 "$WORK/err" | cut -c1-45)" "demo: no GPU here (nvidia-smi lists none): ru" "first line: no GPU"
expect_grep '^== libkprof: kernels ==' "$WORK/err" "the report follows"
# The fake's kernels do not run, so the sample's own results read 0 (reduce's 20 "total N: 0.000000000"
# lines, which a new user's helper took for a broken program): the first line says so.
expect_grep "^demo: no GPU here .*; its times are simulated and its kernels do not run \(a program's own results read 0\)$" \
    "$WORK/err" "first line: the kernels do not run"
expect_grep 'reduce_blocks|app_add' "$WORK/err" "with the sample's kernels"
# The fake's GPU clock kept in step with the host's: queue times of a few us, not tens of ms.
expect_grep 'Queue med \(us\) +Queue p95 \(us\)' "$WORK/err" "queue times in us"
expect_eq "$(tail -n 3 "$WORK/err" | head -n 1)" \
    "demo: the report above was made on the fake CUDA stack (tests/fake): simulated times, not a GPU's" \
    "third line from the end: simulated times"
expect_grep "^demo: there a launch call takes 3 us before its kernel is queued" "$WORK/err" \
    "then why a sample's own event timing reads longer"
expect_eq "$(tail -n 1 "$WORK/err" | cut -c1-51)" "demo: the hand-off calibration's time is the fake's" \
    "last line: the calibration's time is the fake's (a new user's helper read 475 ms as libkprof's cost)"
# Another program, as the README shows: the same fake stack and virtual clock.
PATH="$WORK/bin:$PATH" LD_PRELOAD="$SAN_PRELOAD" sh "$top_srcdir/tools/demo.sh" "$(cd "$top_builddir" && pwd)" \
    "$top_builddir/tests/fake/progs/mathapp" >"$WORK/out2" 2>"$WORK/err2" || fail "demo with a program failed: $(cat "$WORK/err2")"
expect_grep "^demo: no GPU here \(nvidia-smi lists none\): running .*mathapp against the fake CUDA stack" "$WORK/err2" \
    "the program given is run"
expect_grep 'app_add' "$WORK/err2" "with its kernels"
# kprof's options before the program: refused with the usage (they would be taken for the program).
rc=0; PATH="$WORK/bin:$PATH" LD_PRELOAD="$SAN_PRELOAD" sh "$top_srcdir/tools/demo.sh" "$(cd "$top_builddir" && pwd)" -f json x 2>"$WORK/err3" || rc=$?
expect_eq "$rc" 2 "options first: exit status 2"
expect_grep '^demo: usage: .*the program first' "$WORK/err3" "options first: the usage"
# A program that is not there: kprof says so (127), and the demo adds no report trailer.
rc=0; PATH="$WORK/bin:$PATH" LD_PRELOAD="$SAN_PRELOAD" sh "$top_srcdir/tools/demo.sh" "$(cd "$top_builddir" && pwd)" "$WORK/missing" 2>"$WORK/err4" || rc=$?
expect_eq "$rc" 127 "a missing program: exit status 127"
expect_no_grep 'report above' "$WORK/err4" "a missing program: no report trailer"
