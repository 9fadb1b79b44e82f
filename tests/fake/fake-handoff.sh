#!/bin/sh
# fake-handoff.sh: the fake driver's hand-off before a kernel on a busy stream (FAKEGPU_HANDOFF_NS), lazy
# loading (FAKEGPU_LAZY_LOAD_NS, cuFuncLoad, cuFuncIsLoaded), libkprof's kprof_calibrate kernel
# (FAKEGPU_CALIB_C0_NS) and conditional graph nodes (FAKEGPU_WHILE_ITERS), timed by progs/handoffapp with
# event pairs; and that all of it is off by default.
# Usage: fake-handoff.sh [BUILDDIR]   (BUILDDIR: the build's tests/fake, holding lib/ and progs/)
NAME=fake-handoff FAKE_TIMEOUT=60
. "$(dirname "$0")/fake-lib.sh"

export FAKEGPU_KERNEL_NS='body1=1100,body2=1200,default=1000'

same() { # same NAME: $tmp/NAME.out is the expected text on stdin
    cat > "$tmp/$1.expected"
    if diff -u "$tmp/$1.expected" "$tmp/$1.out" > "$tmp/$1.diff" 2>&1; then pass "times of $1"; else
        fail "times of $1:"; cat "$tmp/$1.diff"; fi
}

# Off by default: every event pair holds just its kernel.
runp off -- "$B/progs/handoffapp"
same off <<'END'
first-launch 1000
idle 1000
behind-kernel 1000
behind-htod 1000
behind-dtoh 1000
behind-dtod 1000
behind-htoh 1000
behind-memset 1000
behind-wait 1000
after-query 1000
query-before-work 1000
after-stream-query 1000
after-stream-sync 1000
after-ctx-sync 1000
lazy-loaded-before 0
lazy-first 1000
lazy-loaded-after 1
lazy-second 1000
preloaded-loaded 1
preloaded-first 1000
lib-loaded-before 0
lib-first 1000
lib-loaded-after 1
lazy-loaded-other-ctx 0
calib-idle 5000
calib-span 4400
calib-behind-memset 5000
calib-span2 4400
calib-start-advanced 1
if-true 1000
behind-graph 1000
if-nodes 1
if-node-type 13
clone-node-type 13
clone-node-differs 1
find-in-non-clone 1
if-false-else 1100
if-false 0
while 3000
switch-2 1200
switch-none 0
END
truth off <<'END'
kernel app_kernel 21 21000
kernel body0_kernel 5 5000
kernel body1_kernel 1 1100
kernel body2_kernel 1 1200
kernel kprof_calibrate 2 10000
kernel lazy_kernel 2 2000
kernel lib_kernel 1 1000
kernel preloaded_kernel 1 1000
copy HtoD 1 64
copy DtoH 3 96
copy DtoD 1 32
copy HtoH 1 64
memset 2 128
alloc device 2 80
alloc host 0 0
alloc managed 0 0
END

# On: each pair behind unseen work also holds that work's hand-off; a first launch holds the load.
runp on FAKEGPU_HANDOFF_NS=kernel=2000,htod=4800,dtoh=4700,dtod=4600,memset=4500,wait=2100 \
    FAKEGPU_LAZY_LOAD_NS=30000 FAKEGPU_CALIB_C0_NS=250 FAKEGPU_WHILE_ITERS=5 -- "$B/progs/handoffapp"
same on <<'END'
first-launch 31000
idle 1000
behind-kernel 3000
behind-htod 5800
behind-dtoh 5700
behind-dtod 5600
behind-htoh 5600
behind-memset 5500
behind-wait 3100
after-query 1000
query-before-work 3000
after-stream-query 1000
after-stream-sync 1000
after-ctx-sync 1000
lazy-loaded-before 0
lazy-first 31000
lazy-loaded-after 1
lazy-second 1000
preloaded-loaded 1
preloaded-first 1000
lib-loaded-before 0
lib-first 31000
lib-loaded-after 1
lazy-loaded-other-ctx 0
calib-idle 5000
calib-span 4750
calib-behind-memset 9500
calib-span2 4750
calib-start-advanced 1
if-true 1000
behind-graph 3000
if-nodes 1
if-node-type 13
clone-node-type 13
clone-node-differs 1
find-in-non-clone 1
if-false-else 1100
if-false 0
while 5000
switch-2 1200
switch-none 0
END

# A bad entry is warned about and ignored; the others still apply.
runp bad FAKEGPU_HANDOFF_NS=kernel=2000,bogus=7,memset=x -- "$B/progs/handoffapp"
expect "bad FAKEGPU_HANDOFF_NS entry warned about" "$tmp/bad.out" "FAKEGPU_HANDOFF_NS entry 'bogus' is not kind=ns"
expect "the good entry still applies" "$tmp/bad.out" "^behind-kernel 3000$"
expect "the bad memset entry is 0" "$tmp/bad.out" "^behind-memset 1000$"

exit $status
