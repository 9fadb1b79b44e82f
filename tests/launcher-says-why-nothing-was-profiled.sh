#!/bin/sh
# Through kprof, a run that profiled nothing ends with one line saying why, not in silence: a program
# that cannot be run gets a kprof: line, not the shell's words.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels
K=$top_builddir/tools/kprof
for v in $(env | sed -n 's/^\(KPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = KPROF_TEST_TIMEOUT ] || unset "$v"
done
kp() { env FAKEGPU_EVENT_PENDING_QUERIES=1 LD_LIBRARY_PATH="${LIBS:-$FAKE_LIB}" LD_PRELOAD="$SAN_PRELOAD" "$K" "$@"; }

# cannot PROGRAM STATUS: kprof cannot run it: exit status STATUS and one kprof: line.
cannot() {
    rc=0; (cd "$WORK" && "$K" "$1") >"$WORK/out" 2>"$WORK/err" || rc=$?
    expect_eq "$rc" "$2" "kprof $1: exit status $2"
    expect_eq "$(wc -l <"$WORK/err" | tr -d ' ')" 1 "kprof $1: one line ($(cat "$WORK/err"))"
    expect_grep "^kprof: cannot run '$1'" "$WORK/err" "kprof $1: a kprof: message"
}
printf 'echo ran\n' >"$WORK/not-executable"
mkdir "$WORK/a-directory"
printf '#!/no/such/interpreter\necho ran\n' >"$WORK/bad-interpreter"; chmod +x "$WORK/bad-interpreter"
cannot ./does-not-exist 127
cannot does-not-exist-anywhere 127
cannot ./not-executable 126
cannot ./a-directory 126
cannot ./bad-interpreter 127
# The kernel alone knows a file it cannot execute: the shell's line, then kprof's.
printf '\177ELF not really' >"$WORK/bad-elf"; chmod +x "$WORK/bad-elf"
rc=0; (cd "$WORK" && "$K" ./bad-elf) 2>"$WORK/err" || rc=$?
expect_eq "$rc" 126 "kprof ./bad-elf: exit status 126"
expect_grep "^kprof: cannot run './bad-elf'" "$WORK/err" "kprof ./bad-elf: a kprof: message"

