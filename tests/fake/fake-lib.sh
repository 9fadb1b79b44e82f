# fake-lib.sh: what fake-smoke.sh, fake-extra.sh and fake-robust.sh share: the build directory, a scratch
# folder, pass/fail/expect, and running a program against the fake stack with its ground-truth file.  Sourced with
# NAME set to the script's name; FAKE_TIMEOUT (seconds) bounds each program.
set -u

B=${1:-${FAKE_BUILDDIR:-$(dirname "$0")}}
B=$(cd "$B" && pwd) || exit 99
LIB=$B/lib
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$NAME.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0

pass() { echo "ok - $*"; }
fail() { echo "FAIL - $*"; status=1; }
expect() { # expect NAME FILE PATTERN: FILE has a line matching PATTERN
    if grep -q -- "$3" "$2"; then pass "$1"; else fail "$1 (no '$3' in:)"; sed 's/^/    /' "$2"; fi
}

export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FAKEGPU_KERNEL_NS='default=1000' FAKEGPU_CTX_INIT_MS=0
unset FAKEGPU_TRUTH FAKEGPU_TRUTH_QUERIES FAKEGPU_HANG FAKEGPU_EVENT_PENDING_QUERIES FAKEGPU_DEVICES FAKEGPU_MEM_BYTES \
      FAKEGPU_COPY_PS_PER_BYTE FAKEGPU_REUSE_CTX_HANDLE FAKEGPU_REUSE_FUNC_HANDLE FAKEGPU_FIRST_QUERY_DELAY_US FAKEGPU_EVENT_NS \
      FAKEGPU_HANDOFF_NS FAKEGPU_CALIB_C0_NS FAKEGPU_LAZY_LOAD_NS FAKEGPU_WHILE_ITERS FAKEGPU_ERRORS_FILE LD_PRELOAD

# A sanitized fake needs its sanitizer runtime first; harmless for the programs that link it themselves.
san=$(ldd "$LIB/libcuda.so.1" | awk '/lib(asan|tsan)\.so/ { print $3; exit }')

# runp NAME [ENV...] -- PROG [ARGS...]: runs PROG, output in $tmp/NAME.out, truth in $tmp/NAME.truth
runp() {
    name=$1; shift
    envs=
    while [ "$1" != -- ]; do envs="$envs $1"; shift; done
    shift
    rm -f "$tmp/$name.truth"
    # shellcheck disable=SC2086
    env ${san:+LD_PRELOAD=$san} FAKEGPU_TRUTH="$tmp/$name.truth" $envs timeout "$FAKE_TIMEOUT" "$@" > "$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then pass "$name runs"; else fail "$name (exit $rc):"; sed 's/^/    /' "$tmp/$name.out"; fi
}

truth() { # truth NAME: compares $tmp/NAME.truth with the expected text on stdin
    cat > "$tmp/$1.expected"
    if diff -u "$tmp/$1.expected" "$tmp/$1.truth" > "$tmp/$1.diff" 2>&1; then pass "truth file of $1"; else
        fail "truth file of $1:"; cat "$tmp/$1.diff"; fi
}
