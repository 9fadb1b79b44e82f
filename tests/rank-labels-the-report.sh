#!/bin/sh
# HPC runs: each rank writes its report, merged afterwards.  The rank its launcher gave the process
# (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, RANK: the first that holds a number; RANK first
# in a torchrun worker) labels
# the report (JSON "rank", the text's Process line, the trace's process name) and kprof-merge's processes
# ("rank N pid@host"), so that a merged summary's "Max on" names a rank, not a bare pid.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
unset OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK SLURM_PROCID RANK TORCHELASTIC_RUN_ID
P=$PROGS/chatty
run() { # run NAME VAR=VALUE...: the program's JSON report in $WORK/NAME.json
    name=$1; shift
    ( for a in "$@"; do export "$a"; done
      KPROF_FORMAT=json KPROF_OUTPUT="$WORK/$name.json" KPROF_TRACE="$WORK/$name.trace.json" run_kprof "$P" ) \
        >/dev/null 2>&1 || fail "$name: the program failed"
}
run none
expect_eq "$(jqr '.rank' "$WORK/none.json")" null "no launcher's rank: rank null"
run ompi OMPI_COMM_WORLD_RANK=3
expect_eq "$(jqr '.rank' "$WORK/ompi.json")" 3 "OMPI_COMM_WORLD_RANK=3: rank 3"
expect_eq "$(jq -r '.traceEvents[] | select(.name == "process_name") | .args.name' "$WORK/ompi.trace.json" | grep -c '(rank 3, pid [0-9]* on ')" 1 \
    "the trace's process named with its rank"
run slurm SLURM_PROCID=5 RANK=7
expect_eq "$(jqr '.rank' "$WORK/slurm.json")" 5 "SLURM_PROCID before RANK"
# A torchrun worker under srun (TORCHELASTIC_RUN_ID set): RANK, the worker's own; SLURM_PROCID is the
# node's task, the same for all its workers (a breaker helper).
run torchrun SLURM_PROCID=5 RANK=7 TORCHELASTIC_RUN_ID=none
expect_eq "$(jqr '.rank' "$WORK/torchrun.json")" 7 "under torchrun, RANK first"
run torch RANK=1
expect_eq "$(jqr '.rank' "$WORK/torch.json")" 1 "RANK (torchrun)"
run bad RANK=abc PMI_RANK=-2
expect_eq "$(jqr '.rank' "$WORK/bad.json")" null "values that are no rank number are passed over"
# Text, as written and as kprof report renders the JSON again.
"$top_builddir/tools/kprof" report "$WORK/ompi.json" >"$WORK/ompi.txt" 2>&1
expect_grep '^Process: .* \(pid [0-9]+, rank 3\) on ' "$WORK/ompi.txt" "the text report's Process line has the rank"
# Merged: the processes named by rank.
"$top_builddir/tools/kprof-merge" -f json "$WORK/ompi.json" "$WORK/torch.json" >"$WORK/merged.json" 2>"$WORK/merge.err" ||
    fail "kprof-merge failed: $(cat "$WORK/merge.err")"
expect_eq "$(jq -c '[.process_labels[] | sub("[0-9]+@.*"; "P")]' "$WORK/merged.json")" '["rank 3 P","rank 1 P"]' \
    "kprof-merge labels each process with its rank"
