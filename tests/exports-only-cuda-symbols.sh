#!/bin/sh
# libkprof.so exports only the CUDA entry points it interposes, dlsym and dlclose (-fvisibility=hidden),
# and every runtime and driver function of src/api.def is among them.  dlsym hands out libkprof's driver
# wrappers; dlclose passes straight through to glibc's and then notices when the libcudart whose functions
# libkprof holds has been unloaded (a plugin unloaded and loaded again), so they are looked up again.
. "${top_srcdir:-..}/tests/lib.sh"
nm -D --defined-only "$KPROF_LIB" | awk '$2 ~ /^[TtWDB]$/ {print $3}' | sort >"$WORK/exports"
expect_no_grep '^(kprof|_kprof)' "$WORK/exports" "no internal symbol exported"
bad=$(grep -Ev '^(__cuda|cuda|cu[A-Z]|dlsym$|dlclose$)' "$WORK/exports" | grep -Ev '^(_init|_fini|__bss_start|_edata|_end)$' || true)
expect_eq "$bad" "" "nothing but CUDA names, dlsym and dlclose"
expect_eq "$(grep -cE '^(dlsym|dlclose)$' "$WORK/exports")" 2 "dlsym and dlclose exported"
sed -n 's/^KPROF_RT(\([A-Za-z0-9_]*\),.*/\1/p; s/^KPROF_DH(\([A-Za-z0-9_]*\),.*/\1/p' "$top_srcdir/src/api.def" | sort >"$WORK/table"
missing=$(comm -23 "$WORK/table" "$WORK/exports")
expect_eq "$missing" "" "every api.def entry exported"
expect_eq "$(wc -l <"$WORK/table" | tr -d ' ')" "$(grep -cEv '^(dlsym|dlclose)$' "$WORK/exports")" "and nothing else"
