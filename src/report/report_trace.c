/* report_trace.c: the Chrome trace-event JSON of every timed launch, copy and memset (KPROF_TRACE), which
 * Perfetto and chrome://tracing open: one process per device, one thread per stream. */
#include "log.h"
#include "kprof_config.h"
#include "sample.h"
#include "kernel.h"
#include "transfers.h"
#include "snapshot.h"
#include "report_writers.h"
#include "jsonput.h"



void kprof_report_trace(FILE *f, const struct kprof_snapshot *s)
{
    fprintf(f, "{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"tool\": \"libkprof\", \"pid\": %ld, "
               "\"events\": %zu, \"dropped_events\": %llu, \"limit\": %ld},\n \"traceEvents\": [\n",
            s->pid, s->devices.ntrace, (unsigned long long)s->devices.trace_dropped, kprof_config.trace_limit);
    int first = 1;
    /* Names: a process per device (every device a stream or event belongs to), a thread per stream. */
    unsigned char named[64] = { 0 };
    for (size_t i = 0; i < s->devices.nstreams + s->devices.ntrace; i++) {
        int d = i < s->devices.nstreams ? (s->devices.streams[i].name ? s->devices.streams[i].device : -1) : s->devices.trace[i - s->devices.nstreams].device;
        if (d < 0 || d >= 64 || named[d])
            continue;
        named[d] = 1;
        fprintf(f, "%s  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"args\": {\"name\": \"GPU %d\"}}",
                first ? "" : ",\n", d, d);
        first = 0;
    }
    for (size_t i = 0; i < s->devices.nstreams; i++) {
        if (!s->devices.streams[i].name)
            continue;
        fprintf(f, "%s  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %zu, \"args\": {\"name\": ",
                first ? "" : ",\n", s->devices.streams[i].device, i);
        kprof_json_string(f, s->devices.streams[i].name);
        fprintf(f, "}}");
        first = 0;
    }
    for (size_t i = 0; i < s->devices.ntrace; i++) {
        const struct kprof_trace_event *e = &s->devices.trace[i];
        fprintf(f, "%s  {\"ph\": \"X\", \"pid\": %d, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f, ", first ? "" : ",\n",
                e->device, e->stream_index, (double)e->start_ns / 1e3, (double)e->dur_ns / 1e3);
        first = 0;
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
                       "\"after\": \"%s%s\", \"taken_off_ns\": %u%s%s}}",
                    e->grid[0], e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2],
                    e->kind == KPROF_TARGET_KERNEL_FIRST ? "true" : "false",
                    e->pred < KPROF_PRED_COUNT ? kprof_pred_names[e->pred] : "unknown", e->shared ? " (one event)" : "",
                    (unsigned)e->taken_ns, e->stop_idle ? ", \"stop_idle\": true" : "",
                    e->beside_htod ? ", \"beside_htod\": true" : "");
        }
    }
    fprintf(f, "\n ]\n}\n");
    if (s->devices.trace_dropped)
        kprof_warn("the trace holds the first %zu timed calls; %llu more were dropped (KPROF_TRACE_LIMIT=%ld)",
                   s->devices.ntrace, (unsigned long long)s->devices.trace_dropped, kprof_config.trace_limit);
}
