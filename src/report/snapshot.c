/* snapshot.c: the report's snapshot, each module's part (snapshot.h's list) taken once the pairs are
 * drained. */
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
#include "transfers.h"
#include "allocs.h"
#include "apitable.h"
#include "devices.h"
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
#define KPROF_PART_TAKE(module, member) kprof_##module##_snapshot(&s->member);
    KPROF_SNAPSHOT_PARTS(KPROF_PART_TAKE)
#undef KPROF_PART_TAKE
    int any = s->k.nkernels > 0 || __atomic_load_n(&kprof_cuda_used, __ATOMIC_RELAXED);
    for (size_t i = 0; i < s->devices.ndevices; i++)
        device_uuid(s->devices.devices[i].device, s->devices.devices[i].uuid);
    s->wall_ns = kprof_now_ns() - kprof_start_ns;
    s->pid = (long)getpid();
    s->rank = kprof_config.rank;
    snprintf(s->command, sizeof s->command, "%s", program_invocation_name ? program_invocation_name : "?");
    if (gethostname(s->host, sizeof s->host) != 0)
        strcpy(s->host, "?");
    s->host[sizeof s->host - 1] = '\0';
    kprof_rows_take(&s->rows, s);
    return any;
}

void kprof_snapshot_free(struct kprof_snapshot *s)
{
    kprof_rows_free(&s->rows);
#define KPROF_PART_FREE(module, member) kprof_##module##_part_free(&s->member);
    KPROF_SNAPSHOT_PARTS(KPROF_PART_FREE)
#undef KPROF_PART_FREE
    memset(s, 0, sizeof *s);
}
