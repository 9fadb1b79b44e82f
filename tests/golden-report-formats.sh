#!/bin/sh
# The report in all three formats and the Chrome trace, for stream_overlap on the fake GPU, against golden
# files in tests/golden/ (what varies from run to run: pid, host, wall and host times (the kernels' launch
# call host times and queue times among them: <host> where they have a value), event counts (created,
# one-event launches: they depend on when pairs are read; holds released after 1 ms of host time, which a
# loaded machine or a sanitizer build may take for a launch), stream addresses, the timeline's origin,
# the calibration's host time and its event-seen bound, is masked first; and the idle hand-off, which on
# the fake's own GPU clock is minus the calibration launch's host time).  UPDATE_GOLDEN=1 rewrites the golden files.
. "${top_srcdir:-..}/tests/lib.sh"
need_kernels; need_jq
G=$top_srcdir/tests/golden
export FAKEGPU_KERNEL_NS="scale_chunk=11000" FAKEGPU_COPY_PS_PER_BYTE=250
export KPROF_SEED=5 # the draws' seed, in the report (sample_seed)
run() { run_kprof "$KERNELS/stream_overlap" --no-verify --chunks 4 --chunk-bytes 1048576 >/dev/null; }

KPROF_TRACE="$WORK/trace.json" run 2>"$WORK/report.txt"
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/report.json" run
KPROF_FORMAT=csv KPROF_OUTPUT="$WORK/report" run

# Text: mask the process line, host times, wall time, event counts.
awk '
    /^== libkprof: / { section = $0; print; next }
    /^Process: / { print "Process: <masked>"; next }
    section ~ /context init/ && /^ +[0-9]+ +[0-9.]+ +[0-9.]+  / { $2 = "<time>"; $3 = "<time>"; print; next }
    section ~ /context init/ { gsub(/(Start|Host time) \([a-z]+\)/, "& (*)"); gsub(/\([a-z]+\) \(\*\)/, "(*)") }
    section ~ /allocations/ { gsub(/Host time \([a-z]+\)/, "Host time (*)"); if ($0 !~ /^Kind/) $0 = substr($0, 1, 55) "<masked>" substr($0, 71); print; next }
    section ~ /devices/ && /^ +[0-9]+ / { $6 = "<s>"; $7 = "<%>"; print; next }
    section ~ /api/ { if ($0 ~ /^ +Calls/) print "Calls Errors API"; else print $1, $2, $NF; next }
    section ~ /events/ && /^(Held longer|Read with an offset|Read as their|Queries left out|Idle-stream queries left out)/ { next }
    section ~ /events/ { sub(/created [0-9]+/, "created <n>"); sub(/one event \(at their stream.s last stop\) [0-9]+/, "one event (at their stream\047s last stop) <n>"); sub(/held until queued [0-9]+ \(behind other work [0-9]+\)/, "held until queued <n> (behind other work <n>)"); sub(/beside another busy stream [0-9]+/, "beside another busy stream <n>")
                         sub(/ \([0-9.]+ ms\): taken off/, " (<ms>): taken off"); sub(/; an event is seen complete [0-9.]+ us after its record, at least/, "")
                         sub(/\(us\): idle -?[0-9.]+ /, "(us): idle <idle> ") }
    { print }' "$WORK/report.txt" |
    sed -E 's/(Host|Queue) (med|p95) \([a-z]+\)/\1 \2 (*)/g; s/( +[0-9]+(\.[0-9]{3})?){4}(  [^ ])/ <host> <host> <host> <host>\3/' >"$WORK/report.txt.norm"
# JSON: drop what varies; the calibration's hand-offs in whole ns (written exactly, they carry the float
# noise of cuEventElapsedTime's milliseconds).
jq -S 'del(.pid, .rank, .host, .command, .wall_ns, .version) | .context_init[].host_ns = 0 | .context_init[].start_ns = 0
       | .allocations[].host_ns = 0 | .api |= map({name, calls, errors}) | .events.created = 0 | .events.one_event = 0 | .events.held = 0 | .events.held_kernel = 0 | .events.beside_busy = 0 | .events.holds_overdue = 0
       | .events.unheld_drawn = 0 | .events.gap_shared = 0 | .events.unheld_unlearned = 0 | .events.stop_idle = 0
       | .events.queries_unasked = 0 | .events.queries_unasked_held = 0 | .events.queries_unasked_not_drawn = 0 | .calibration[].cost_ns = 0 | .calibration[].seen_ns = 0
       | (.kernels, .graphs) |= map(with_entries(if (.key | test("^(launch_host|queue)_ns_")) and .value != null then .value = 0 else . end))
       | .calibration[].handoff_ns |= map_values(if . == null then null else round end) | .calibration[].handoff_shared_ns |= map_values(if . == null then null else round end)
       | .calibration[].handoff_ns.idle |= (if . == null then null else 0 end) | .calibration[].handoff_shared_ns.idle |= (if . == null then null else 0 end)' \
    "$WORK/report.json" >"$WORK/report.json.norm"
# Trace: times relative to the first event, in time order (pairs are read in no set order across
# streams), stream names without their addresses; the pid (every event's) and the process name (command,
# pid, host) masked; what was taken off a kernel's pair, after what and how it was read, dropped (whether a launch shared
# its start depends on when the harvester asked).
jq -S '.traceEvents as $e | ([$e[] | select(.ph == "X") | .ts] | min) as $t0
       | {otherData: (.otherData | del(.pid, .start_us)),
          traceEvents: ([$e[] | select(.ph == "M") | .pid = "<pid>" | if .name == "thread_name"
                                 then .args.name |= sub(" \\(0x[0-9a-f]+\\)"; "")
                                 else .args.name |= sub("^.*/stream_overlap \\(pid [0-9]+ on .*\\)$"; "stream_overlap (pid <pid> on <host>)") end]
                        + ([$e[] | select(.ph == "X") | .pid = "<pid>" | .ts = ((.ts - $t0) * 1000 | round / 1000)
                            | del(.args.after, .args.read, .args.taken_off_ns)]
                           | sort_by(.ts, .tid, .name)))}' \
    "$WORK/trace.json" >"$WORK/trace.json.norm"
# CSV: the GPU tables as they are; host times and wall time dropped.
for t in copies memsets; do cp "$WORK/report.$t.csv" "$WORK/$t.csv.norm"; done
mask_split_csv "$WORK/report.kernels.csv" >"$WORK/kernels.csv.norm"
cut -d, -f1-4 "$WORK/report.devices.csv" >"$WORK/devices.csv.norm"
cut -d, -f1-5,7- "$WORK/report.allocations.csv" >"$WORK/allocations.csv.norm"
cut -d, -f3,9-12 "$WORK/report.api.csv" >"$WORK/api.csv.norm" # Num Calls, Name, name, calls, errors

for f in report.txt report.json trace.json kernels.csv copies.csv memsets.csv devices.csv allocations.csv api.csv; do
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$WORK/$f.norm" "$G/stream_overlap.$f"
    fi
    diff -u "$G/stream_overlap.$f" "$WORK/$f.norm" || fail "$f differs from tests/golden/stream_overlap.$f"
    pass "$f matches its golden file"
done
