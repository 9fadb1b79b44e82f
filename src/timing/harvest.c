/* harvest.c: reading completed event pairs: reference events that place them on the process timeline,
 * pair accounting, the harvesting thread, the exit drain and a context's ending. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "cuda_api.h"
#include "calibrate.h"
#include "probe_seg.h"
#include "log.h"
#include "resolve.h"
#include "clock.h"
#include "call.h"
#include "devices.h"
#include "kernel.h"
#include "timing.h"
#include "timing_internal.h"

#define HARVEST_BATCH 64
/* With nothing to read, the harvester dozes DOZE_MS at a time, DOZE_TIMES in a row (100 ms), before it sleeps
 * until woken (harvester_main). */
#define DOZE_MS 1
#define DOZE_TIMES 100

static void *harvester_main(void *arg);

void kprof_ev_start_harvester(void)
{
    /* The harvester takes none of the app's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&kprof_ev.harvester, NULL, harvester_main, NULL) == 0)
        kprof_ev.harvester_started = 1;
    else
        kprof_warn("cannot start the harvesting thread; pairs are read at exit");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}


/* The newest reference recorded before the pair's start (so their elapsed time is not negative), or the
 * oldest one kept; NULL when the pool has none.  Called within a harvest pass (only those change refs). */
static const struct ref *ref_for(const struct pool *p, uint64_t start_host_ns)
{
    for (int i = 0; i < p->nrefs; i++)
        if (p->refs[i].host_done_ns <= start_host_ns)
            return &p->refs[i];
    return p->nrefs ? &p->refs[p->nrefs - 1] : NULL;
}

/* Records a new reference on p's private stream when the last was asked for more than REF_PERIOD_NS ago,
 * so that every pair has a recent reference, also after the app was idle for a long time.  Called with
 * p's context current, without kprof_ev.lock: by the app's thread before a start event, and by the harvester.
 * now: the host clock (kprof_now_ns) read shortly before, for the period's check; a reference recorded
 * reads the clock again for its own host anchor. */
void kprof_ev_ref_request(struct pool *p, uint64_t now)
{
    /* Signed: another thread may have set last_request_ns from a later reading than now. */
    if (!p->own || (int64_t)(now - __atomic_load_n(&p->last_request_ns, __ATOMIC_RELAXED)) < (int64_t)REF_PERIOD_NS)
        return;
    pthread_mutex_lock(&kprof_ev.lock);
    int mine = !p->dead && !p->pending_ref && !p->ref_busy &&
               (int64_t)(now - p->last_request_ns) >= (int64_t)REF_PERIOD_NS;
    if (mine) {
        p->ref_busy = 1;
        __atomic_store_n(&p->last_request_ns, now, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&kprof_ev.lock);
    if (!mine)
        return;
    uint64_t before = kprof_now_ns();
    CUevent e = NULL;
    if (kprof_drv.cuEventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
        kprof_drv.cuEventRecord(e, p->own) != CUDA_SUCCESS) {
        kprof_drv.cuEventDestroy_v2(e);
        e = NULL;
    }
    uint64_t done = kprof_now_ns();
    pthread_mutex_lock(&kprof_ev.lock);
    p->ref_busy = 0;
    if (e) {
        __atomic_store_n(&p->pending_ref, e, __ATOMIC_RELAXED);
        p->pending_before_ns = before;
        p->pending_host_done_ns = done;
    }
    pthread_mutex_unlock(&kprof_ev.lock);
}

/* Places p's pending reference on the timeline once it has completed: through the previous reference
 * when that is recent (float milliseconds over at most a few seconds stay exact to well under 1 us),
 * else from the host clock at its record (the private stream is idle, so the GPU stamped it the pool's
 * stamp_lag_ns later).
 * Called within a harvest pass, p's context current. */
static void ref_complete(struct pool *p)
{
    pthread_mutex_lock(&kprof_ev.lock);
    CUevent e = p->pending_ref;
    uint64_t before = p->pending_before_ns, done = p->pending_host_done_ns;
    pthread_mutex_unlock(&kprof_ev.lock);
    if (!e || kprof_drv.cuEventQuery(e) != CUDA_SUCCESS)
        return;
    double base = (double)(before - kprof_start_ns) + p->stamp_lag_ns;
    float ms = 0.0f;
    if (p->nrefs && done - p->refs[0].host_done_ns <= 4 * REF_PERIOD_NS &&
        kprof_drv.cuEventElapsedTime_v2(&ms, p->refs[0].ev, e) == CUDA_SUCCESS)
        base = p->refs[0].base_ns + (double)ms * 1e6;
    if (p->nrefs == REF_RING)
        kprof_drv.cuEventDestroy_v2(p->refs[REF_RING - 1].ev);
    else
        p->nrefs++;
    memmove(&p->refs[1], &p->refs[0], (size_t)(p->nrefs - 1) * sizeof p->refs[0]);
    p->refs[0].base_ns = base;
    p->refs[0].host_ns = (double)(before - kprof_start_ns) + p->stamp_lag_ns;
    p->refs[0].ev = e;
    p->refs[0].host_done_ns = done;
    pthread_mutex_lock(&kprof_ev.lock);
    __atomic_store_n(&p->pending_ref, NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&kprof_ev.lock);
}

/* The host time at which kernel pair pr's launch call returned, in ns since kprof_start_ns; only for a
 * pair whose call's host time is known (pr->call_ns set). */
static double returned_ns(const struct pair *pr)
{
    return (double)(pr->call_ns + pr->launch_ns - kprof_start_ns);
}

/* Whether kernel pair pr's stop, stamped ms after its start at host_start (host clock, ns since
 * kprof_start_ns), lies no earlier than its launch call's return: the stop is recorded after it, so an
 * anchor that places it earlier does not hold (a GPU clock that only the work moves, on which a kernel
 * may end before its launch call returns).  pr->call_ns set. */
static int stop_after_return(const struct pair *pr, double host_start, float ms)
{
    return host_start + (double)ms * 1e6 >= returned_ns(pr) - IDLE_STOP_SLACK_NS;
}

/* 1 when pr's launch shape is the one its kernel's usual launches were read in (idle_stop_mean). */
static int usual_shape(const struct kprof_kernel *k, const struct pair *pr)
{
    return !memcmp(k->usual_shape, pr->grid, sizeof pr->grid) &&
           !memcmp(k->usual_shape + 3, pr->block, sizeof pr->block);
}

/* Whether kernel pair pr's stop was stamped on an idle stream (queue.h, IDLE_STOP_SLACK_NS): recorded more
 * than LATE_STAMP_NS after its launch call returned with nothing to keep the GPU waiting for it (unheld, or
 * held past its hold's timeout, struct pair's overdue: otherwise the hold is released after the stop's
 * record), and stamped no later than an event recorded then on an idle stream would be, the pair's start
 * stamped at host_start on the host clock (ns since kprof_start_ns).  (A stamp placed before the return
 * means an anchor that does not hold, as on a GPU clock that only the work moves: not such a stop.)  The
 * pair then holds host time after its kernel as well as before it (a thread descheduled or waiting on a
 * driver lock between the launch's return and the stop's record: 0.6 to 1 ms pairs of a 20 us kernel in
 * pipeline_8threads on the H200), and neither the idle-stream correction nor a learned offset can tell
 * how much. */
static int stop_stamped_idle(const struct pair *pr, double host_start, float ms)
{
    int held = pr->pred == KPROF_PRED_HELD || pr->pred == KPROF_PRED_HELD_KERNEL;
    if (pr->kind != KPROF_TARGET_KERNEL || !pr->stop_host_ns || !pr->call_ns || (held && !pr->overdue))
        return 0;
    double stop_rec = (double)(pr->stop_host_ns - kprof_start_ns);
    if (stop_rec - returned_ns(pr) <= LATE_STAMP_NS)
        return 0;
    return stop_after_return(pr, host_start, ms) &&
           host_start + (double)ms * 1e6 <= stop_rec + pr->pool->stamp_lag_ns + IDLE_STOP_SLACK_NS;
}

/* The mean of pr's kernel's launches after the first read as usual, never longer than ns (pr's pair); -1
 * while its kernel has no such launch or has had them in more than one launch shape (whose lengths may
 * differ).  Pairs read by it never go into that mean (pair_account: read as they were, the first of them
 * would raise the mean the later ones read as: a 3 us kernel's read 2 ms).  Harvest passes only. */
static double usual_mean(const struct pair *pr, uint64_t ns)
{
    const struct kprof_kernel *k = pr->target;
    if (k->usual_n == 0 || k->usual_mixed || !usual_shape(k, pr))
        return -1.0;
    double mean = k->usual_sum_ns / (double)k->usual_n;
    return mean < (double)ns ? mean : (double)ns;
}

/* What kernel pair pr (of ns), its stop stamped on an idle stream (stop_stamped_idle), is read as: its
 * kernel's usual mean (usual_mean), or -1 (read as usual).  Harvest passes only. */
static double idle_stop_mean(const struct pair *pr, uint64_t ns)
{
    const struct kprof_kernel *k = pr->target;
    double read = usual_mean(pr, ns);
    if (read >= 0.0)
        kprof_debug("kernel %s: stop stamped on an idle stream (recorded %.1f us after the launch returned): read "
                    "as its mean, %.2f us, not %.2f us", k->name ? k->name : "?",
                    ((double)(pr->stop_host_ns - kprof_start_ns) - returned_ns(pr)) / 1e3, read / 1e3,
                    (double)ns / 1e3);
    return read;
}

/* Whether kernel pair pr, its start the stop of the call before it on its stream (one-event timing, not an
 * idle stream's last stop: timing.c, idle_shared), stamped at host_start on the host clock (ns since
 * kprof_start_ns, as an event recorded then on an idle stream would be), was stamped more than
 * LATE_STAMP_NS before its launch call returned: the work queued ahead ran out before the kernel was
 * queued (a thread held up inside the launch call, descheduled or waiting on a driver lock), and the pair
 * holds the stream's idle time before it (a 3 us kernel read 2 ms on the fake GPU's virtual clock, two
 * threads launching; a kernel's first launch loads its module inside the call).  Not a held launch,
 * whose kernel waits for its hold. */
static int start_stamped_idle(const struct pair *pr, double host_start, float ms)
{
    int held = pr->pred == KPROF_PRED_HELD || pr->pred == KPROF_PRED_HELD_KERNEL;
    if (pr->kind == KPROF_TARGET_COPY || !pr->shared || pr->blind || held || !pr->call_ns ||
        !pr->start_rec_before_ns)
        return 0;
    /* A start stamped before its record began, or a stop stamped before the call returned (the stop is
     * recorded after it), means an anchor that does not hold (a GPU clock that only the work moves, on
     * which a kernel may end before its launch call returns): not such a start. */
    return host_start + LATE_STAMP_NS < returned_ns(pr) &&
           host_start >= (double)(pr->start_rec_before_ns - kprof_start_ns) - IDLE_STOP_SLACK_NS &&
           stop_after_return(pr, host_start, ms);
}

/* What kernel pair pr (of ns), its start stamped on a stream that then ran dry (start_stamped_idle), is
 * read as: its kernel's usual mean (usual_mean), or, for a first launch or without one, as a launch on an
 * idle stream from its call's return (timing.h: the host time from the stamp to the return and the
 * calibrated idle hand-off taken off, and what its parameters add), its start placed on the host clock
 * through the GPU clock's anchor.  Never longer than the pair.  Harvest passes only. */
static double start_idle_read(const struct pair *pr, uint64_t ns, double host_start)
{
    const struct kprof_kernel *k = pr->target;
    const struct kprof_calibration *c = &pr->pool->calib;
    double returned = returned_ns(pr) + pr->pool->stamp_lag_ns;
    double read = pr->kind == KPROF_TARGET_KERNEL ? usual_mean(pr, ns) : -1.0; /* not a first launch */
    const char *as = "its mean";
    if (read < 0.0) {
        read = (double)ns - (returned - host_start) - kprof_calibration_handoff(c, 0, KPROF_PRED_IDLE) -
               (k->is_graph ? 0.0 : kprof_calibration_param_ns(c, kprof_kernel_param_bytes(k)));
        read = read <= 0.0 ? 0.0 : read;
        as = "on an idle stream";
    }
    kprof_debug("kernel %s: started at the stop before it, stamped %.1f us before its launch call returned: read as "
                "%s, %.2f us, not %.2f us", k->name ? k->name : "?", (returned - host_start) / 1e3, as, read / 1e3,
                (double)ns / 1e3);
    return read;
}

/* Pairs of another queue looked at for HtoD copies, from its head, at most, and copies at most (deeper in a
 * queue, a copy's pairs before it must all have completed unread). */
#define BESIDE_SCAN 64
#define BESIDE_EVENTS 128
/* A kernel counts as started inside a copy from BESIDE_EDGE_NS before the copy's start to BESIDE_EDGE_NS
 * before its end: both are read through a reference as float ms, and a kernel that waited for the copy to
 * end (an event wait) starts at its end. */
#define BESIDE_EDGE_NS 100.0
/* fill_first: the other queues it looks at, and how far into each one for its oldest filling pair. */
#define FILL_QUEUES 256
#define FILL_SCAN 256
/* harvest_once: the most rounds over the queues a pass makes while pairs wait for fill_first. */
#define FILL_ROUNDS 4096

/* cuEventElapsedTime from `from`, completed, to `to`, another stream's event that may still be pending (a
 * copy's, a filling kernel's), in *ms; when `to` has not completed, CUDA_ERROR_NOT_READY from a query of it
 * instead: compute-sanitizer reports a "not ready" from cuEventElapsedTime as an error of the program's,
 * where a query's is an answer (an H100 run of kernels/stream_overlap under it, beside_htod;
 * tests/own-driver-calls-never-fail.sh).  Another error (a context gone) is returned as it comes.
 * Harvest passes only. */
static CUresult elapsed_if_done(float *ms, CUevent from, CUevent to)
{
    CUresult r = kprof_drv.cuEventQuery(to);
    return r == CUDA_SUCCESS ? kprof_drv.cuEventElapsedTime_v2(ms, from, to) : r;
}

/* Whether `at` lies inside a copy running from t0 to t1 (ns on the timeline), each edge moved
 * BESIDE_EDGE_NS earlier (event stamps trail what they mark). */
static int inside_copy(double at, double t0, double t1)
{
    return t0 - BESIDE_EDGE_NS <= at && at < t1 - BESIDE_EDGE_NS;
}

/* Whether kernel pair pr of queue q, its kernel started at `at` on the timeline (ns since libkprof
 * started), started while an HtoD copy of BESIDE_MIN_BYTES or more ran on another stream of its context
 * (the GPU reads what it needs to start a kernel behind the copy's reads: calibrate.h, beside_htod_ns):
 * one of the pool's copies read already, or one still queued whose start is stamped (placed through the
 * reference nearest pr; a copy not ended yet runs on).  Harvest passes only (the queued copies' events
 * are not given back meanwhile). */
static int beside_htod(const struct queue *q, const struct pair *pr, double at)
{
    struct pool *p = pr->pool;
    unsigned long n = p->nhtod < HTOD_RING ? p->nhtod : HTOD_RING;
    for (unsigned long i = 0; i < n; i++)
        if (p->htod[i].queue != q->index && inside_copy(at, p->htod[i].t0, p->htod[i].t1))
            return 1;
    const struct ref *r = ref_for(p, pr->start_host_ns);
    if (!r || !__atomic_load_n(&p->htod_queued, __ATOMIC_RELAXED))
        return 0;
    CUevent ev[BESIDE_EVENTS];
    int nev = 0;
    pthread_mutex_lock(&kprof_ev.lock);
    for (const struct queue *o = kprof_ev.queues; o && nev < BESIDE_EVENTS; o = o->hh.next) {
        if (o == q || o->key.ctx != q->key.ctx)
            continue;
        for (size_t i = 0; i < o->count && i < BESIDE_SCAN && nev < BESIDE_EVENTS; i++) {
            const struct pair *c = kprof_ring_at(o, i);
            if (c->pool == p && kprof_big_htod(c->kind, c->target, c->bytes)) {
                ev[nev++] = c->start;
                ev[nev++] = c->stop;
            }
        }
    }
    pthread_mutex_unlock(&kprof_ev.lock);
    for (int i = 0; i < nev; i += 2) {
        float a = 0.0f, b = 0.0f;
        if (elapsed_if_done(&a, r->ev, ev[i]) != CUDA_SUCCESS)
            continue; /* not started */
        double t0 = r->base_ns + (double)a * 1e6;
        if (!inside_copy(at, t0, INFINITY))
            continue; /* started after the kernel */
        CUresult e = elapsed_if_done(&b, r->ev, ev[i + 1]);
        double t1 = e == CUDA_ERROR_NOT_READY ? INFINITY /* runs on */ : r->base_ns + (double)b * 1e6;
        if ((e == CUDA_SUCCESS || e == CUDA_ERROR_NOT_READY) && inside_copy(at, t0, t1))
            return 1;
    }
    return 0;
}

/* The start of the kernel of pair pr of queue q, which began at `at` on the timeline and stopped at `stop`,
 * once past every kernel of another stream of its context that filled the device (kprof_fills) while it
 * waited: a kernel cannot start while another holds every SM, but its start event, recorded before it
 * on its own stream, is stamped as soon as its stream reaches it, and CUPTI's start is that of its
 * first block (docs/accuracy.md, "Kernels of several streams at once").  Such a kernel counts when it
 * ran at `at` and ended before `stop`, and its stream's priority is not the lower (a kernel of a stream of
 * higher priority takes each SM the other frees: CUDA Programming Guide, "Stream Priorities"); taken in turn, they move the start along a chain of them (4
 * streams of kernels that each fill the device run one at a time).  They come from the pool's ring,
 * which holds every one that ended before `stop` as long as the harvest reads them first (fill_first).
 * Harvest passes only. */
static double past_filling(const struct queue *q, const struct pair *pr, double at, double stop)
{
    const struct pool *p = pr->pool;
    unsigned long n = p->nfill < FILL_RING ? p->nfill : FILL_RING;
    int prio = __atomic_load_n(&q->priority, __ATOMIC_RELAXED);
    for (int moved = 1; moved;) { /* each kernel moves it at most once: it only grows */
        moved = 0;
        for (unsigned long i = 0; i < n; i++)
            if (p->fill[i].queue != q->index && p->fill[i].priority <= prio && p->fill[i].t1 < stop &&
                p->fill[i].t0 - BESIDE_EDGE_NS <= at && at < p->fill[i].t1) {
                at = p->fill[i].t1;
                moved = 1;
            }
    }
    return at;
}

/* Whether the kernel pair pr of queue q, complete, must wait for a kernel of another stream of its
 * context that filled the device and ended before it, still queued: past_filling needs that one read
 * first.  The harvest takes queues in turn, and reads each one's completed pairs; four streams of such
 * kernels, launched in turn, would otherwise have the first stream's pairs all read before any other's.
 * Looks at each other queue's oldest filling pair only (those after it on its stream end later).
 * Harvest passes only. */
static int fill_first(const struct queue *q, const struct pair *pr)
{
    struct pool *p = pr->pool;
    if (pr->kind == KPROF_TARGET_COPY || __atomic_load_n(&p->fill_queued, __ATOMIC_RELAXED) <=
                                             __atomic_load_n(&q->fills_queued, __ATOMIC_RELAXED))
        return 0; /* none queued on another stream of p (nor of another pool: then nothing to look at either) */
    CUevent stops[FILL_QUEUES];
    int n = 0;
    pthread_mutex_lock(&kprof_ev.lock);
    for (const struct queue *o = kprof_ev.queues; o && n < FILL_QUEUES; o = o->hh.next) {
        if (o == q || o->key.ctx != q->key.ctx || o->fills_queued == 0)
            continue;
        for (size_t i = 0; i < o->count && i < FILL_SCAN; i++) {
            const struct pair *c = kprof_ring_at(o, i);
            if (c->pool == p && c->fills) {
                stops[n++] = c->stop;
                break;
            }
        }
    }
    pthread_mutex_unlock(&kprof_ev.lock);
    for (int i = 0; i < n; i++) {
        float ms = 0.0f; /* NOT_READY: it has not ended, so ends after pr */
        if (elapsed_if_done(&ms, pr->stop, stops[i]) == CUDA_SUCCESS && ms < 0.0f)
            return 1;
    }
    return 0;
}

/* Counts a launch read as usual (not the first, not read by idle_stop_mean) in its kernel's reference for
 * idle_stop_mean.  Harvest passes only. */
static void usual_add(const struct pair *pr, uint64_t dur_ns)
{
    struct kprof_kernel *k = pr->target;
    if (pr->kind != KPROF_TARGET_KERNEL || k->usual_mixed)
        return;
    if (k->usual_n == 0) {
        memcpy(k->usual_shape, pr->grid, sizeof pr->grid);
        memcpy(k->usual_shape + 3, pr->block, sizeof pr->block);
    } else if (!usual_shape(k, pr)) {
        k->usual_mixed = 1;
        return;
    }
    k->usual_n++;
    k->usual_sum_ns += (double)dur_ns;
}

/* Reads one completed pair of queue q into a sample for the statistics.  Its start on the timeline comes
 * from a reference event, or, for a pair that started at the stop of the pair read just before it, from
 * that pair's stop (no driver call; re-anchored on a reference every 256 pairs).  Harvest passes only. */
static void pair_account(struct queue *q, const struct pair *pr, float ms)
{
    struct kprof_sample s;
    memset(&s, 0, sizeof s);
    uint64_t ns = ms <= 0.0f ? 0 : (uint64_t)((double)ms * 1e6 + 0.5);
    /* Its start on the GPU's timeline (GPU ns since libkprof started) and the shift to the host clock. */
    double start = 0.0, shift = 0.0;
    int known = 0;
    if (pr->shared && q->last_stop_seq == pr->start_seq + 1 && q->derived < 256) {
        start = q->last_stop_ns;
        shift = q->last_shift_ns;
        known = 1;
        q->derived++;
    } else {
        /* A reference recorded before this pair's start but not placed yet (a pass that began before it
         * was recorded reads the pair): placed now, the host anchor nearest the pair. */
        int fresh = 0;
        if (__atomic_load_n(&pr->pool->pending_ref, __ATOMIC_RELAXED)) { /* rare: one lock only then */
            pthread_mutex_lock(&kprof_ev.lock);
            fresh = pr->pool->pending_ref && pr->pool->pending_host_done_ns <= pr->start_host_ns;
            pthread_mutex_unlock(&kprof_ev.lock);
        }
        if (fresh)
            ref_complete(pr->pool);
        const struct ref *r = ref_for(pr->pool, pr->start_host_ns);
        float at = 0.0f;
        if (r && kprof_drv.cuEventElapsedTime_v2(&at, r->ev, pr->start) == CUDA_SUCCESS) {
            start = r->base_ns + (double)at * 1e6;
            shift = r->host_ns - r->base_ns;
            known = 1;
        }
        q->derived = 0;
    }
    int stamped_idle = known && stop_stamped_idle(pr, start + shift, ms);
    double idle_stop_ns = stamped_idle ? idle_stop_mean(pr, ns) : -1.0;
    int start_idle = known && !stamped_idle && start_stamped_idle(pr, start + shift, ms);
    /* A kernel's pair less the host latency it held on an idle stream, and less the hand-off measured for
     * what came before it on its stream (calibrate.h); copies keep their pairs as they are.  The latency is
     * the host time from the start event's record to the launch's return, unless the start was stamped
     * clearly later than its record began because its hold gave up (the launch call still loading a
     * module, say): then the host time before the stamp was never in the pair, and only the time from the
     * stamp to the launch's return (to the pair's mark, struct pair) is taken off. */
    double lag = (double)pr->idle_lag_ns;
    int stamped_late = 0; /* unheld, its stream busy at the start's record and dry before the kernel came */
    if (lag > 0.0 && (pr->late || (known && pr->call_ns))) {
        /* From the stamp to the launch's return, counted like the lag from the record's start: the mark,
         * recorded on an idle stream, was stamped stamp_lag_ns after its record began, mark_ns after the
         * return.  Without a mark, the stamp placed on the host clock through the reference (its error a
         * few us, more where the clocks drift apart).  Unheld, the same when the start was recorded on a
         * stream still busy that ran dry inside a long launch call (a thread held up there, or a first
         * launch loading its module): the pair holds the time from its stamp, not from its record (the
         * whole launch call taken off, a 3 us kernel behind a 20 us one, its call held up 100 us, read 0). */
        float at = 0.0f;
        double from_stamp = lag;
        /* Unheld: an anchor that holds puts the stamp no later than the launch's return, where the idle
         * question found it complete, and the stop, recorded after the return, no earlier (else a GPU clock
         * that only the work moves). */
        int holds = pr->late;
        if (pr->late && pr->mark && kprof_drv.cuEventElapsedTime_v2(&at, pr->start, pr->mark) == CUDA_SUCCESS) {
            from_stamp = (double)at * 1e6 - (double)pr->mark_ns;
        } else if (known && pr->call_ns) {
            from_stamp = returned_ns(pr) -
                         (start + shift - pr->pool->stamp_lag_ns); /* the stamp, as its record's start */
            holds |= from_stamp >= -IDLE_STOP_SLACK_NS && stop_after_return(pr, start + shift, ms);
        }
        if (holds && from_stamp < lag - LATE_STAMP_NS) {
            lag = from_stamp > 0.0 ? from_stamp : 0.0;
            stamped_late = !pr->late;
        }
    }
    double off = lag;
    enum kprof_pred pred = pr->idle_lag_ns ? KPROF_PRED_IDLE : (enum kprof_pred)pr->pred;
    double handoff =
        pr->kind != KPROF_TARGET_COPY ? kprof_calibration_handoff(&pr->pool->calib, pr->shared, pred) : 0.0;
    /* And what the kernel's parameters add to any hand-off: the GPU takes them in after the start event. */
    const struct kprof_kernel *kk = pr->kind != KPROF_TARGET_COPY ? pr->target : NULL;
    double params = kk && !kk->is_graph
                        ? kprof_calibration_param_ns(&pr->pool->calib, kprof_kernel_param_bytes(kk))
                        : 0.0;
    /* Started while another stream copied host to device (its launch read by the GPU at the pair's start,
     * or after the launch's return on an idle stream): the kernel waited for the GPU's reads from host
     * memory, as much as behind a kernel plus the calibrated delay, however long the hand-off behind its
     * own predecessor would have been; not in addition to it (behind its own stream's HtoD copy, the
     * hand-off is already that long: docs/accuracy.md, "An HtoD copy beside").  Not graph launches, whose
     * kernels' launches the GPU may read from device memory (not measured). */
    double beside = kk && !kk->is_graph && known &&
                            (pr->pool->nhtod || __atomic_load_n(&pr->pool->htod_queued, __ATOMIC_RELAXED))
                        ? kprof_calibration_beside_htod(&pr->pool->calib)
                        : 0.0;
    if (beside > 0.0 && beside_htod(q, pr, start + lag)) {
        double waited = pred == KPROF_PRED_IDLE
                            ? handoff + beside
                            : kprof_calibration_handoff(&pr->pool->calib, pr->shared, KPROF_PRED_KERNEL) + beside;
        if (waited > handoff)
            handoff = waited;
        s.beside_htod = 1;
    }
    off += handoff + params;
    s.dur_ns = (double)ns > off ? (uint64_t)((double)ns - (off > 0.0 ? off : 0.0) + 0.5) : 0;
    if (idle_stop_ns >= 0.0) {
        s.dur_ns = (uint64_t)(idle_stop_ns + 0.5);
        s.stop_idle = 1;
    }
    if (start_idle) {
        s.dur_ns = (uint64_t)(start_idle_read(pr, ns, start + shift) + 0.5);
        s.start_idle = 1;
    }
    s.start_idle |= (unsigned char)stamped_late;
    /* KPROF_HOLD=N: pairs measured in full teach, the others take their shape's learned offset off
     * (offsets.c): first the hold's (drawn or not, a start of its own), then the gap's (behind a short
     * backlog: the reference is read with the hold's offset already off).  Never longer than the pair. */
    int unlearned = 0, gap_unlearned = 0;
    int as_read = s.stop_idle || start_idle; /* read as above: no offset learned or taken off */
    unsigned hold_kind = as_read ? 0 : pr->unheld ? pr->unheld : pr->hold_ref;
    enum kprof_offset_role hold_role = !pr->unheld               ? KPROF_OFFSET_REF
                                       : pr->blind && pr->shared ? KPROF_OFFSET_IDLE
                                       : pr->blind               ? KPROF_OFFSET_BLIND
                                                                 : KPROF_OFFSET_CHEAP;
    unsigned gap_kind = pr->gap && !as_read ? KPROF_OFFSET_GAP : KPROF_OFFSET_NONE;
    enum kprof_offset_role gap_role = pr->gap == 2 ? KPROF_OFFSET_REF : KPROF_OFFSET_CHEAP;
    struct offset *hold_o, *gap_o;
    double hold_in = (double)s.dur_ns, hold_applied = 0.0, gap_applied = 0.0; /* for kprof_offset_forget */
    double hold_off = kprof_offset_learn(pr->pool, pr, hold_kind, hold_role, hold_in, &unlearned, &hold_o);
    /* Started at an idle stream's last stop (timing.c, idle_shared), the pair holds the host's time since
     * that stop: read as its references' mean, ending at its stop, which is what its kernel's total comes to
     * for such launches all the same (kprof_offsets_settle), rather than that less the running offset
     * (from 0 to a host pause's length for a launch; its queue time and trace row with it). */
    if (hold_role == KPROF_OFFSET_IDLE && !unlearned) {
        double m = kprof_offset_ref_mean(hold_o);
        if (m >= 0.0)
            hold_off = (double)s.dur_ns - m;
    }
    double gap_in = (double)s.dur_ns - hold_off;
    double gap_off = kprof_offset_learn(pr->pool, pr, gap_kind, gap_role, gap_in, &gap_unlearned, &gap_o);
    if (hold_off != 0.0 || gap_off != 0.0) {
        double before = (double)s.dur_ns, d = before - hold_off - gap_off;
        s.dur_ns = d <= 0.0 ? 0 : d >= (double)ns ? ns : (uint64_t)(d + 0.5);
        double taken = before - (double)s.dur_ns; /* what the clamps left of the two, shared out */
        double whole = hold_off + gap_off;
        hold_applied = whole != 0.0 ? taken * hold_off / whole : 0.0;
        gap_applied = whole != 0.0 ? taken * gap_off / whole : 0.0;
        kprof_offset_applied(hold_o, hold_role, hold_applied);
        kprof_offset_applied(gap_o, gap_role, gap_applied);
    }
    unlearned |= gap_unlearned;
    s.offset_read = (unsigned char)((hold_kind && hold_role != KPROF_OFFSET_REF) ||
                                    (gap_kind && gap_role == KPROF_OFFSET_CHEAP));
    s.read_as = (unsigned char)((!hold_kind || hold_role == KPROF_OFFSET_REF ? KPROF_READ_FULL
                                 : hold_role == KPROF_OFFSET_IDLE              ? KPROF_READ_IDLE_SHARED
                                 : hold_role == KPROF_OFFSET_BLIND             ? KPROF_READ_BLIND
                                                                               : KPROF_READ_UNHELD) |
                                (gap_kind && gap_role == KPROF_OFFSET_CHEAP ? KPROF_READ_GAP : 0));
    s.thin = s.offset_read || pr->thin > 31 ? 0 : pr->thin;
    s.check_held = pr->check_held;
    /* Waited for a kernel of another stream that filled the device: that wait taken off too. */
    if (known && !as_read && kk && !kk->is_graph &&
        pr->pool->nfill && (pr->pool->fill_queues || pr->pool->fill_queue != q->index)) {
        double kernel = start + (double)(ns - s.dur_ns), stop = start + (double)ms * 1e6;
        double moved = past_filling(q, pr, kernel, stop) - kernel;
        if (moved > 0.5) {
            s.dur_ns = moved >= (double)s.dur_ns ? 0 : s.dur_ns - (uint64_t)(moved + 0.5);
            s.behind_filling = 1;
            /* Its start is that kernel's end whatever the offsets: their entries neither learn from this
             * pair (it held the wait) nor settle their offsets on it later (kprof_offsets_settle). */
            kprof_offset_forget(hold_o, pr, hold_role, hold_in, hold_applied);
            kprof_offset_forget(gap_o, pr, gap_role, gap_in, gap_applied);
        }
    }
    if (!stamped_idle && !start_idle)
        usual_add(pr, s.dur_ns);
    /* Before a shape's first held launch is read; a host held up; a kernel beside an HtoD copy, or behind one
     * that filled the device. */
    if (unlearned || as_read || s.start_idle || s.beside_htod || s.behind_filling) {
        pthread_mutex_lock(&kprof_ev.lock);
        kprof_ev.n.unheld_unlearned += unlearned;
        kprof_ev.n.stop_idle += s.stop_idle;
        kprof_ev.n.start_idle += s.start_idle;
        kprof_ev.n.beside_htod += s.beside_htod;
        kprof_ev.n.behind_filling += s.behind_filling;
        pthread_mutex_unlock(&kprof_ev.lock);
    }
    s.taken_ns = ns - s.dur_ns;
    s.pred = pr->idle_lag_ns ? KPROF_PRED_IDLE : pr->pred;
    s.shared = (unsigned char)pr->shared;
    s.kind = pr->kind;
    s.target = pr->target;
    s.weight = pr->weight;
    s.auto_weight = pr->auto_weight;
    s.bytes = pr->bytes;
    s.device = pr->pool->device;
    s.stream_index = q->index;
    memcpy(s.grid, pr->grid, sizeof s.grid);
    memcpy(s.block, pr->block, sizeof s.block);
    q->last_stop_seq = 0;
    if (known) {
        q->last_stop_ns = start + (double)ms * 1e6;
        q->last_shift_ns = shift;
        q->last_stop_seq = pr->seq + 1;
        if (pr->fills) { /* for past_filling: from its kernel's start */
            struct pool *p = pr->pool;
            if (p->nfill == 0)
                p->fill_queue = q->index;
            else if (p->fill_queue != q->index)
                p->fill_queues = 1;
            unsigned i = (unsigned)(p->nfill++ % FILL_RING);
            p->fill[i].t0 = start + (s.stop_idle ? 0.0 : (double)(ns - s.dur_ns));
            p->fill[i].t1 = start + (double)ms * 1e6;
            p->fill[i].queue = q->index;
            p->fill[i].priority = __atomic_load_n(&q->priority, __ATOMIC_RELAXED);
        }
        if (kprof_big_htod(pr->kind, pr->target, pr->bytes)) { /* for beside_htod */
            struct pool *p = pr->pool;
            unsigned i = (unsigned)(p->nhtod++ % HTOD_RING);
            p->htod[i].t0 = start;
            p->htod[i].t1 = start + (double)ms * 1e6;
            p->htod[i].queue = q->index;
        }
        /* The kernel's start: at the pair's start less what was taken off before it; with its stop stamped
         * on an idle stream, not known (placed at the pair's start, no queue time). */
        start += s.stop_idle ? 0.0 : (double)(ns - s.dur_ns);
        s.start_ns = start > 0.0 ? (uint64_t)(start + 0.5) : 0;
        s.has_time = 1;
    }
    /* Kernels: the launch call's host time, and the queue time from the call's start to the kernel's start,
     * the latter read on the host clock through the reference's host anchor (less what a hold kept it
     * waiting past the call's return); below 0 (the model's error) it reads 0. */
    if (pr->kind != KPROF_TARGET_COPY && pr->call_ns) {
        s.has_split = 1;
        s.launch_host_ns = pr->launch_ns;
        if (known && !s.stop_idle) {
            double queue = start + shift - (double)(pr->call_ns - kprof_start_ns) - (double)pr->hold_ns;
            s.has_queue = 1;
            s.queue_ns = queue > 0.0 ? (uint64_t)(queue + 0.5) : 0;
        }
    }
    kprof_sample_record(&s);
}

/* How many of q's oldest pairs, HARVEST_BATCH at most, have completed, with as few queries as stream order
 * allows: one stream runs in order, so once a stop has completed so have the stops before it.  The newest
 * of them is asked first (the usual answer: all of them, for one query); if it has not completed, the
 * oldest, then the 2nd, 4th, 8th, ... oldest until one has not, and the boundary is found by halving
 * between (about 2 log2 k queries for k completed, where asking each in turn took k + 1).  A query that
 * fails otherwise (a context gone) counts as completed: cuEventElapsedTime then fails too, and the pair is
 * dropped as failed.  (Should two threads share a stream and queue their pairs out of stream order, or a
 * queue hold two streams' pairs, cuEventElapsedTime still refuses a pair that is not complete:
 * harvest_queues asks each from there on.)  A cuEventQuery costs 1.1 to 2.2 us on an H100 and slows a
 * thread launching meanwhile (docs/probes/driver-contention.cu); asking each pair pushed while a pass read
 * the ones before it cost 0.64 queries a pair on the fake GPU's 1-stream launch loop
 * (tests/harvester-asks-once-a-round.sh).  Called with kprof_ev.lock held, released around the queries. */
static size_t completed_prefix(struct queue *q, CUcontext *cur)
{
    size_t n = q->count < HARVEST_BATCH ? q->count : HARVEST_BATCH;
    if (n == 0)
        return 0;
    CUevent stops[HARVEST_BATCH];
    for (size_t i = 0; i < n; i++)
        stops[i] = kprof_ring_at(q, i)->stop;
    CUcontext ctx = q->key.ctx;
    pthread_mutex_unlock(&kprof_ev.lock); /* only this pass pops: these pairs stay queued meanwhile */
    if (*cur != ctx && kprof_drv.cuCtxSetCurrent(ctx) == CUDA_SUCCESS)
        *cur = ctx;
    size_t lo = 0, hi = n - 1; /* pairs before lo completed; the first not completed is in [lo, hi] */
    CUresult r;
    SEG_H(SEG_H_QUERY, r = kprof_drv.cuEventQuery(stops[n - 1]));
    if (r != CUDA_ERROR_NOT_READY) {
        lo = n;
    } else {
        for (size_t i = 0; i < hi; i = 2 * i + 1) { /* the oldest, then 1, 3, 7, ...: few when few completed */
            SEG_H(SEG_H_QUERY, r = kprof_drv.cuEventQuery(stops[i]));
            if (r == CUDA_ERROR_NOT_READY) {
                hi = i;
                break;
            }
            lo = i + 1;
        }
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            SEG_H(SEG_H_QUERY, r = kprof_drv.cuEventQuery(stops[mid]));
            if (r != CUDA_ERROR_NOT_READY)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    SEG_H(SEG_H_LOCK, pthread_mutex_lock(&kprof_ev.lock));
    return lo;
}

/* One round over every queue's completed head pairs, from the oldest: returns the number of pairs read;
 * sets *again when a pair waited for another queue's (fill_first).  *cur is the context current on this
 * thread.  Called and returns with kprof_ev.lock held, which it takes only around queue updates, never
 * across a driver call. */
static long harvest_queues(CUcontext *cur, int *again)
{
    long done = 0;
    for (struct queue *q = kprof_ev.queues, *next; q; q = next) {
        /* Rounds of up to HARVEST_BATCH pairs known complete (completed_prefix), each read with one lock
         * round trip; another round only after a full one (a backlog): pairs queued while this pass read
         * the ones before them wait for the next pass, rather than cost a query each. */
        for (size_t known_done; (known_done = completed_prefix(q, cur)) > 0;) {
            struct pair batch[HARVEST_BATCH];
            size_t n = known_done;
            for (size_t i = 0; i < n; i++)
                batch[i] = *kprof_ring_at(q, i);
            CUcontext ctx = q->key.ctx;
            pthread_mutex_unlock(&kprof_ev.lock);

            if (*cur != ctx && kprof_drv.cuCtxSetCurrent(ctx) == CUDA_SUCCESS)
                *cur = ctx;
            CUresult r = CUDA_SUCCESS, res[HARVEST_BATCH];
            size_t read = 0;
            for (; read < n; read++) {
                const struct pair *pr = &batch[read];
                r = known_done > 0 ? CUDA_SUCCESS : kprof_drv.cuEventQuery(pr->stop);
                float ms = 0.0f;
                if (r == CUDA_SUCCESS)
                    SEG_H(SEG_H_ELAPSED, r = kprof_drv.cuEventElapsedTime_v2(&ms, pr->start, pr->stop));
                if (r == CUDA_ERROR_NOT_READY && known_done > 0) {
                    /* The newest stop done and this pair not: two streams' pairs in one queue (a stream
                     * destroyed with work in flight, its handle given to a new one).  Each asked from here
                     * on, this one first (a driver may report an event complete only once asked). */
                    known_done = 0;
                    r = kprof_drv.cuEventQuery(pr->stop);
                    if (r == CUDA_SUCCESS)
                        r = kprof_drv.cuEventElapsedTime_v2(&ms, pr->start, pr->stop);
                }
                /* An overdue hold's mark, on libkprof's idle stream, is due any moment: read the pair with it
                 * at the next pass (pair_account), and give the mark back only once it has completed. */
                if (r == CUDA_SUCCESS && pr->mark && kprof_drv.cuEventQuery(pr->mark) == CUDA_ERROR_NOT_READY)
                    r = CUDA_ERROR_NOT_READY;
                if (r == CUDA_SUCCESS && fill_first(q, pr)) { /* after the other queues, in this pass */
                    r = CUDA_ERROR_NOT_READY;
                    *again = 1;
                }
                if (r == CUDA_ERROR_NOT_READY)
                    break;
                if (r == CUDA_SUCCESS)
                    SEG_H(SEG_H_ACCOUNT, pair_account(q, pr, ms)); /* before the events go back to the pool */
                res[read] = r;
            }

            SEG_H(SEG_H_LOCK, pthread_mutex_lock(&kprof_ev.lock));
            for (size_t i = 0; i < read; i++) {
                const struct pair *pr = &batch[i];
                int own_stop = q->ring[q->head].own_stop; /* may have changed since the copy */
                q->head = (q->head + 1) & (q->cap - 1);
                q->count--;
                q->popped++;
                kprof_ev.pending--;
                if (kprof_big_htod(pr->kind, pr->target, pr->bytes))
                    __atomic_store_n(&pr->pool->htod_queued, pr->pool->htod_queued - 1, __ATOMIC_RELAXED);
                if (pr->fills) {
                    __atomic_store_n(&pr->pool->fill_queued, pr->pool->fill_queued - 1, __ATOMIC_RELAXED);
                    __atomic_store_n(&q->fills_queued, q->fills_queued - 1, __ATOMIC_RELAXED);
                }
                if (res[i] == CUDA_SUCCESS) {
                    if (!pr->pool->dead) {
                        kprof_ev_pool_give(pr->pool, pr->start); /* shared or not, the start is this pair's to give */
                        if (own_stop && !(i + 1 == read && kprof_ev_queue_keep(q, pr)))
                            kprof_ev_pool_give(pr->pool, pr->stop);
                        if (pr->mark)
                            kprof_ev_pool_give(pr->pool, pr->mark);
                    }
                    done++;
                } else {
                    /* The context is gone or faulted: its events cannot be reused. */
                    kprof_ev.n.failed++;
                }
            }
            if (r == CUDA_ERROR_NOT_READY || n < HARVEST_BATCH)
                break;
        }
        next = q->hh.next; /* only this pass takes queues out of the table */
        kprof_ev_queue_retire(q);
    }
    return done;
}

/* One pass over every queue's completed head pairs.  Returns the number of pairs harvested.  Claims the
 * `harvesting` flag (so only this pass pops) and takes kprof_ev.lock only around queue updates, never across a
 * driver call, so the app's threads are not held up. */
static long harvest_once(void)
{
    long done = 0;
    int idle = 0;
    /* The flag first, then fork()'s: fork_prepare (pool.c) sets its own, then waits for this one to clear,
     * so that either it sees this pass or this pass sees it (both sequentially consistent). */
    if (!__atomic_compare_exchange_n(&kprof_ev.harvesting, &idle, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        return 0; /* another pass is running (its caller will see what it read) */
    if (__atomic_load_n(&kprof_ev.forking, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&kprof_ev.harvesting, 0, __ATOMIC_SEQ_CST);
        return 0; /* fork() is under way */
    }
    CUcontext saved = NULL, cur = NULL;
    SEG_H(SEG_H_CTX, kprof_drv.cuCtxGetCurrent(&saved));
    cur = saved;

    SEG_H(SEG_H_LOCK, pthread_mutex_lock(&kprof_ev.lock));
    for (struct pool *p = kprof_ev.pools; p; p = p->next) {
        if (p->dead)
            continue;
        pthread_mutex_unlock(&kprof_ev.lock);
        SEG_H(SEG_H_CTX, if (cur != p->ctx && kprof_drv.cuCtxSetCurrent(p->ctx) == CUDA_SUCCESS) cur = p->ctx);
        if (cur == p->ctx)
            SEG_H(SEG_H_REF, ref_complete(p); kprof_ev_ref_request(p, kprof_now_ns()));
        SEG_H(SEG_H_LOCK, pthread_mutex_lock(&kprof_ev.lock));
    }
    /* The queues in turn, again while a pair waited for another queue's (fill_first) and pairs were read. */
    for (int round = 0, again = 1; again && round < FILL_ROUNDS; round++) {
        again = 0;
        long n;
        SEG_H(SEG_H_QUEUES, n = harvest_queues(&cur, &again));
        if (n == 0)
            break;
        done += n;
    }
    struct pool *pools = kprof_ev.pools; /* never freed; each one's next is set before it is listed */
    pthread_mutex_unlock(&kprof_ev.lock);
    int all = __atomic_load_n(&kprof_ev.settle_all, __ATOMIC_ACQUIRE);
    for (struct pool *p = pools; p; p = p->next)
        if (p->offsets_dirty || all)
            SEG_H(SEG_H_SETTLE, kprof_offsets_settle(p, all));

    if (cur != saved)
        SEG_H(SEG_H_CTX, kprof_drv.cuCtxSetCurrent(saved));
    __atomic_store_n(&kprof_ev.harvesting, 0, __ATOMIC_RELEASE);
    return done;
}

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void *harvester_main(void *arg)
{
    (void)arg;
    kprof_tls_depth = 1; /* nothing this thread does is the app's */
    /* Named for whoever lists the app's threads (top -H, gdb, a profiler's timeline), and for the fake GPU's
     * count of the harvester's queries (FAKEGPU_TRUTH_QUERIES); 15 characters, the most Linux keeps. */
    pthread_setname_np(pthread_self(), "kprof-harvester");
    /* An event query from another thread would otherwise break an app's global-mode stream capture. */
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    kprof_drv.cuThreadExchangeStreamCaptureMode(&mode);

    long idle_us = 100;
    int dozes = 0;
    for (;;) {
        pthread_mutex_lock(&kprof_ev.lock);
        /* Nothing to read.  KPROF_SAMPLE other than 1: first a doze of DOZE_MS at a time, up to DOZE_TIMES,
         * unwoken by the calls timed meanwhile (harvester_sleeping stays 0: the futex wake cost each sampled
         * launch that signalled 0.9 to 2.2 us of host time on the H200, docs/performance.md), then sleep
         * until a timed call wakes it.  Every launch timed, it sleeps at once: with the doze, the kernel of
         * the accuracy suite's pipeline_8threads read 1.07 and 1.21 us over CUPTI's mean on the H200 in two
         * runs, against 0.49 without (54 stops stamped on an idle stream against 27; why is not known).
         * Stopping wakes either. */
        while (!kprof_ev.harvester_stop && kprof_ev.pending == 0) {
            if (dozes < DOZE_TIMES && kprof_config.sample != 1) {
                struct timespec until = kprof_wait_deadline_ms(DOZE_MS);
                pthread_cond_clockwait(&kprof_ev.wake, &kprof_ev.lock, CLOCK_MONOTONIC, &until);
                dozes++;
                continue;
            }
            kprof_ev.harvester_sleeping = 1;
            pthread_cond_wait(&kprof_ev.wake, &kprof_ev.lock);
            kprof_ev.harvester_sleeping = 0;
        }
        dozes = 0;
        int stop = kprof_ev.harvester_stop;
        pthread_mutex_unlock(&kprof_ev.lock);
        if (stop)
            break;
        /* Poll slower while the GPU is busy with long work, faster while pairs complete. */
        if (SEG_PASS(harvest_once()) > 0)
            idle_us = 100;
        else if (idle_us < 2000)
            idle_us *= 2;
#ifdef KPROF_PROBE_SEG
        { /* probe builds: KPROF_PROBE_PASS_US, the least sleep between passes (how much the pace costs) */
            static long least = -1;
            if (least < 0) {
                const char *v = getenv("KPROF_PROBE_PASS_US");
                least = v ? atol(v) : 0;
            }
            if (idle_us < least)
                idle_us = least;
        }
#endif
        sleep_us(idle_us);
    }
    return NULL;
}

long kprof_events_drain(long timeout_ms)
{
    pthread_mutex_lock(&kprof_ev.lock);
    int started = kprof_ev.harvester_started;
    kprof_ev.harvester_stop = 1;
    pthread_cond_signal(&kprof_ev.wake);
    pthread_mutex_unlock(&kprof_ev.lock);
    if (started && !pthread_equal(pthread_self(), kprof_ev.harvester))
        pthread_join(kprof_ev.harvester, NULL);

    uint64_t deadline = kprof_now_ns() + (uint64_t)timeout_ms * 1000000u;
    long left;
    for (;;) {
        harvest_once();
        pthread_mutex_lock(&kprof_ev.lock);
        left = kprof_ev.pending;
        pthread_mutex_unlock(&kprof_ev.lock);
        if (left == 0 || kprof_now_ns() >= deadline)
            break;
        sleep_us(200);
    }
    /* Every kernel's total on the offsets as learned last (the joint tests' last answers included). */
    __atomic_store_n(&kprof_ev.settle_all, 1, __ATOMIC_RELEASE);
    harvest_once();
    __atomic_store_n(&kprof_ev.settle_all, 0, __ATOMIC_RELEASE);
    pthread_mutex_lock(&kprof_ev.lock);
    kprof_ev.n.incomplete = left;
    pthread_mutex_unlock(&kprof_ev.lock);
    if (left > 0)
        kprof_warn("%ld timed call(s) had not completed on the GPU after %ld ms; they are counted but untimed",
                   left, timeout_ms);
    return left;
}

/* kprof_ev.in_flight's shards count the timed calls between finding their pool (timing.c's
 * begin_find_pool) and their end (kprof_timing_end, or begin_undo when they stay untimed); a thread counts in
 * one shard, so each stays at 0 or more. */
static long in_flight(void)
{
    long n = 0;
    for (int i = 0; i < KPROF_FLIGHT_SHARDS; i++)
        n += __atomic_load_n(&kprof_ev.in_flight[i].n, __ATOMIC_SEQ_CST);
    return n;
}

long kprof_events_wait_in_flight(long timeout_ms)
{
    uint64_t deadline = kprof_now_ns() + (uint64_t)timeout_ms * 1000000u;
    long n;
    while ((n = in_flight()) > 0 && kprof_now_ns() < deadline)
        sleep_us(100);
    return n;
}

void kprof_events_teardown_begin(void)
{
    __atomic_add_fetch(&kprof_ev.teardowns, 1, __ATOMIC_SEQ_CST); /* before reading in_flight (timing.c) */
}

void kprof_events_teardown_end(void)
{
    __atomic_sub_fetch(&kprof_ev.teardowns, 1, __ATOMIC_SEQ_CST);
}

void kprof_events_context_ending(CUcontext ctx, int dev, long timeout_ms)
{
    uint64_t deadline = kprof_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        harvest_once();
        long left = 0;
        pthread_mutex_lock(&kprof_ev.lock);
        for (struct queue *q = kprof_ev.queues; q; q = q->hh.next)
            for (size_t i = 0; i < q->count; i++)
                left += kprof_ev_pool_matches(kprof_ring_at(q, i)->pool, ctx, dev);
        pthread_mutex_unlock(&kprof_ev.lock);
        if (left == 0)
            return;
        if (kprof_now_ns() >= deadline) {
            kprof_warn("%ld timed call(s) of a context being destroyed had not completed after %ld ms; "
                       "they are lost", left, timeout_ms);
            return;
        }
        sleep_us(200);
    }
}
