#!/bin/sh
# kprof report --html writes one self-contained page (no script, no src, href or url( to fetch anything)
# of saved reports: the top kernels by total GPU time with their calls, mean and (a kernel of one process)
# median host and queue times, the copies by direction,
# each device's busy share and, for several processes, each kernel's time per process with its imbalance
# (largest over mean); names are escaped.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
K=$top_builddir/tools/kprof
[ -x "$top_builddir/tools/kprof-report" ] || skip "kprof-report not built (configure found no jansson)"
export FAKEGPU_KERNEL_NS="scale_chunk=11000" FAKEGPU_COPY_PS_PER_BYTE=250
# Two processes: 4 and 8 launches of scale_chunk (44 and 88 us: imbalance 88 / 66 = 1.33).
for c in 4 8; do
    KPROF_SAVE="$WORK/r$c.json" run_kprof "$KERNELS/stream_overlap" --no-verify --chunks $c --chunk-bytes 1048576 \
        >/dev/null 2>&1 || fail "stream_overlap --chunks $c failed"
done
"$K" report --html "$WORK/r4.json" "$WORK/r8.json" -o "$WORK/page.html" 2>"$WORK/err" || fail "kprof report --html failed: $(cat "$WORK/err")"
expect_eq "$(cat "$WORK/err")" "" "nothing on stderr"
P=$WORK/page.html
expect_grep '^<!DOCTYPE html>' "$P" "an HTML page"
expect_no_grep '<script|<link|<iframe|<img|<object|<embed|@import' "$P" "no script, link or embedded resource"
expect_no_grep '(src|href)[[:space:]]*=' "$P" "no src or href"
expect_no_grep 'url\(' "$P" "no url("
expect_grep '<svg' "$P" "inline SVG"
# Top kernels: the kernel, its total, calls and mean.
expect_grep '<td class="name">scale_chunk\(float\*, unsigned long\)</td><td class="num">132\.000 us</td>.*<td class="num">12</td><td class="num">11\.000 us</td><td class="num">-</td><td class="num">-</td>' \
    "$P" "scale_chunk: 132 us in 12 calls, 11 us each; in two processes, no host or queue median"
# Copies by direction.
expect_grep '<td class="name">HtoD</td><td class="num">12</td><td class="num">12\.00 MiB</td>' "$P" "HtoD: 12 copies of 12 MiB in all"
expect_grep '<td class="name">DtoH</td><td class="num">12</td>' "$P" "DtoH: 12 copies"
# Devices: one row per process, its busy share.
for c in 4 8; do
    pid=$(jqr .pid "$WORK/r$c.json")
    expect_grep "<td class=\"name\">$pid@[^<]*</td><td class=\"num\" [^>]*>0</td>.*<td class=\"num\">[0-9.]+%</td></tr>" "$P" "device 0 of process $pid: its busy share"
done
# Per process: two bars, 44 and 88 us, imbalance 1.33.
expect_grep 'Kernel time per process' "$P" "a per-process section for two reports"
expect_grep "<td class=\"name\">scale_chunk\(float\*, unsigned long\)</td><td class=\"num\">1\.33</td>" "$P" "scale_chunk: imbalance 1.33"
expect_grep "<title>$(jqr .pid "$WORK/r4.json")@[^<]*: 44\.000 us</title>.*<title>$(jqr .pid "$WORK/r8.json")@[^<]*: 88\.000 us</title>" \
    "$P" "scale_chunk: 44 us in one process, 88 us in the other"

# One report: no per-process section.
"$K" report --html "$WORK/r4.json" >"$WORK/one.html" || fail "kprof report --html of one report failed"
expect_no_grep 'Kernel time per process' "$WORK/one.html" "one report: no per-process section"
expect_grep 'Process: .*stream_overlap \(pid [0-9]+\) on ' "$WORK/one.html" "one report: its process"
expect_grep '<th>Mean</th><th>Host med</th><th>Queue med</th>' "$WORK/one.html" "one report: host and queue medians"
expect_grep '<td class="name">scale_chunk\(float\*, unsigned long\)</td>.*<td class="num">11\.000 us</td><td class="num">[0-9.]+ [num]?s</td><td class="num">[0-9.]+ [num]?s</td>' \
    "$WORK/one.html" "scale_chunk: its host and queue medians"

# Names are escaped: no markup from a kernel's name.
jq '.kernels[0].name = "k<script>x(\"1\")</script>&\n"' "$WORK/r4.json" >"$WORK/evil.json"
"$K" report --html "$WORK/evil.json" >"$WORK/evil.html" || fail "kprof report --html of a hostile name failed"
expect_no_grep '<script' "$WORK/evil.html" "a name's markup is not markup"
expect_grep 'k&lt;script&gt;x\(&quot;1&quot;\)&lt;/script&gt;&amp;\\n' "$WORK/evil.html" "a name is escaped (and its newline shown as \\n)"

# --top: kernels in the page; -f and --html together is a usage error.
unset FAKEGPU_KERNEL_NS
KPROF_SAVE="$WORK/g.json" run_kprof "$KERNELS/graph_replay" >/dev/null 2>&1 || fail "graph_replay failed"
n=$(jq '.kernels | length' "$WORK/g.json")
"$K" report --html --top 1 "$WORK/g.json" >"$WORK/top.html" || fail "kprof report --html --top 1 failed"
expect_grep "^<p class=\"note\">$((n - 1)) more kernels? not shown \(--top\)\.</p>$" "$WORK/top.html" "--top 1: one kernel of $n shown"
# A mean of 1 us (the fake's default kernel) reads as the text report writes it (a new user's trial: the
# page said 1000.000 ns where the text said 1.000 us).
expect_grep '<td class="num">1\.000 us</td><td class="num">[0-9.]+ [num]?s</td>' "$WORK/top.html" "a mean of 1 us in us"
expect_no_grep '1000\.000 ns' "$WORK/top.html" "never 1000.000 ns"
rc=0; "$K" report --html -f text "$WORK/r4.json" >/dev/null 2>"$WORK/err" || rc=$?
expect_eq "$rc" 2 "--html with -f: a usage error"
