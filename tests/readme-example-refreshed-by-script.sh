#!/bin/sh
# tools/readme-example.sh, which rewrites README.md's example report from a run of kernels/reduce: on a
# copy of README.md, with --fake (the fake CUDA stack), it replaces what lies between the readme-example
# markers, and only that, with a heading, a line saying how the report was made and the report in a code
# block: every section header, in order, the api table's cudaEventRecord row (the name the program called).  Run twice, the same shape.
# Without --fake on a machine without a GPU it refuses, leaving README alone.  And README.md's own example
# has every section a run prints (a section added since the example was made fails here: refresh it).
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
# A sanitizer build's libkprof needs the sanitizer runtime preloaded into the whole script, and there the
# script's own tools fail (mktemp exits 1 under AddressSanitizer's runtime; ThreadSanitizer's crashes
# dash's subshells): this test is about the script, which the plain and -O0 builds run.
case $SAN_PRELOAD in
?*) skip "a sanitizer build: the script's own tools (mktemp, dash) fail with the sanitizer runtime preloaded" ;;
esac
S=$top_srcdir/tools/readme-example.sh
B=$(cd "$top_builddir" && pwd)
cp "$top_srcdir/README.md" "$WORK/README.md"
outside() { sed '/^<!-- readme-example: begin/,/^<!-- readme-example: end -->$/d' "$1"; }
inside() { sed -n '/^<!-- readme-example: begin/,/^<!-- readme-example: end -->$/p' "$1" | sed '1d;$d'; }
sections() { grep '^== libkprof: .* ==$' "$1"; }

for run in 1 2; do
    sh "$S" --fake "$B" "$WORK/README.md" 2>"$WORK/err" || fail "readme-example.sh --fake failed: $(cat "$WORK/err")"
    outside "$WORK/README.md" >"$WORK/out.new"
    outside "$top_srcdir/README.md" >"$WORK/out.old"
    diff -u "$WORK/out.old" "$WORK/out.new" >&2 || fail "run $run: README changed outside the markers"
    pass "run $run: README unchanged outside the markers"
    inside "$WORK/README.md" >"$WORK/example"
    expect_eq "$(head -n 1 "$WORK/example")" "### Example (the fake CUDA stack)" "run $run: the heading names the stack"
    expect_grep '^`tools/kprof kernels/reduce --no-verify` on the fake CUDA stack .*simulated times' "$WORK/example" \
        "run $run: a line says how it was made"
    expect_eq "$(grep -c '^```$' "$WORK/example")" 2 "run $run: one code block"
    expect_eq "$(sections "$WORK/example" | tr '\n' '|')" \
        "== libkprof: report ==|== libkprof: context init ==|== libkprof: kernels ==|== libkprof: graphs ==|== libkprof: captured ==|== libkprof: copies ==|== libkprof: memsets ==|== libkprof: allocations ==|== libkprof: devices ==|== libkprof: api ==|== libkprof: events ==|== libkprof: end ==|" \
        "run $run: every section, in order"
    expect_grep '^Process: kernels/reduce \(pid [0-9]+\) on ' "$WORK/example" "run $run: the sample run from the build tree"
    expect_grep ' cudaEventRecord$' "$WORK/example" "run $run: the api table's cudaEventRecord row"
done

# No GPU (an nvidia-smi that lists none), no --fake: refused, README untouched.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexit 9\n' >"$WORK/bin/nvidia-smi"
chmod +x "$WORK/bin/nvidia-smi"
cp "$WORK/README.md" "$WORK/README.before"
rc=0; PATH="$WORK/bin:$PATH" sh "$S" "$B" "$WORK/README.md" 2>"$WORK/err" || rc=$?
expect_eq "$rc:$(cat "$WORK/err")" "1:readme-example: no GPU here (nvidia-smi lists none): README's example must come from a real run" \
    "without a GPU: refused"
cmp -s "$WORK/README.before" "$WORK/README.md" || fail "README changed by a refused run"
pass "README untouched"

# README.md's own example: the sections a run prints, in order.
inside "$top_srcdir/README.md" >"$WORK/readme.example"
expect_eq "$(sections "$WORK/readme.example" | tr '\n' '|')" "$(sections "$WORK/example" | tr '\n' '|')" \
    "README.md's example has every section a run prints (else refresh it: tools/readme-example.sh on a GPU)"
