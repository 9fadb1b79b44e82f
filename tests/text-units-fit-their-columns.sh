#!/bin/sh
# The text report's time units: each column (or group of columns sharing one unit: the kernels table's
# First to StdDev, its Host med and p95 (a new user read "Host med (ns) 157.000, Host p95 (us) 0.466"), its
# Queue med and p95) reads in the largest unit in which its largest value is at least 1, stepping down to a
# smaller unit only to keep nonzero values from reading 0.000, and only while no value then has more than
# 4 integer digits.  A time in ns is written in whole ns, in the larger units with 3 decimals.  Kernels on the fake GPU from 40 ns to 20 ms (reduce: 21 launches of each kernel).
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
# The choice itself (units.h), with ns whole: a value below 0.5 ns reads 0 and one of 9999.5 ns or more has 5
# digits in ns, so those do not take a column to ns (a breaker helper: "10000 ns" and "0 ns" beside it).
"$top_builddir/tests/progs/units_test" >"$WORK/units" 2>&1 || fail "units_test: $(grep FAIL "$WORK/units")"
pass "units_test: $(grep -c '^ok' "$WORK/units") checks"

# time_cells TABLE-SECTION REPORT: "name unit cell..." per time column of the section's table (name: the
# header's last word before its unit, Host_med for "Host med" and the like), the cells in row order.  Numbers are right-aligned: a cell is the
# word that ends where its header's "(unit)" ends.
time_cells() {
    awk -v sec="== libkprof: $1 ==" '
        $0 == sec { on = 1; next }
        on && /^== libkprof: / { exit }
        on && head == "" { head = $0; rest = $0; off = 0
                           while (match(rest, /((Host|Queue) )?[A-Za-z0-9%()]+ \([a-z]+\)/)) {
                               t = substr(rest, RSTART, RLENGTH); nw = split(t, w, " ")
                               name[++c] = nw == 3 ? w[1] "_" w[2] : w[1]; unit[c] = substr(w[nw], 2, length(w[nw]) - 2)
                               end[c] = off + RSTART + RLENGTH - 1
                               off += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH) }
                           next }
        on { row = 1   # a row: a number or "-" where each time column ends (not a note under the table)
             for (k = 1; k <= c; k++) { x[k] = substr($0, 1, end[k]); sub(/.* /, "", x[k]); if (x[k] !~ /^(-|[0-9]+(\.[0-9]+)?)$/) row = 0 }
             if (row) for (k = 1; k <= c; k++) cells[k] = cells[k] " " x[k] }
        END { for (k = 1; k <= c; k++) print name[k], unit[k] cells[k] }' "$2"
}

# check REPORT TABLE: every time column of TABLE: no cell with more than 4 integer digits (but in s), and
# a cell reading 0.000 only where the next smaller unit would give some cell of its group 5 digits (the
# group: the column itself, or the kernels table's First to StdDev, Host med and p95, Queue med and p95, or
# the devices table's Kernel sum and Busy, or the api table's Avg to Max, which must also read in one unit; StdDev cells are 0 on the fake, which reads 0.000 in any unit,
# and are left out of that check, as are the host and queue times: a queue time of 0 (an idle stream)
# reads 0.000 beside another over 1 ms on a loaded machine).
check() {
    time_cells "$2" "$1" >"$WORK/cells"
    [ -s "$WORK/cells" ] || { cat "$1" >&2; fail "$2: no time column"; }
    awk -v table="$2" '
        function grp(name) {
            if (table == "kernels" && name ~ /^(First|Avg|Med|p95|p99|Min|Max|StdDev)$/) return "launch"
            if (table == "kernels" && name ~ /^Host_/) return "host"
            if (table == "kernels" && name ~ /^Queue_/) return "queue"
            if (table == "devices" && name ~ /^(sum|Busy)$/) return "device"
            if (table == "api" && name ~ /^(Avg|Med|Min|Max)$/) return "call"
            return name }
        { g = grp($1); unit[NR] = $2; name[NR] = $1; line[NR] = $0
          if (g in gunit && gunit[g] != $2) { print "FAIL: " table ": " $1 " in " $2 ", its group in " gunit[g]; bad = 1 }
          gunit[g] = $2
          for (i = 3; i <= NF; i++) if ($i != "-") {
              split($i, p, "."); if (length(p[1]) > 4 && $2 != "s") { print "FAIL: " table ": " $1 " reads " $i " " $2; bad = 1 }
              # whole ns (a new user read 171.000 ns as precise), 3 decimals in larger units
              if (($2 == "ns") != ($i !~ /\./) || ($2 != "ns" && $i !~ /\.[0-9][0-9][0-9]$/)) {
                  print "FAIL: " table ": " $1 " reads " $i " " $2 " (whole ns, 3 decimals in larger units)"; bad = 1 }
              if ($i + 0 > gmax[g]) gmax[g] = $i + 0 } }
        END {
            for (r = 1; r <= NR; r++) {
                split(line[r], f, " "); g = grp(name[r])
                for (i = 3; i in f; i++) if (f[i] == "0.000" && name[r] != "StdDev" && name[r] !~ /^(Host|Queue)_/ && unit[r] != "ns" && gmax[g] * 1000 < 9999.9995) {
                    print "FAIL: " table ": " name[r] " reads 0.000 " unit[r] " where a smaller unit fits its group"; bad = 1 }
            }
            exit bad }' "$WORK/cells" || { cat "$1" >&2; fail "$2: units do not fit their columns"; }
    pass "$2: every time column in a unit that fits it"
}
# units TABLE REPORT: the header units of the table's time columns, "Name:unit ..." (Name: the header's last word).
# (Without the host's clock: the launch call's host time and the queue time columns, whose units depend on
# the host's speed, left out.)
units() { time_cells "$1" "$2" | grep -v '^\(Host\|Queue\)_' | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $1, $2 }'; }

# Kernels from 40 ns to 2.5 ms a launch: totals of 840 ns and 52.5 ms (in ms: 0.001 and 52.500), per-launch
# figures in us (in ms the 40 ns kernel would read 0.000; in us the 2.5 ms one reads 2500.000).
FAKEGPU_KERNEL_NS="reduce_blocks=2500000,reduce_final=40" KPROF_OUTPUT="$WORK/a.txt" \
    run_kprof "$KERNELS/reduce" --no-verify >/dev/null
expect_eq "$(units kernels "$WORK/a.txt")" \
    "Total:ms First:us Avg:us Med:us p95:us p99:us Min:us Max:us StdDev:us" "kernels table units, 40 ns to 2.5 ms"
expect_grep ' 0\.001 +21 +21 +0\.040 +0\.040 ' "$WORK/a.txt" "the 40 ns kernel: total 0.001 ms, per launch 0.040 us"
expect_grep ' 52\.500 +21 +21 +2500\.000 +2500\.000 ' "$WORK/a.txt" "the 2.5 ms kernel: total 52.500 ms, per launch 2500.000 us"
expect_eq "$(units devices "$WORK/a.txt")" "sum:ms Busy:ms Wall:s" "devices table units (Kernel sum, Busy, Wall)"
check "$WORK/a.txt" kernels
check "$WORK/a.txt" devices

# 100 ns to 20 ms a launch: per launch, us would give the 20 ms kernel 5 integer digits, so ms, and the 100
# ns kernel reads 0.000 (more than 4 integer digits is the worse of the two).
FAKEGPU_KERNEL_NS="reduce_blocks=20000000,reduce_final=100" KPROF_OUTPUT="$WORK/b.txt" \
    run_kprof "$KERNELS/reduce" --no-verify >/dev/null
expect_eq "$(units kernels "$WORK/b.txt")" \
    "Total:ms First:ms Avg:ms Med:ms p95:ms p99:ms Min:ms Max:ms StdDev:ms" "kernels table units, 100 ns to 20 ms"
expect_grep ' 0\.002 +21 +21 +0\.000 +0\.000 ' "$WORK/b.txt" "the 100 ns kernel: total 0.002 ms, per launch 0.000 ms"
check "$WORK/b.txt" kernels

# 1 us kernels (the fake's default): 1.000 us, not 1000.000 ns beside a total in us.
KPROF_OUTPUT="$WORK/c.txt" run_kprof "$KERNELS/reduce" --no-verify >/dev/null
expect_eq "$(units kernels "$WORK/c.txt")" \
    "Total:us First:us Avg:us Med:us p95:us p99:us Min:us Max:us StdDev:us" "kernels table units, 1 us"
expect_grep ' 21\.000 +21 +21 +1\.000 +1\.000 ' "$WORK/c.txt" "1 us kernels read 1.000 us"
for t in kernels copies devices api allocations context; do
    [ "$t" = context ] && t="context init"
    check "$WORK/c.txt" "$t"
done
