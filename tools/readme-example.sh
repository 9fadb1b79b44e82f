#!/bin/sh
# tools/readme-example.sh [--fake] BUILDDIR [README]: refreshes README.md's example report from a real run.
# Runs the build tree's kernels/reduce under its tools/kprof and writes, between README's two markers
#     <!-- readme-example: begin ... -->   and   <!-- readme-example: end -->
# a heading naming the GPU, a line saying how the report was made, and the text report as kprof wrote it;
# the rest of README stays as it is.  The example must come from a GPU: without one (nvidia-smi lists
# none) it refuses.  --fake runs the sample on the build tree's fake CUDA stack (tests/fake) instead, with
# simulated times, to test this script (tests/readme-example-refreshed-by-script.sh); never for README.md.
# Exit status 0 when README was rewritten, 1 (with a readme-example: line on stderr) when not.
set -eu
say() { echo "readme-example: $*" >&2; }
fake=0
[ "${1:-}" = --fake ] && { fake=1; shift; }
[ $# -ge 1 ] && [ $# -le 2 ] || { say "usage: readme-example.sh [--fake] BUILDDIR [README]"; exit 1; }
b=$(cd "$1" && pwd)
readme=${2:-$(cd "$(dirname "$0")/.." && pwd)/README.md}
[ -x "$b/tools/kprof" ] && [ -x "$b/kernels/reduce" ] ||
    { say "$b has no tools/kprof or kernels/reduce (build it first; kernels/ needs nvcc)"; exit 1; }
begin='<!-- readme-example: begin'
end='<!-- readme-example: end -->'
[ "$(grep -c "^$begin" "$readme")" = 1 ] && [ "$(grep -c "^$end\$" "$readme")" = 1 ] &&
    [ "$(grep -n "^$begin" "$readme" | cut -d: -f1)" -lt "$(grep -n "^$end\$" "$readme" | cut -d: -f1)" ] ||
    { say "$readme does not hold the two markers ($begin ... -->, then $end) once each, in this order"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme-example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ "$fake" = 1 ]; then
    gpu="the fake CUDA stack"
    how="\`tools/kprof kernels/reduce --no-verify\` on the fake CUDA stack of tests/fake (simulated times, not a GPU's)"
    set -- kernels/reduce --no-verify
    LD_LIBRARY_PATH=$b/tests/fake/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    FAKEGPU_EVENT_PENDING_QUERIES=1 # as tools/demo.sh: the fake's exact times come through
    export LD_LIBRARY_PATH FAKEGPU_EVENT_PENDING_QUERIES
else
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' ||
        { say "no GPU here (nvidia-smi lists none): README's example must come from a real run"; exit 1; }
    info=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
    gpu=${info%%,*}
    driver=$(echo "${info#*,}" | tr -d ' ')
    cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
    how="\`tools/kprof kernels/reduce\` on an $gpu (driver $driver, CUDA ${cuda:-?})"
    set -- kernels/reduce
fi
# From the build tree, so that the report's Process line reads kernels/reduce.
(cd "$b" && tools/kprof -o "$tmp/report.txt" "$@" >/dev/null) || { say "kprof $* failed"; exit 1; }
grep -q '^== libkprof: end ==$' "$tmp/report.txt" || { say "kprof $* wrote no whole report"; exit 1; }

{
    echo "### Example ($gpu)"
    echo
    echo "$how,"
    echo "as written by \`tools/readme-example.sh\` (run it on a GPU machine to refresh this example):"
    echo
    echo '```'
    cat "$tmp/report.txt"
    echo '```'
} >"$tmp/example"
awk -v begin="$begin" -v end="$end" -v example="$tmp/example" '
    index($0, begin) == 1 { print; while ((getline line < example) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip' "$readme" >"$tmp/README"
cat "$tmp/README" >"$readme" # in place: README keeps its mode and links
say "wrote the example report into $readme"
