#!/bin/sh
# libkprof.so exports only the CUDA entry points it interposes, dlsym and dlclose (-fvisibility=hidden),
# and every runtime and driver function of src/api.def is among them.  dlclose passes straight through to
# glibc's and then notices when the libcudart whose functions libkprof holds has been unloaded.  dlsym is exported under glibc's two version
# nodes (dlsym@@GLIBC_2.34, dlsym@GLIBC_2.2.5), the CUDA names unversioned.  One data symbol more,
# kprof_instance_marker (read-only), marks a copy of libkprof for a second copy and for libkprof's dlsym.
# And CUPTI's six activity switches, passed through to CUPTI (src/hook/hook_cupti.c), and the exec family,
# which writes the report before the process image is replaced (src/hook/hook_exec.c).
. "${top_srcdir:-..}/tests/lib.sh"
nm -D --defined-only "$KPROF_LIB" | awk '$2 ~ /^[TtWDBRr]$/ {print $3}' | sort >"$WORK/exports"
expect_no_grep '^(kprof|_kprof)' "$(grep -v '^kprof_instance_marker$' "$WORK/exports" >"$WORK/others"; echo "$WORK/others")" \
    "no internal symbol exported"
expect_eq "$(grep -c '^kprof_instance_marker$' "$WORK/exports")" 1 "the instance marker exported"
cupti='^cupti(ActivityEnable|ActivityEnableAndDump|ActivityDisable|ActivityEnableContext|ActivityDisableContext|Finalize)$'
expect_eq "$(grep -Ec "$cupti" "$WORK/exports")" 6 "CUPTI's activity switches exported"
exec_family='^(execve|execv|execvp|execvpe|execl|execlp|execle|fexecve)$'
expect_eq "$(grep -Ec "$exec_family" "$WORK/exports")" 8 "the exec family exported"
bad=$(grep -Ev '^(__cuda|cuda|cu[A-Z]|dlsym@@GLIBC_2\.34$|dlsym@GLIBC_2\.2\.5$|dlclose$|kprof_instance_marker$)' "$WORK/exports" |
    grep -Ev "$cupti" | grep -Ev "$exec_family" |
    grep -Ev '^(_init|_fini|__bss_start|_edata|_end)$' || true)
expect_eq "$bad" "" "nothing but CUDA names, dlsym, dlclose, the exec family and the instance marker"
expect_eq "$(grep -c '^dlsym@' "$WORK/exports")" 2 "dlsym under both versions"
expect_eq "$(grep -c '^dlclose$' "$WORK/exports")" 1 "dlclose exported"
expect_no_grep '^(__cuda|cuda|cu[A-Z]).*@' "$WORK/exports" "no CUDA name versioned"
sed -n 's/^KPROF_RUNTIME_WRAPPED(\([A-Za-z0-9_]*\),.*/\1/p; s/^KPROF_DRIVER_WRAPPED(\([A-Za-z0-9_]*\),.*/\1/p' "$top_srcdir/src/api.def" | sort >"$WORK/table"
missing=$(comm -23 "$WORK/table" "$WORK/exports")
expect_eq "$missing" "" "every api.def entry exported"
expect_eq "$(wc -l <"$WORK/table" | tr -d ' ')" "$(grep -Ev '^(dlsym@|dlclose$|kprof_instance_marker$)' "$WORK/exports" | grep -Ev "$exec_family" | grep -Evc "$cupti")" "and nothing else"
