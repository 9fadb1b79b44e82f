/* snapshot.c: the report's snapshot, gathered from each module once the pairs are drained. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda_api.h"
#include "clock.h"
#include "finish.h"
#include "timing.h"
#include "kernels.h"
#include "graphs.h"
#include "snapshot.h"
#include "resolve.h"

/* Writes device's UUID into out (41 bytes) as nvidia-smi does, or "" when the driver lacks
 * cuDeviceGetUuid_v2 or it fails.  libkprof's own call: straight to the driver, never counted. */
static void device_uuid(int device, char *out)
{
    CUuuid u;
    out[0] = '\0';
    if (!kprof_driver_ready() || !kprof_drv.cuDeviceGetUuid_v2 ||
        kprof_drv.cuDeviceGetUuid_v2(&u, (CUdevice)device) != CUDA_SUCCESS)
        return;
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(out, 41, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int kprof_snapshot_take(struct kprof_snapshot *s)
{
    memset(s, 0, sizeof *s);
    int any = kprof_kernels_snapshot(&s->k);
    kprof_stats_snapshot(&s->st);
    any = any || __atomic_load_n(&kprof_cuda_used, __ATOMIC_RELAXED);
    for (size_t i = 0; i < s->st.ndevices; i++)
        device_uuid(s->st.devices[i].device, s->st.devices[i].uuid);
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
    free(s->k.kernels);
    free(s->graphs);
    free(s->k.captured);
    free(s->st.devices);
    free(s->st.ctx_inits);
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++)
            kprof_hist_free(&s->st.copies[d][h].hist);
    kprof_hist_free(&s->st.memsets.hist);
    memset(s, 0, sizeof *s);
}
