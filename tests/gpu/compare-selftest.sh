#!/bin/sh
# compare-selftest.sh DIR -- no-GPU self-test of kprof-compare.py on the
# fixtures in DIR/testdata (DIR = tests/gpu in the source tree).
d=${1:-$(dirname "$0")}
py="python3 $d/kprof-compare.py"
t=$d/testdata
fail=0
expect() {  # expect RC DESCRIPTION ARGS...
  want=$1 what=$2; shift 2
  $py "$@" >/dev/null 2>&1; rc=$?
  if [ "$rc" -eq "$want" ]; then echo "PASS: kprof-compare $what"
  else echo "FAIL: kprof-compare $what (rc $rc, wanted $want)"; $py "$@"; fail=1; fi
}
expect 0 "matching report"           "$t/kprof.json" "$t/cupti.txt"
expect 1 "mismatching report"        --pct 5 --us 5 "$t/kprof-bad.json" "$t/cupti.txt"
expect 1 "too tight a tolerance"     --pct 1 --us 1 "$t/kprof.json" "$t/cupti.txt"
expect 0 "copies skipped, ignores"   --no-copies --ignore '^_Z5ghosti$' --ignore '^plainc$' --ignore 'addone' \
                                     --pct 20 --us 20000 "$t/kprof-bad.json" "$t/cupti.txt"
tmp=${TMPDIR:-/tmp}/kprof-compare-$$.txt
grep -v '^# end' "$t/cupti.txt" > "$tmp"
expect 1 "truncated CUPTI summary"   "$t/kprof.json" "$tmp"
rm -f "$tmp"
expect 2 "missing input"             "$t/does-not-exist.json" "$t/cupti.txt"
exit $fail
