#!/bin/sh
# fake-robust.sh: runs the programs the profiler's robustness tests use (stream capture and graphs, a device
# reset with work in flight, two devices, fork, many threads) against the fake stack, without libkprof, and
# checks their exit status, output and ground-truth files.
# Usage: fake-robust.sh [BUILDDIR]   (BUILDDIR: the build's tests/fake, holding lib/ and progs/)
NAME=fake-robust FAKE_TIMEOUT=300
. "$(dirname "$0")/fake-lib.sh"

# No copies, memsets or allocations: the tail of most truth files.
nothing_else() {
    cat <<'END'
copy HtoD 0 0
copy DtoH 0 0
copy DtoD 0 0
copy HtoH 0 0
memset 0 0
alloc device 0 0
alloc host 0 0
alloc managed 0 0
END
}

# --- graphapp: 5 captured launches replayed 10 times, 4 direct ones
runp graphapp -- "$B/progs/graphapp"
expect "graphapp's capture was active" "$tmp/graphapp.out" '^capture: active, id [1-9]'
expect "graphapp's graph has 5 nodes" "$tmp/graphapp.out" '^capture: ended, 5 nodes$'
{ printf 'kernel _Z6directv 4 4000\nkernel _Z8graph_k1v 30 30000\nkernel _Z8graph_k2v 20 20000\n'; nothing_else; } |
    truth graphapp

# --- graphapp rules: the capture rules (unsafe calls, modes, legacy stream, event-record nodes)
runp graphapp-rules -- "$B/progs/graphapp" rules
expect "graphapp rules all hold" "$tmp/graphapp-rules.out" '^rules: ok$'
expect "a graph launched into a capture is a child graph node" "$tmp/graphapp-rules.out" \
    '^rules: child graph node holds _Z8graph_k1v$'
expect "a replayed graph stamps its event-record nodes" "$tmp/graphapp-rules.out" \
    '^rules: replayed graph.s events are 0.002000 ms apart$'
truth graphapp-rules <<'END'
kernel _Z6directv 1 1000
kernel _Z8graph_k1v 2 2000
kernel _Z8graph_k2v 3 3000
copy HtoD 0 0
copy DtoH 0 0
copy DtoD 0 0
copy HtoH 0 0
memset 0 0
alloc device 2 512
alloc host 0 0
alloc managed 0 0
END

# --- resetapp: cudaDeviceReset with launches in flight, then a fresh primary context
runp resetapp -- "$B/progs/resetapp"
expect "resetapp gets a new context handle" "$tmp/resetapp.out" '^resetapp: context handle new$'
# (16 MiB of device memory and 1 MiB pinned before the reset, 16 MiB of device memory after it.)
{ printf 'kernel _Z5afterv 3 3000\nkernel _Z6beforev 5 5000\n'; nothing_else |
    sed 's/^alloc device 0 0$/alloc device 2 33554432/; s/^alloc host 0 0$/alloc host 1 1048576/'; } | truth resetapp
runp resetapp-reuse FAKEGPU_REUSE_CTX_HANDLE=1 -- "$B/progs/resetapp"
expect "FAKEGPU_REUSE_CTX_HANDLE=1 reuses the handle" "$tmp/resetapp-reuse.out" '^resetapp: context handle reused$'
cp "$tmp/resetapp.expected" "$tmp/resetapp-reuse.expected.in"
truth resetapp-reuse < "$tmp/resetapp-reuse.expected.in"

# --- multigpu: two devices, a cross-device launch refused
runp multigpu FAKEGPU_DEVICES=2 -- "$B/progs/multigpu"
truth multigpu <<'END'
kernel _Z4dev0v 3 3000
kernel _Z4dev1v 2 2000
copy HtoD 1 4096
copy DtoH 0 0
copy DtoD 0 0
copy HtoH 0 0
memset 0 0
alloc device 2 8192
alloc host 0 0
alloc managed 0 0
END
env ${san:+LD_PRELOAD=$san} timeout 60 "$B/progs/multigpu" > "$tmp/multigpu1.out" 2>&1
if [ $? -eq 1 ] && grep -q 'needs 2 devices' "$tmp/multigpu1.out"; then pass "multigpu refuses one device"; else
    fail "multigpu with one device:"; sed 's/^/    /' "$tmp/multigpu1.out"; fi

# --- forkapp: the child exits (or execs) without touching CUDA; only the parent writes the truth file
for mode in exit exec; do
    runp "forkapp-$mode" -- "$B/progs/forkapp" $mode
    [ $mode = exit ] && expect "forkapp's child ran" "$tmp/forkapp-exit.out" '^forkapp: child exiting$'
    { printf 'kernel _Z6parentv 3 3000\n'; nothing_else; } | truth "forkapp-$mode"
done

# --- threads8x4: 8 threads x 4 streams x 1000 launches
runp threads8x4 -- "$B/progs/threads8x4"
{ printf 'kernel _Z6workerv 32000 32000000\n'; nothing_else; } | truth threads8x4

exit $status
