#!/bin/sh
# kprof report --html's page, rendered by headless Chromium with every host name unresolvable (the page
# needs none): its text is there, and its bars are painted (a screenshot's pixels, read by python3): the
# top kernel's bar at its full 320 px, the copies' and devices' bars, and the two processes' bars of the
# kernel that ran 44 us in one and 88 us in the other, the second twice as tall.  Skipped (77) where no
# Chromium is installed.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
K=$top_builddir/tools/kprof
[ -x "$top_builddir/tools/kprof-report" ] || skip "kprof-report not built (configure found no jansson)"
browser=
for b in chromium chromium-browser chromium-headless-shell headless_shell google-chrome google-chrome-stable; do
    if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
[ -n "$browser" ] || skip "no Chromium installed (chromium, chromium-headless-shell or google-chrome)"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the screenshot"

export FAKEGPU_KERNEL_NS="scale_chunk=11000" FAKEGPU_COPY_PS_PER_BYTE=250
for c in 4 8; do
    KPROF_SAVE="$WORK/r$c.json" run_kprof "$KERNELS/stream_overlap" --no-verify --chunks $c --chunk-bytes 1048576 \
        >/dev/null 2>&1 || fail "stream_overlap --chunks $c failed"
done
"$K" report --html "$WORK/r4.json" "$WORK/r8.json" -o "$WORK/page.html" || fail "kprof report --html failed"

# Chromium, sandbox off (tests may run as root), its own profile, no network to speak of.
chrome() {
    timeout -k 10 120 env HOME="$WORK" "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$WORK/profile" --host-resolver-rules='MAP * ~NOTFOUND' --hide-scrollbars \
        --force-device-scale-factor=1 "$@" 2>>"$WORK/chrome.err"
}
chrome --dump-dom "file://$WORK/page.html" >"$WORK/dom.html" || { tail -5 "$WORK/chrome.err" >&2; fail "Chromium could not load the page"; }
for t in 'Top kernels by total GPU time' 'scale_chunk(float*, unsigned long)' 'Copies by direction' \
         'Device busy share of wall time' 'Kernel time per process'; do
    grep -qF "$t" "$WORK/dom.html" || fail "Chromium's page lacks '$t'"
done
pass "Chromium loads the page, with its sections and the kernel's name"
chrome --screenshot="$WORK/shot.png" --window-size=1400,1400 "file://$WORK/page.html" >/dev/null ||
    { tail -5 "$WORK/chrome.err" >&2; fail "Chromium could not take a screenshot"; }
[ -s "$WORK/shot.png" ] || fail "no screenshot"

# The screenshot's pixels: for each bar colour of the page's style, the longest horizontal run and the
# heights of the vertical runs (columns of that colour), as "colour longest_run heights...".
python3 - "$WORK/shot.png" >"$WORK/bars" <<'PY' || fail "the screenshot could not be read"
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
colours = {'kernel': (0x3b, 0x6f, 0xb6), 'copy': (0x2a, 0x9d, 0x8f), 'busy': (0xe7, 0x6f, 0x51), 'proc': (0x7b, 0x5e, 0xa7)}
for name, rgb in colours.items():
    px = [[tuple(r[x * bpp:x * bpp + 3]) == rgb for x in range(w)] for r in rows]
    longest = 0
    for r in px:
        run = 0
        for v in r:
            run = run + 1 if v else 0
            longest = max(longest, run)
    heights = set()
    for x in range(w):
        run = 0
        for y in range(h):
            if px[y][x]: run += 1
            elif run: heights.add(run); run = 0
        if run: heights.add(run)
    print(name, longest, *sorted(heights))
PY
cat "$WORK/bars"
expect_eq "$(awk '$1 == "kernel" {print $2}' "$WORK/bars")" 320 "the top kernel's bar is painted at its full 320 px"
for c in copy busy; do
    [ "$(awk -v c=$c '$1 == c {print $2}' "$WORK/bars")" -ge 1 ] || fail "no $c bar painted"
done
pass "the copies' and the devices' bars are painted"
# The per-process bars of scale_chunk: 19 + 1 and 38 + 1 px tall (heights 38 * 44/88 and 38, plus 1).
awk '$1 == "proc" {for (i = 3; i <= NF; i++) print $i}' "$WORK/bars" >"$WORK/heights"
grep -qx 20 "$WORK/heights" && grep -qx 39 "$WORK/heights" ||
    fail "scale_chunk's per-process bars are not 20 and 39 px tall: $(tr '\n' ' ' <"$WORK/heights")"
pass "the per-process bars: one twice as tall as the other (44 and 88 us)"
