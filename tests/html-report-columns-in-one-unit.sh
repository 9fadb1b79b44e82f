#!/bin/sh
# kprof report --html writes each column's times in one unit, chosen as the text report chooses its
# columns' (a helper found a kernel's Total in ns beside another's in us, and each Mean in a unit of its
# own: 8000.000 ns next to 1.000 us).  kA 0.5 us a launch, kB 50 us: Total and Mean each in us.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
R=$top_builddir/tools/kprof-report
[ -x "$R" ] || skip "kprof-report not built (configure found no jansson)"
FAKEGPU_KERNEL_NS="kA=500,kB=50000" KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" run_kprof "$PROGS/named" kA kB \
    >/dev/null 2>&1 || fail "named failed"
"$R" --html "$WORK/r.json" >"$WORK/page.html" 2>"$WORK/err" || fail "kprof report --html failed: $(cat "$WORK/err")"
row() { # row KERNEL: the kernel's Total and Mean cells, "Total|Mean"
    sed -n "s|.*<td class=\"name\">$1</td><td class=\"num\">\([^<]*\)</td><td>.*</td><td class=\"num\">[0-9]*</td><td class=\"num\">\([^<]*\)</td>.*|\1\|\2|p" "$WORK/page.html"
}
expect_eq "$(row kA)" "0.500 us|0.500 us" "kA: Total and Mean in us"
expect_eq "$(row kB)" "50.000 us|50.000 us" "kB: in us too"
"$R" "$WORK/r.json" >"$WORK/text" 2>&1 || fail "kprof report failed"
expect_grep 'Total \(us\) ' "$WORK/text" "the text report's Total column in us as well"
host() { sed -n "s|.*<td class=\"name\">$1</td>.*</td><td class=\"num\">[0-9.]* \([a-z]*\)</td><td class=\"num\">[^<]*</td><td class=\"num\">[0-9.]*%</td></tr>|\1|p" "$WORK/page.html"; }
expect_eq "$(host kA) $(host kB)" "us us" "Host med: one unit for both kernels"
# Several reports: the per-process table's Largest column in one unit too (a breaker helper: 50.000 us
# above 500.000 ns).
cp "$WORK/r.json" "$WORK/r2.json"
jq '.pid += 1' "$WORK/r.json" >"$WORK/r2.json"
"$R" --html "$WORK/r.json" "$WORK/r2.json" >"$WORK/two.html" 2>"$WORK/err" || fail "kprof report --html of two failed: $(cat "$WORK/err")"
largest=$(sed -n 's|.*</svg></td><td class="num">[0-9.]* \([a-z]*\)</td></tr>$|\1|p' "$WORK/two.html" | sort -u | tr '\n' ' ')
expect_eq "$largest" "us " "Largest: one unit for both kernels"
