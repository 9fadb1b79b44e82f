/* report_trace.c: the Chrome trace-event JSON of every timed launch, copy and memset (KPROF_TRACE), which
 * Perfetto and chrome://tracing open: the process is the profiled one (its pid), one thread per stream
 * (named for its device), times on the host's CLOCK_MONOTONIC, so that the traces of several processes
 * of one host (MPI ranks, a launcher's workers) can be put into one and line up. */
#include "log.h"
#include "clock.h"
#include "kprof_config.h"
#include "sample.h"
#include "kernel.h"
#include "transfers.h"
#include "snapshot.h"
#include "report_writers.h"
#include "jsonput.h"

/* The trace's "read" (enum kprof_read_as, less its gap flag). */
static const char *const read_names[] = {"in full", "unheld, offset", "blind, offset", "idle shared, offset"};

void kprof_report_trace(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"tool\": \"libkprof\", \"pid\": %ld, "
               "\"clock\": \"CLOCK_MONOTONIC\", \"start_us\": %.3f, \"events\": %zu, \"dropped_events\": %llu, "
               "\"limit\": %ld},\n \"traceEvents\": [\n",
            s->pid, (double)kprof_start_ns / 1e3, s->devices.ntrace, (unsigned long long)s->devices.trace_dropped,
            kprof_config.trace_limit);
    /* Names: the process (command, pid, host), a thread per stream (its device first). */
    fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %ld, \"args\": {\"name\": ", s->pid);
    char proc[sizeof s->command + sizeof s->host + 48];
    if (s->rank >= 0)
        snprintf(proc, sizeof proc, "%s (rank %ld, pid %ld on %s)", s->command, s->rank, s->pid, s->host);
    else
        snprintf(proc, sizeof proc, "%s (pid %ld on %s)", s->command, s->pid, s->host);
    kprof_json_string(f, proc);
    fprintf(f, "}}");
    for (size_t i = 0; i < s->devices.nstreams; i++) {
        if (!s->devices.streams[i].name)
            continue;
        fprintf(f, ",\n  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %ld, \"tid\": %zu, \"args\": {\"name\": ",
                s->pid, i);
        char thread[320];
        snprintf(thread, sizeof thread, "GPU %d: %s", s->devices.streams[i].device, s->devices.streams[i].name);
        kprof_json_string(f, thread);
        fprintf(f, "}}");
    }
    for (size_t i = 0; i < s->devices.ntrace; i++) {
        const struct kprof_trace_event *e = &s->devices.trace[i];
        fprintf(f, ",\n  {\"ph\": \"X\", \"pid\": %ld, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f, ", s->pid,
                e->stream_index, (double)(kprof_start_ns + e->start_ns) / 1e3, (double)e->dur_ns / 1e3);
        if (e->kind == KPROF_TARGET_COPY) {
            const struct kprof_copy *c = e->target;
            if (kprof_copy_is_memset(c)) {
                fprintf(f, "\"cat\": \"memset\", \"name\": \"memset\", \"args\": {\"bytes\": %llu}}",
                        (unsigned long long)e->bytes);
            } else {
                enum kprof_dir d;
                enum kprof_host_mem h;
                kprof_copy_describe(c, &d, &h);
                fprintf(f, "\"cat\": \"memcpy\", \"name\": \"memcpy %s\", \"args\": {\"bytes\": %llu, \"direction\": \"%s\", "
                           "\"host_memory\": \"%s\"}}",
                        kprof_dir_names[d], (unsigned long long)e->bytes, kprof_dir_names[d], kprof_host_mem_names[h]);
            }
        } else {
            const struct kprof_kernel *k = e->target;
            fprintf(f, "\"cat\": \"%s\", \"name\": ", k->is_graph ? "graph" : "kernel");
            kprof_json_string(f, k->name);
            fprintf(f, ", \"args\": {\"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"first_launch\": %s, "
                       "\"param_bytes\": %u, \"after\": \"%s%s\", \"read\": \"%s%s\", \"taken_off_ns\": %u%s%s%s}}",
                    e->grid[0], e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2],
                    e->kind == KPROF_TARGET_KERNEL_FIRST ? "true" : "false", kprof_kernel_param_bytes(k),
                    e->pred < KPROF_PRED_COUNT ? kprof_pred_names[e->pred] : "unknown", e->shared ? " (one event)" : "",
                    read_names[e->read_as & 3], e->read_as & KPROF_READ_GAP ? ", gap offset" : "",
                    (unsigned)e->taken_ns, e->stop_idle ? ", \"stop_idle\": true" : "",
                    e->start_idle ? ", \"start_idle\": true" : "", e->beside_htod ? ", \"beside_htod\": true" : "");
        }
    }
    fprintf(f, "\n ]\n}\n");
    if (s->devices.trace_dropped)
        kprof_warn("the trace holds the first %zu timed calls; %llu more were dropped (KPROF_TRACE_LIMIT=%ld)",
                   s->devices.ntrace, (unsigned long long)s->devices.trace_dropped, kprof_config.trace_limit);
}
