/* devices.c: each completed sample to its aggregates, and from them devices' busy time and the trace. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "kprof_config.h"
#include "module.h"
#include "sample.h"
#include "kernels.h"
#include "transfers.h"
#include "devices.h"

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- samples: devices' busy time and the trace ------------------------------------------------ */

/* The union of a device's kernel intervals, kept as up to BUSY_OPEN disjoint intervals sorted by start;
 * when full, the oldest is closed into busy_closed (pairs arrive nearly in time order, so nothing later
 * overlaps it).  Bounded memory however many kernels run. */
#define BUSY_OPEN 256
#define MAX_DEVICES 64
struct busy { uint64_t start, end; };
static struct device_acc {
    int used;
    uint64_t kernel_ns, kernels, busy_closed;
    struct busy open[BUSY_OPEN];
    int nopen;
    /* What the learned offsets settled (kprof_offsets_settle) added to its kernels' times, ns: added to the
     * union of the intervals read, which do not move with them */
    double adjust_ns;
    double kernel_rest; /* of adjust_ns, what kernel_ns (whole ns) has not taken yet: within half a ns of 0,
                           or below 0 by what kernel_ns could not take without going below 0 */
} devices[MAX_DEVICES];

static void busy_add(struct device_acc *d, uint64_t start, uint64_t end)
{
    if (end <= start)
        return;
    /* Samples arrive nearly in time order, so the place is found from the newest end: j is one past the
     * last interval starting at or before `end`, [i, j) the ones it touches, merged with it. */
    int j = d->nopen;
    while (j > 0 && d->open[j - 1].start > end)
        j--;
    int i = j;
    while (i > 0 && d->open[i - 1].end >= start)
        i--;
    if (i < j) {
        if (d->open[i].start < start)
            start = d->open[i].start;
        if (d->open[j - 1].end > end)
            end = d->open[j - 1].end;
    }
    if (j == i && d->nopen == BUSY_OPEN) { /* full: close the oldest quarter at once (one move, not one each) */
        if (i == 0) { /* older than everything kept: count it closed */
            d->busy_closed += end - start;
            return;
        }
        int k = i < BUSY_OPEN / 4 ? i : BUSY_OPEN / 4;
        for (int c = 0; c < k; c++)
            d->busy_closed += d->open[c].end - d->open[c].start;
        memmove(&d->open[0], &d->open[k], (size_t)(d->nopen - k) * sizeof d->open[0]);
        d->nopen -= k;
        i -= k;
        j -= k;
    }
    memmove(&d->open[i + 1], &d->open[j], (size_t)(d->nopen - j) * sizeof d->open[0]);
    d->nopen -= j - i - 1;
    d->open[i].start = start;
    d->open[i].end = end;
}

/* Where each stream's last kernel ended on the timeline, by stream number (0: none yet).  A stream runs its
 * kernels one after another, but a start is read as float ms from a reference event and can land a few ns
 * (on a GPU, up to its event resolution) before the previous kernel's end: taken at face value, the two
 * would overlap and the union (busy) read less than the stream's own kernel time. */
static struct {
    uint64_t *end;
    size_t n;
} stream_ends;

/* The start of a kernel that began at start_ns on stream `index`, no earlier than the stream's last
 * kernel's end; records its end.  Under devices_lock. */
static uint64_t stream_ordered_start(unsigned index, uint64_t start_ns, uint64_t dur_ns)
{
    if (index >= stream_ends.n) {
        size_t n = (size_t)index + 16;
        uint64_t *a = realloc(stream_ends.end, n * sizeof *a);
        if (!a)
            return start_ns; /* no memory: the start as read */
        memset(a + stream_ends.n, 0, (n - stream_ends.n) * sizeof *a);
        stream_ends.end = a;
        stream_ends.n = n;
    }
    uint64_t *last = &stream_ends.end[index];
    if (start_ns < *last) /* the pairs of a stream are read in its order */
        start_ns = *last;
    if (start_ns + dur_ns > *last)
        *last = start_ns + dur_ns;
    return start_ns;
}

static struct {
    struct kprof_trace_event *ev;
    size_t n, cap;
    uint64_t dropped;
    struct kprof_stream_name *streams;
    size_t nstreams;
} trace;

void kprof_stream_named(unsigned index, int device, const char *name)
{
    pthread_mutex_lock(&devices_lock);
    if (index >= trace.nstreams) {
        size_t n = (size_t)index + 16;
        struct kprof_stream_name *a = realloc(trace.streams, n * sizeof *a);
        if (a) {
            memset(a + trace.nstreams, 0, (n - trace.nstreams) * sizeof *a);
            trace.streams = a;
            trace.nstreams = n;
        }
    }
    if (index < trace.nstreams) {
        free(trace.streams[index].name);
        trace.streams[index].name = strdup(name);
        trace.streams[index].device = device;
    }
    pthread_mutex_unlock(&devices_lock);
}

static void trace_add(const struct kprof_sample *s)
{
    if (trace.n == trace.cap) {
        if (trace.cap >= (size_t)kprof_config.trace_limit) {
            trace.dropped++;
            return;
        }
        size_t cap = trace.cap ? trace.cap * 2 : 4096;
        if (cap > (size_t)kprof_config.trace_limit)
            cap = (size_t)kprof_config.trace_limit;
        struct kprof_trace_event *e = realloc(trace.ev, cap * sizeof *e);
        if (!e) {
            trace.dropped++;
            return;
        }
        trace.ev = e;
        trace.cap = cap;
    }
    struct kprof_trace_event *e = &trace.ev[trace.n++];
    e->start_ns = s->start_ns;
    e->dur_ns = s->dur_ns;
    e->target = s->target;
    e->bytes = s->bytes;
    memcpy(e->grid, s->grid, sizeof e->grid);
    memcpy(e->block, s->block, sizeof e->block);
    e->device = s->device;
    e->stream_index = s->stream_index;
    e->kind = (unsigned char)s->kind;
    e->pred = s->pred;
    e->shared = s->shared;
    e->stop_idle = s->stop_idle;
    e->start_idle = s->start_idle;
    e->beside_htod = s->beside_htod;
    e->read_as = s->read_as;
    e->taken_ns = s->taken_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)s->taken_ns;
}

void kprof_sample_record(const struct kprof_sample *s)
{
    if (s->adjust) {
        kprof_kernel_adjust(s->target, s->adjust_ns);
        pthread_mutex_lock(&devices_lock);
        if (s->device >= 0 && s->device < MAX_DEVICES) {
            struct device_acc *d = &devices[s->device];
            kprof_ns_adjust(&d->kernel_ns, &d->kernel_rest, s->adjust_ns);
            d->adjust_ns += s->adjust_ns;
        }
        pthread_mutex_unlock(&devices_lock);
        return;
    }
    if (s->kind == KPROF_TARGET_COPY)
        kprof_copy_add_time(s->target, s->dur_ns, s->bytes);
    else
        kprof_kernel_add_sample(s);
    /* A graph's time counts as kernel time on its device: its kernels are not timed one by one. */
    pthread_mutex_lock(&devices_lock);
    if (s->kind != KPROF_TARGET_COPY && s->device >= 0 && s->device < MAX_DEVICES) {
        struct device_acc *d = &devices[s->device];
        d->used = 1;
        d->kernel_ns += s->dur_ns;
        d->kernels++;
        if (s->has_time) {
            uint64_t start = stream_ordered_start(s->stream_index, s->start_ns, s->dur_ns);
            busy_add(d, start, start + s->dur_ns);
        }
    }
    if (kprof_config.trace && s->has_time)
        trace_add(s);
    pthread_mutex_unlock(&devices_lock);
}

/* ---- snapshot and fork ----------------------------------------------------------------------- */

void kprof_devices_snapshot(struct kprof_devices_part *p)
{
    pthread_mutex_lock(&devices_lock);
    struct kprof_device_stat *a = calloc(MAX_DEVICES, sizeof *a);
    p->devices = a;
    p->ndevices = 0;
    for (int i = 0; i < MAX_DEVICES && a; i++) {
        if (!devices[i].used)
            continue;
        struct kprof_device_stat *d = &a[p->ndevices++];
        d->device = i;
        d->kernel_ns = devices[i].kernel_ns;
        d->kernels = devices[i].kernels;
        double busy = (double)devices[i].busy_closed + devices[i].adjust_ns;
        for (int j = 0; j < devices[i].nopen; j++)
            busy += (double)(devices[i].open[j].end - devices[i].open[j].start);
        /* Never more than the kernels' own time: KPROF_HOLD=N's launches read with an offset lie on the
         * timeline as read, their offsets settled in the totals only (a new-user helper read Busy 10.5 us
         * for 10 us of kernels on one stream, and 8 us beside 10: Overlap 1.25x on one stream). */
        d->busy_ns = busy <= 0.0 ? 0 : busy >= (double)d->kernel_ns ? d->kernel_ns : (uint64_t)(busy + 0.5);
    }
    p->trace = trace.ev;
    p->ntrace = trace.n;
    p->trace_dropped = trace.dropped;
    p->streams = trace.streams;
    p->nstreams = trace.nstreams;
    pthread_mutex_unlock(&devices_lock);
}

void kprof_devices_part_free(struct kprof_devices_part *p)
{
    free(p->devices);
}

/* In a forked child: a fresh start, so its report holds only what the child itself does (the streams'
 * names stay). */
static void devices_reset(void)
{
    memset(devices, 0, sizeof devices);
    if (stream_ends.end)
        memset(stream_ends.end, 0, stream_ends.n * sizeof *stream_ends.end);
    free(trace.ev);
    trace.ev = NULL;
    trace.n = trace.cap = 0;
    trace.dropped = 0;
}

/* Order 26: this lock is never held while another module's is taken, nor taken under one. */
KPROF_MUTEX_MODULE(devices, 26, devices_lock, devices_reset)
