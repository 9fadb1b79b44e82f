#!/bin/sh
# kprof's options for the common settings (--sample, --include, --exclude, --top, --group, --names,
# --name-width, --paused, --signals, --log) set their KPROF_* variables, over the environment's, and libkprof reads them
# (its KPROF_LOG=debug print of the configuration, and the report); a bad value is a one-line kprof:
# usage error (exit status 2), and the program is not started.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
K=$top_builddir/tools/kprof
for v in $(env | sed -n 's/^\(KPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = KPROF_TEST_TIMEOUT ] || unset "$v"
done

# bad OPTION... : a usage error, one kprof: line, exit status 2, the program not run.
bad() {
    rm -f "$WORK/ran"
    rc=0; "$K" "$@" sh -c ': >"$1"' sh "$WORK/ran" >"$WORK/out" 2>"$WORK/err" || rc=$?
    expect_eq "$rc" 2 "kprof $*: exit status 2"
    expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "kprof $*: one line"
    expect_grep '^kprof: ' "$WORK/err" "kprof $*: a kprof: message ($(cat "$WORK/err"))"
    [ ! -e "$WORK/ran" ] || fail "kprof $*: the program ran"
}
bad --sample 0
bad --sample=x
bad --sample 1073741825
bad --top -1
bad --top 3x
bad --include '('
bad --exclude '(a)\1'
bad --group size
bad --names short
bad --name-width 5
bad --name-width=-1
bad --log trace
bad --paused=1
bad --signals=yes
# Paths as libkprof reads them (a new-user helper's -o '' and -o 'q-%q{HOME' started the program, and
# libkprof wrote a file named q-%q{HOME).
bad -o ''
bad --output='q-%q{HOME'
bad -t 'x-%x.json'
bad --save '50%'
rc=0; "$K" --sample 0 true 2>"$WORK/err" || rc=$?
expect_grep "^kprof: --sample needs a whole number from 1 to 1073741824 or auto, not '0'$" "$WORK/err" \
    "kprof --sample 0: names auto too, as --help does"
rc=0; "$K" --sample 2>"$WORK/err" || rc=$?
expect_eq "$rc" 2 "kprof --sample (no value): exit status 2"
expect_grep '^kprof: --sample needs a value$' "$WORK/err" "kprof --sample (no value): says so"

case $SAN_PRELOAD in
*tsan*) skip "the rest runs the launcher (a shell script) with the sanitizer runtime preloaded, and ThreadSanitizer's runtime crashes dash's subshells" ;;
esac
# Every option at once, over the environment's values: libkprof's effective configuration.
env KPROF_SAMPLE=8 KPROF_TOP=9 KPROF_LOG=warn LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" \
    "$K" --log debug --sample 4 --include '^reduce_b' --exclude=final --top=3 --group shape --names mangled \
    --name-width 40 --paused --signals true 2>"$WORK/err" || fail "kprof ... true failed"
sed -n 's/^libkprof: configuration: //p' "$WORK/err" | tr ' ' '\n' >"$WORK/effective"
[ -s "$WORK/effective" ] || { cat "$WORK/err" >&2; fail "--log debug printed no configuration"; }
for want in KPROF_LOG=debug KPROF_SAMPLE=4 'KPROF_INCLUDE=^reduce_b' KPROF_EXCLUDE=final KPROF_TOP=3 \
    KPROF_GROUP=shape KPROF_NAMES=mangled KPROF_NAME_WIDTH=40 KPROF_START=paused KPROF_SIGNALS=1; do
    grep -qxF -- "$want" "$WORK/effective" || { cat "$WORK/effective" >&2; fail "$want not in effect"; }
    pass "$want in effect"
done

# And they act on the report.
R="$KERNELS/reduce --no-verify --iters 3"
kp() { env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="$FAKE_LIB" LD_PRELOAD="$SAN_PRELOAD" "$K" "$@"; }
kp -f json -o "$WORK/a.json" --include '^reduce_b' --sample 2 $R >/dev/null
expect_eq "$(jq -c '[.kernels[].mangled]' "$WORK/a.json")" '["_Z13reduce_blocksPKdPdm"]' "--include keeps only matches"
expect_eq "$(jq -c '[.sample_period, .kernels[0].calls, .kernels[0].timed]' "$WORK/a.json")" '[2,4,2]' \
    "--sample 2: the first launch and every second timed (4 launches)"
# Any case, as libkprof reads KPROF_SAMPLE (a new user's helper: --sample Auto was a usage error while
# KPROF_SAMPLE=Auto was auto).
kp -f json -o "$WORK/auto.json" --sample Auto $R >/dev/null || fail "kprof --sample Auto failed"
expect_eq "$(jqr '.sample_period' "$WORK/auto.json")" 0 "--sample Auto: auto, as KPROF_SAMPLE=Auto is"
kp -f json -o "$WORK/b.json" --exclude 'blocks' --names mangled --group shape $R >/dev/null
expect_eq "$(jq -r '[.kernels[].name] | join(" ")' "$WORK/b.json")" "_Z12reduce_finalPKdPdi" "--exclude and --names mangled"
expect_eq "$(jq -c '.kernels[0].grid' "$WORK/b.json")" '[1,1,1]' "--group shape: the row has its shape"
kp --names base --name-width 12 $R 2>"$WORK/base" >/dev/null
expect_grep '[0-9]  reduce_bl\.\.\.$' "$WORK/base" "--names base --name-width 12: the base name, cut"
expect_grep '[0-9]  reduce_final$' "$WORK/base" "--names base --name-width 12: a short base name whole"
kp --top 1 $R 2>"$WORK/top" >/dev/null
expect_grep 'not shown: KPROF_TOP=1\)$' "$WORK/top" "--top 1"
kp -f json -o "$WORK/p.json" --paused $R >/dev/null 2>&1 || true
if [ -s "$WORK/p.json" ]; then expect_eq "$(jq '.kernels | length' "$WORK/p.json")" 0 "--paused: no kernel counted"
else pass "--paused: no kernel counted (no report)"; fi
