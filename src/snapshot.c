/* snapshot.c: the report's snapshot, gathered from each module once the pairs are drained. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda_api.h"
#include "clock.h"
#include "call.h"
#include "timing.h"
#include "kernels.h"
#include "graphs.h"
#include "snapshot.h"

int kprof_snapshot_take(struct kprof_snapshot *s)
{
    memset(s, 0, sizeof *s);
    int any = kprof_stats_snapshot(s) || __atomic_load_n(&kprof_cuda_used, __ATOMIC_RELAXED);
    size_t ng = 0;
    s->graphs = kprof_graph_rows(&ng);
    for (size_t i = 0; s->graphs && i < ng; i++)
        if (s->graphs[i]->calls > 0)
            s->graphs[s->ngraphs++] = s->graphs[i];
    if (s->graphs)
        qsort(s->graphs, s->ngraphs, sizeof *s->graphs, kprof_kernel_by_total_desc);
    kprof_events_counters(&s->events);
    s->ncalibs = kprof_events_calibrations(s->calibs, sizeof s->calibs / sizeof s->calibs[0]);
    s->wall_ns = kprof_now_ns() - kprof_start_ns;
    s->pid = (long)getpid();
    snprintf(s->command, sizeof s->command, "%s", program_invocation_name ? program_invocation_name : "?");
    if (gethostname(s->host, sizeof s->host) != 0)
        strcpy(s->host, "?");
    s->host[sizeof s->host - 1] = '\0';
    return any;
}

void kprof_snapshot_free(struct kprof_snapshot *s)
{
    free(s->kernels);
    free(s->graphs);
    free(s->captured);
    free(s->devices);
    free(s->ctx_inits);
    memset(s, 0, sizeof *s);
}
