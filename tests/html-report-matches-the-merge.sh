#!/bin/sh
# kprof report --html of several reports reads each kernel's imbalance and each process as the merged
# summary does (a breaker helper: a kernel run by one process of three read 3.00 on the page and 1.00 in
# kprof-merge's summary, the page counted a report given twice as two processes, and named processes
# without their rank).
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
R=$top_builddir/tools/kprof-report
[ -x "$R" ] || skip "kprof-report not built (configure found no jansson)"
RANK=0 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r0.json" run_kprof "$PROGS/named" kA kB >/dev/null 2>&1 || fail "rank 0 failed"
RANK=1 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r1.json" run_kprof "$PROGS/named" kA >/dev/null 2>&1 || fail "rank 1 failed"
RANK=2 KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r2.json" run_kprof "$PROGS/named" kA >/dev/null 2>&1 || fail "rank 2 failed"
"$R" --html "$WORK/r0.json" "$WORK/r1.json" "$WORK/r2.json" "$WORK/r1.json" >"$WORK/page.html" 2>"$WORK/err" ||
    fail "kprof report --html failed: $(cat "$WORK/err")"
expect_grep "^kprof: .*r1\.json: process [0-9]+@[^ ]+ again \(its report is .*r1\.json\); skipped\$" "$WORK/err" \
    "a report given twice: skipped, as kprof-merge does"
expect_grep '<td class="name">kB</td><td class="num">1\.00</td>' "$WORK/page.html" "kB, run by one process: imbalance 1.00"
expect_grep '<td class="name">kA</td><td class="num">1\.00</td>' "$WORK/page.html" "kA, alike in three: 1.00"
expect_grep 'rank 1 [0-9]+@' "$WORK/page.html" "processes named with their rank"
expect_no_grep 'rank 2 [0-9]+@[^<]*</title>.*rank 2 [0-9]+@[^<]*</title>.*rank 2 [0-9]+@[^<]*</title>.*rank 2 [0-9]+@' \
    "$WORK/page.html" "no process twice"
"$top_builddir/tools/kprof-merge" -f json "$WORK/r0.json" "$WORK/r1.json" "$WORK/r2.json" >"$WORK/m.json" 2>/dev/null ||
    fail "kprof-merge failed"
expect_eq "$(jq -c '[.kernels[] | select(.name == "kB") | .imbalance]' "$WORK/m.json")" '[1]' "kprof-merge: kB 1.00 too"
