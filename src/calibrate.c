/* calibrate.c: measures, once per context, the hand-off an event pair adds to a kernel behind each kind
 * of predecessor, by timing libkprof's own kernel (kprof_calibrate, PTX) on its private stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda_api.h"
#include "calibrate.h"
#include "log.h"
#include "kprof_config.h"
#include "resolve.h"
#include "clock.h"
#include "call.h"
#include "graphs.h"

/* The body of kprof_calibrate and kprof_calibrate_wide (their parameters kprof_ns and kprof_out). */
#define SPIN_BODY_PTX                                                                                      \
    "{\n"                                                                                                  \
    "  .reg .pred %p;\n"                                                                                   \
    "  .reg .b64 %t0, %t, %d, %n, %o;\n"                                                                   \
    "  ld.param.u64 %n, [kprof_ns];\n"                                                                     \
    "  ld.param.u64 %o, [kprof_out];\n"                                                                    \
    "  mov.u64 %t0, %globaltimer;\n"                                                                       \
    "SPIN:\n"                                                                                              \
    "  mov.u64 %t, %globaltimer;\n"                                                                        \
    "  sub.u64 %d, %t, %t0;\n"                                                                             \
    "  setp.lt.u64 %p, %d, %n;\n"                                                                          \
    "  @%p bra SPIN;\n"                                                                                    \
    "  setp.eq.u64 %p, %o, 0;\n"                                                                           \
    "  @%p bra DONE;\n"                                                                                    \
    "  cvta.to.global.u64 %o, %o;\n"                                                                       \
    "  st.global.u64 [%o], %t0;\n"                                                                         \
    "  st.global.u64 [%o+8], %t;\n"                                                                        \
    "DONE:\n"                                                                                              \
    "  ret;\n"                                                                                             \
    "}\n"

/* kprof_calibrate(ns, out): spins until %globaltimer has advanced by ns, then (out not NULL) writes the
 * timer's value at its start and at its end to out[0] and out[1].  One block of 32 threads: every thread
 * spins, thread order does not matter (they all store the same kind of value; the span is what is read).
 * kprof_hold(word, seq, timeout): one thread reads the 32-bit word (pinned host memory) until it has reached
 * seq (compared as a signed difference, so the count may wrap) or timeout ns have passed (struct
 * kprof_hold). */
static const char calibrate_ptx[] =
    ".version 7.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry kprof_calibrate(.param .u64 kprof_ns, .param .u64 kprof_out)\n"
    SPIN_BODY_PTX
    ".visible .entry kprof_hold(.param .u64 kprof_word, .param .u32 kprof_seq, .param .u64 kprof_timeout)\n"
    "{\n"
    "  .reg .pred %p;\n"
    "  .reg .b32 %v, %s, %d;\n"
    "  .reg .b64 %w, %t0, %t, %e, %n;\n"
    "  ld.param.u64 %w, [kprof_word];\n"
    "  ld.param.u32 %s, [kprof_seq];\n"
    "  ld.param.u64 %n, [kprof_timeout];\n"
    "  cvta.to.global.u64 %w, %w;\n"
    "  mov.u64 %t0, %globaltimer;\n"
    "WAIT:\n"
    "  ld.volatile.global.u32 %v, [%w];\n"
    "  sub.s32 %d, %v, %s;\n"
    "  setp.ge.s32 %p, %d, 0;\n"
    "  @%p bra OUT;\n"
    "  mov.u64 %t, %globaltimer;\n"
    "  sub.u64 %e, %t, %t0;\n"
    "  setp.lt.u64 %p, %e, %n;\n"
    "  @%p bra WAIT;\n"
    "OUT:\n"
    "  ret;\n"
    "}\n";

/* kprof_calibrate_wide(ns, out, pad): kprof_calibrate with a parameter block of KPROF_CALIB_WIDE_BYTES (pad
 * unread), for what a launch's parameters add to its hand-off.  A module of its own: parameter blocks
 * beyond 4 KiB need PTX ISA 8.1 and sm_70 (CUDA 12.1), which an older driver or GPU refuses without
 * failing the rest of the calibration. */
static const char calibrate_wide_ptx[] =
    ".version 8.1\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry kprof_calibrate_wide(.param .u64 kprof_ns, .param .u64 kprof_out, .param .align 8 .b8 kprof_pad[32736])\n"
    SPIN_BODY_PTX;
/* Its pad's contents (never read). */
static const unsigned char wide_pad[KPROF_CALIB_WIDE_BYTES - KPROF_CALIB_PARAM_BYTES];

#define WARMUP 2
#define REPS 16                 /* timed launches per situation */
#define COPY_REPS 48            /* behind a copy: its hand-off spreads by a few us, so more launches for its mean */
#define SPIN_NS 3000ull         /* the timed kernel: short, as the kernels most hurt by a hand-off are */
#define PRED_SPIN_NS 40000ull   /* a kernel first, so that the stream is still busy when the timed launch returns */
#define COPY_BYTES (1u << 20)   /* copy and memset predecessors */
#define BESIDE_BYTES (8u << 20) /* each HtoD copy beside: one long copy (1 MiB copies back to back delay a
                                   kernel's start less, 3 to 6 us against 6 on an H200) */
#define BESIDE_COPIES_MAX 16u   /* HtoD copies beside the timed launch, at most (a very fast link) */

struct bench {
    CUfunction fn;
    CUfunction wide;            /* kprof_calibrate_wide, or NULL */
    int timed_wide;             /* measure's timed launches are of wide */
    struct kprof_hold *hold;    /* the context's holds (ok 0: HELD and HELD_KERNEL are not measured) */
    uint32_t seq;               /* the last hold number used on slot 0, calibration's own */
    CUstream s, other;
    CUdeviceptr d, d2, out;
    void *h;                    /* COPY_BYTES of pinned memory, then the 16 bytes read back from out */
    CUdeviceptr dbig;           /* BESIDE_BYTES each, for the copies beside (0, NULL: not made) */
    void *hbig;
    CUevent ep, e1, e2, ew;
};

static CUresult spin(struct bench *b, CUstream s, unsigned long long ns, CUdeviceptr out)
{
    void *params[] = { &ns, &out };
    return kprof_drv.cuLaunchKernel(b->fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

/* measure's timed launch: fn, or wide when b->timed_wide. */
static CUresult spin_timed(struct bench *b, unsigned long long ns, CUdeviceptr out)
{
    if (!b->timed_wide)
        return spin(b, b->s, ns, out);
    void *params[] = { &ns, &out, (void *)wide_pad };
    return kprof_drv.cuLaunchKernel(b->wide, 1, 1, 1, 32, 1, 1, 0, b->s, params, NULL);
}

/* Puts predecessor p on the bench stream, queued behind a kernel so that the stream is still busy when the
 * timed launch returns (as on a busy stream; IDLE puts nothing). */
static CUresult put_pred(struct bench *b, enum kprof_pred p)
{
    if (p == KPROF_PRED_IDLE)
        return CUDA_SUCCESS;
    CUresult r = spin(b, b->s, PRED_SPIN_NS, 0);
    if (r != CUDA_SUCCESS)
        return r;
    switch (p) {
    case KPROF_PRED_HTOD: return kprof_drv.cuMemcpyHtoDAsync_v2(b->d, b->h, COPY_BYTES, b->s);
    case KPROF_PRED_DTOH: return kprof_drv.cuMemcpyDtoHAsync_v2(b->h, b->d, COPY_BYTES, b->s);
    case KPROF_PRED_DTOD: return kprof_drv.cuMemcpyDtoDAsync_v2(b->d2, b->d, COPY_BYTES, b->s);
    case KPROF_PRED_MEMSET: return kprof_drv.cuMemsetD8Async(b->d, 0, COPY_BYTES, b->s);
    case KPROF_PRED_OTHER: /* a wait for another stream's pending kernel */
        r = spin(b, b->other, 2 * PRED_SPIN_NS, 0);
        if (r == CUDA_SUCCESS)
            r = kprof_drv.cuEventRecord(b->ew, b->other);
        return r == CUDA_SUCCESS ? kprof_drv.cuStreamWaitEvent(b->s, b->ew, 0) : r;
    default: return CUDA_SUCCESS; /* KERNEL: the spin above */
    }
}

/* Queues n HtoD copies of BESIDE_BYTES on b->other, to start with the bench stream's work queued next: each
 * stream waits for the other's work so far (both drained on a GPU; a simulated one may keep a clock per
 * stream). */
static CUresult put_beside(struct bench *b, unsigned n)
{
    CUresult r = kprof_drv.cuStreamSynchronize(b->other);
    if (r == CUDA_SUCCESS)
        r = kprof_drv.cuEventRecord(b->ew, b->other);
    if (r == CUDA_SUCCESS)
        r = kprof_drv.cuStreamWaitEvent(b->s, b->ew, 0);
    if (r == CUDA_SUCCESS)
        r = kprof_drv.cuEventRecord(b->ew, b->s);
    if (r == CUDA_SUCCESS)
        r = kprof_drv.cuStreamWaitEvent(b->other, b->ew, 0);
    for (unsigned i = 0; r == CUDA_SUCCESS && i < n; i++)
        r = kprof_drv.cuMemcpyHtoDAsync_v2(b->dbig, b->hbig, BESIDE_BYTES, b->other);
    return r;
}

/* How many HtoD copies of BESIDE_BYTES on b->other outlast a timed launch behind a kernel (the predecessor
 * and the timed kernel, with room to spare), from one copy timed first: 1 to BESIDE_COPIES_MAX, 0 on a
 * driver failure. */
static unsigned beside_copies(struct bench *b)
{
    float ms = 0.0f;
    if (kprof_drv.cuEventRecord(b->e1, b->other) != CUDA_SUCCESS ||
        kprof_drv.cuMemcpyHtoDAsync_v2(b->dbig, b->hbig, BESIDE_BYTES, b->other) != CUDA_SUCCESS ||
        kprof_drv.cuEventRecord(b->e2, b->other) != CUDA_SUCCESS ||
        kprof_drv.cuStreamSynchronize(b->other) != CUDA_SUCCESS ||
        kprof_drv.cuEventElapsedTime_v2(&ms, b->e1, b->e2) != CUDA_SUCCESS)
        return 0;
    double copy_ns = (double)ms * 1e6, want = 2.0 * (double)(PRED_SPIN_NS + SPIN_NS) + 20000.0;
    kprof_debug("calibration: an HtoD copy of %u bytes took %.0f ns", BESIDE_BYTES, copy_ns);
    if (copy_ns <= 0.0 || copy_ns * BESIDE_COPIES_MAX < want)
        return BESIDE_COPIES_MAX;
    return (unsigned)(want / copy_ns) + 1;
}

#define SEEN_REPS 24     /* event records polled for seen_ns */
#define SEEN_DROP 2      /* of their bounds, the least left out (records the GPU happened to process sooner) */
#define SEEN_POLLS 100000 /* queries of one record at most (an H200 answers within about 10) */
#define SEEN_MAX_NS 20000.0 /* a record still pending after this long: the GPU is not idle (another process,
                               a GPU time-sliced), so no bound is kept (an H200 reads 1.3 to 3.2 us) */

static int cmp_double(const void *a, const void *b);

/* c->seen_ns: SEEN_REPS records of b->e1 on the idle bench stream, every other one right after the one
 * before was seen complete (the GPU awake), each polled until seen complete; for each, the host time
 * from the record's return to the start of the last query that found it pending, a lower bound of when
 * it was seen; the least of them but SEEN_DROP (0 when more than SEEN_DROP records were seen at the first
 * query, or one was still pending after SEEN_MAX_NS: no bound then).  The least alone let one record the
 * GPU happened to process sooner set the bound for the run: an H100 read 866 ns where other runs read
 * 2750 to 3300, and its launch loop then asked 146,000 more queries, 1 us a launch more.  -1 on a driver
 * failure (*out_ns then unset). */
static int measure_seen(struct bench *b, double *out_ns)
{
    double bounds[SEEN_REPS];
    for (int i = 0; i < SEEN_REPS; i++) {
        if ((i % 2 == 0 && kprof_drv.cuStreamSynchronize(b->s) != CUDA_SUCCESS) ||
            kprof_drv.cuEventRecord(b->e1, b->s) != CUDA_SUCCESS)
            return -1;
        uint64_t ret = kprof_now_ns(), pending_at = ret;
        CUresult r = CUDA_ERROR_NOT_READY;
        for (int k = 0; k < SEEN_POLLS && r == CUDA_ERROR_NOT_READY && (double)(pending_at - ret) < SEEN_MAX_NS;
             k++) {
            uint64_t asked = kprof_now_ns();
            r = kprof_drv.cuEventQuery(b->e1);
            if (r == CUDA_ERROR_NOT_READY)
                pending_at = asked;
        }
        int slow = r == CUDA_ERROR_NOT_READY; /* still pending (or a simulated GPU whose clock runs with the host's) */
        if (slow)
            r = kprof_drv.cuEventSynchronize(b->e1);
        if (r != CUDA_SUCCESS)
            return -1;
        if (slow && (double)(pending_at - ret) >= SEEN_MAX_NS) {
            *out_ns = 0.0;
            kprof_debug("calibration: an event record was still pending %.0f ns after its record returned; "
                        "every event is asked about", (double)(pending_at - ret));
            return 0;
        }
        bounds[i] = pending_at > ret ? (double)(pending_at - ret) : 0.0;
    }
    qsort(bounds, SEEN_REPS, sizeof bounds[0], cmp_double);
    *out_ns = bounds[SEEN_DROP];
    kprof_debug("calibration: an event record is seen complete %.0f ns after its record returns, at least",
                *out_ns);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The mean of v[0..n) without its lowest and highest eighth (one slow launch must not move it much). */
static double trimmed_mean(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int cut = n / 8;
    double sum = 0.0;
    for (int i = cut; i < n - cut; i++)
        sum += v[i];
    return sum / (double)(n - 2 * cut);
}

/* One situation: REPS launches behind p, started at their own event or at the predecessor's stop, each
 * read as libkprof reads a pair; with `beside` HtoD copies of BESIDE_BYTES queued on b->other first (they
 * start with the predecessor and run through the timed launch).  A launch that libkprof would class
 * otherwise (found idle behind a predecessor, or busy when meant idle) is left out.  Returns 1 with
 * *out_ns set, 0 when too few launches fell in the situation (*out_ns then 0), -1 on a driver failure or
 * an unreadable in-kernel clock. */
static int measure(struct bench *b, enum kprof_pred p, int shared, unsigned beside, double *out_ns)
{
    double v[COPY_REPS];
    int n = 0, reps = p == KPROF_PRED_HTOD || p == KPROF_PRED_DTOH ? COPY_REPS : REPS;
    unsigned long long *stamp = (unsigned long long *)((char *)b->h + COPY_BYTES);
    for (int i = 0; n < reps && i < WARMUP + 4 * reps; i++) {
        int held = p == KPROF_PRED_HELD || p == KPROF_PRED_HELD_KERNEL;
        if (kprof_drv.cuStreamSynchronize(b->s) != CUDA_SUCCESS || (beside && put_beside(b, beside) != CUDA_SUCCESS) ||
            put_pred(b, p == KPROF_PRED_HELD          ? KPROF_PRED_IDLE
                        : p == KPROF_PRED_HELD_KERNEL ? KPROF_PRED_HTOD
                                                      : p) != CUDA_SUCCESS)
            return -1;
        /* HELD: on a drained stream whose last work was a kernel; HELD_KERNEL: behind a copy. */
        if (p == KPROF_PRED_HELD &&
            (spin(b, b->s, 0, 0) != CUDA_SUCCESS || kprof_drv.cuStreamSynchronize(b->s) != CUDA_SUCCESS))
            return -1;
        if (held && !kprof_hold_place(b->hold, b->s, 0, ++b->seq))
            return -1;
        CUevent start = b->e1;
        if (p != KPROF_PRED_IDLE && !held && kprof_drv.cuEventRecord(b->ep, b->s) != CUDA_SUCCESS)
            goto fail;
        if (shared && p != KPROF_PRED_IDLE && !held)
            start = b->ep;
        else if (kprof_drv.cuEventRecord(b->e1, b->s) != CUDA_SUCCESS)
            goto fail;
        uint64_t t1 = kprof_now_ns(); /* as kprof_timing_begin's start_host_ns */
        if (spin_timed(b, SPIN_NS, b->out) != CUDA_SUCCESS)
            goto fail;
        uint64_t t2 = kprof_now_ns(), lag = 0; /* as kprof_timing_end's idle-stream correction */
        /* Idle by construction (synchronized, nothing queued before the start): not asked, since the host
         * may not see the start complete yet when the launch returns (calibrate.h, seen_ns: 3.3 us on an
         * H100, longer than its launch of this kernel), and with every such launch left out the idle
         * hand-off went unmeasured (docs/accuracy.md, twenty-ninth session). */
        int idle = p == KPROF_PRED_IDLE && !held ? 1 : kprof_drv.cuEventQuery(start) == CUDA_SUCCESS;
        if (idle)
            lag = t2 - t1;
        float ms = 0.0f;
        CUresult stop = kprof_drv.cuEventRecord(b->e2, b->s);
        if (held)
            kprof_hold_release(b->hold, 0, b->seq);
        if (stop != CUDA_SUCCESS || kprof_drv.cuStreamSynchronize(b->s) != CUDA_SUCCESS ||
            kprof_drv.cuEventElapsedTime_v2(&ms, start, b->e2) != CUDA_SUCCESS ||
            kprof_drv.cuMemcpyDtoHAsync_v2(stamp, b->out, 2 * sizeof *stamp, b->s) != CUDA_SUCCESS ||
            kprof_drv.cuStreamSynchronize(b->s) != CUDA_SUCCESS)
            return -1;
        double pair = (double)ms * 1e6, span = (double)(stamp[1] - stamp[0]);
        if (stamp[1] <= stamp[0] || span > pair)
            return -1; /* the kernel's clock cannot be read: no calibration rather than a wrong one */
        if (i >= WARMUP && idle == (p == KPROF_PRED_IDLE))
            v[n++] = pair - (double)lag - span - KPROF_CALIB_C0_NS;
        continue;
    fail: /* a hold placed must be released, or the stream would wait for ever */
        if (held)
            kprof_hold_release(b->hold, 0, b->seq);
        return -1;
    }
    *out_ns = 0.0;
    if (n < reps / 2)
        return 0;
    { /* KPROF_LOG=debug: each launch's hand-off, in the order measured (once a context) */
        char line[COPY_REPS * 8 + 1];
        size_t at = 0;
        for (int i = 0; i < n && at + 9 < sizeof line; i++)
            at += (size_t)snprintf(line + at, sizeof line - at, " %.0f", v[i]);
        kprof_debug("calibration %s%s%s, %u HtoD copies beside: hand-offs (ns)%s", kprof_pred_names[p],
                    shared ? " (shared start)" : "", b->timed_wide ? " (kprof_calibrate_wide)" : "", beside, line);
    }
    double m = trimmed_mean(v, n);
    /* A hand-off never adds time; the idle case's may: there it corrects the idle-stream correction,
     * which takes off the launch's whole host time, some of it after the kernel reached the GPU. */
    *out_ns = m > 0.0 || p == KPROF_PRED_IDLE ? m : 0.0;
    return 1;
}

/* What a KiB of parameters adds to a kernel's hand-off (ns, never below 0): kprof_calibrate_wide's hand-off
 * against kprof_calibrate's, both timed in the first situation where enough launches fall (behind a
 * kernel, else held, else on an idle stream: the share is the same in each on an H200) on `device`.  0
 * where kernels' parameter blocks cannot be asked (a driver before 12.4), on a GPU before sm_70 (no
 * parameter blocks beyond 4 KiB), when the wide kernel's module does not load or no situation can be
 * timed; the module stays with the context, as the first one does. */
static double measure_param_ns_per_kib(struct bench *b, int device)
{
    /* Not where it could not serve (no cuFuncGetParamInfo: a driver before 12.4) or would fail to load (a GPU
     * before sm_70): libkprof's own driver calls must not fail (tools such as compute-sanitizer report them). */
    int major = 0;
    if (!kprof_drv.cuFuncGetParamInfo || !kprof_drv.cuDeviceGetAttribute || device < 0 ||
        kprof_drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, (CUdevice)device) !=
            CUDA_SUCCESS ||
        major < 7)
        return 0.0;
    CUmodule mod = NULL;
    if (kprof_drv.cuModuleLoadData(&mod, calibrate_wide_ptx) != CUDA_SUCCESS ||
        kprof_drv.cuModuleGetFunction(&b->wide, mod, "kprof_calibrate_wide") != CUDA_SUCCESS) {
        kprof_debug("no kernel with a %u-byte parameter block: a launch's parameters are not calibrated",
                    KPROF_CALIB_WIDE_BYTES);
        return 0.0;
    }
    /* Its first launch loads it (lazy loading), which may wait for the context's work: not behind a hold. */
    b->timed_wide = 1;
    CUresult r = spin_timed(b, 0, 0);
    b->timed_wide = 0;
    if (r != CUDA_SUCCESS || kprof_drv.cuStreamSynchronize(b->s) != CUDA_SUCCESS)
        return 0.0;
    static const enum kprof_pred in[] = { KPROF_PRED_KERNEL, KPROF_PRED_HELD, KPROF_PRED_IDLE };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        double narrow = 0.0, wide = 0.0;
        if (in[i] == KPROF_PRED_HELD && !b->hold->ok)
            continue;
        int m = measure(b, in[i], 0, 0, &narrow);
        if (m > 0) {
            b->timed_wide = 1;
            m = measure(b, in[i], 0, 0, &wide);
            b->timed_wide = 0;
        }
        if (m < 0)
            return 0.0;
        if (m > 0)
            return wide > narrow ? (wide - narrow) * 1024.0 / (double)(KPROF_CALIB_WIDE_BYTES - KPROF_CALIB_PARAM_BYTES)
                                 : 0.0;
    }
    return 0.0;
}

/* KPROF_HOLD_SLOTS words of host memory the device can read, for c's holds: a page libkprof owns,
 * registered with the current context (cuMemHostRegister), never freed.  A context that ends (a reset
 * while the app's other threads launch) takes its registration with it, not the page: a launch that
 * placed a hold before the reset and releases it after writes memory that is still there (pinned memory
 * of cuMemAllocHost is freed with the context: with 4 threads launching while the main thread reset the
 * device 10 times, ThreadSanitizer saw the release write it after the reset in 4 runs of 4, and with the
 * fake's pinned memory unmapped as the driver's is, the app died of a SEGV: 3 runs of 3).  A page a
 * context (one calibration each; sysconf failing: the words alone); where the driver refuses to register
 * it, cuMemAllocHost's memory as before.  NULL when neither works. */
static uint32_t *hold_words(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = KPROF_HOLD_SLOTS * sizeof(uint32_t);
    void *words = NULL;
    if (page < bytes || page > (1u << 20))
        page = bytes;
    if (kprof_drv.cuMemHostRegister_v2 && posix_memalign(&words, page, page) == 0) {
        memset(words, 0, page);
        if (kprof_drv.cuMemHostRegister_v2(words, page, CU_MEMHOSTREGISTER_DEVICEMAP) == CUDA_SUCCESS)
            return words;
        free(words);
        words = NULL;
    }
    if (kprof_drv.cuMemAllocHost_v2(&words, bytes) != CUDA_SUCCESS)
        return NULL;
    memset(words, 0, bytes);
    return words;
}

/* Makes c's holds (struct kprof_hold): KPROF_HOLD_SLOTS words the device reads (hold_words), the
 * kprof_hold kernel of mod, and one hold placed and released on `own` to see that the driver takes it.
 * Leaves h->ok 0 when any of it fails (kernels are then timed without holds). */
static void hold_make(struct kprof_hold *h, CUmodule mod, CUstream own)
{
    memset(h, 0, sizeof *h);
    if (!kprof_config.hold || !kprof_drv.cuMemHostGetDevicePointer_v2 || !(h->words = hold_words()))
        return;
    if (kprof_drv.cuMemHostGetDevicePointer_v2(&h->dwords, h->words, 0) != CUDA_SUCCESS)
        return;
    if (kprof_drv.cuModuleGetFunction(&h->gate, mod, "kprof_hold") != CUDA_SUCCESS)
        return;
    if (!kprof_hold_place(h, own, 0, 1))
        return;
    kprof_hold_release(h, 0, 1);
    if (kprof_drv.cuStreamSynchronize(own) != CUDA_SUCCESS)
        return;
    h->words[0] = 0;
    h->ok = 1;
}

/* The driver functions calibration needs beyond the ones libkprof always has. */
static int functions_present(void)
{
    return kprof_drv.cuModuleLoadData && kprof_drv.cuModuleGetFunction && kprof_drv.cuLaunchKernel &&
           kprof_drv.cuMemAlloc_v2 && kprof_drv.cuMemAllocHost_v2 && kprof_drv.cuMemcpyHtoDAsync_v2 &&
           kprof_drv.cuMemcpyDtoHAsync_v2 && kprof_drv.cuMemcpyDtoDAsync_v2 && kprof_drv.cuMemsetD8Async &&
           kprof_drv.cuStreamWaitEvent && kprof_drv.cuStreamSynchronize &&
           kprof_drv.cuStreamDestroy_v2;
}

/* Gives back the events and the second stream.  The buffers and the module stay with the context (they
 * go when it is destroyed): freeing memory or unloading a module may synchronise the whole device, which
 * would make the app's streams wait in the middle of its run. */
static void bench_free(struct bench *b)
{
    CUevent evs[] = { b->ep, b->e1, b->e2, b->ew };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (evs[i])
            kprof_drv.cuEventDestroy_v2(evs[i]);
    if (b->other)
        kprof_drv.cuStreamDestroy_v2(b->other);
}

void kprof_calibrate(struct kprof_calibration *c, CUstream own)
{
    uint64_t t0 = kprof_now_ns();
    memset(c->handoff_ns, 0, sizeof c->handoff_ns);
    c->beside_htod_ns = 0.0;
    c->seen_ns = 0.0;
    c->param_ns_per_kib = 0.0;
    c->samples = REPS;
    CUdevice dev = -1;
    c->device = kprof_drv.cuCtxGetDevice(&dev) == CUDA_SUCCESS ? (int)dev : -1;
    if (!kprof_config.calibrate) {
        c->state = KPROF_CALIB_OFF;
        return;
    }
    if (kprof_config.tool_attached) {
        c->state = KPROF_CALIB_TOOL;
        return;
    }
    if (__atomic_load_n(&kprof_kernels_traced, __ATOMIC_RELAXED)) {
        c->state = KPROF_CALIB_TRACED;
        return;
    }
    if (__atomic_load_n(&kprof_captures_active, __ATOMIC_RELAXED) > 0) {
        c->state = KPROF_CALIB_CAPTURE;
        return;
    }
    c->state = KPROF_CALIB_FAILED;
    if (!own || !functions_present())
        return;
    struct bench b;
    memset(&b, 0, sizeof b);
    b.s = own;
    CUmodule mod = NULL;
    /* Synchronisations below must not invalidate a global-mode capture another thread may begin. */
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    kprof_drv.cuThreadExchangeStreamCaptureMode(&mode);
    int ok = kprof_drv.cuModuleLoadData(&mod, calibrate_ptx) == CUDA_SUCCESS &&
             kprof_drv.cuModuleGetFunction(&b.fn, mod, "kprof_calibrate") == CUDA_SUCCESS &&
             kprof_drv.cuStreamCreate(&b.other, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
             kprof_drv.cuMemAlloc_v2(&b.d, COPY_BYTES) == CUDA_SUCCESS &&
             kprof_drv.cuMemAlloc_v2(&b.d2, COPY_BYTES) == CUDA_SUCCESS &&
             kprof_drv.cuMemAlloc_v2(&b.out, 64) == CUDA_SUCCESS &&
             kprof_drv.cuMemAllocHost_v2(&b.h, COPY_BYTES + 64) == CUDA_SUCCESS &&
             kprof_drv.cuEventCreate(&b.ep, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
             kprof_drv.cuEventCreate(&b.e1, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
             kprof_drv.cuEventCreate(&b.e2, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
             kprof_drv.cuEventCreate(&b.ew, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS;
    if (ok) {
        memset(b.h, 0, COPY_BYTES + 64);
        hold_make(&c->hold, mod, own);
        b.hold = &c->hold;
    }
    for (int shared = 0; ok && shared < KPROF_START_COUNT; shared++)
        for (int p = 0; ok && p < KPROF_PRED_COUNT; p++) {
            if (shared && p == KPROF_PRED_IDLE) /* a shared start is a pending stop: never idle */
                continue;
            if ((p == KPROF_PRED_HELD || p == KPROF_PRED_HELD_KERNEL) && (shared || !c->hold.ok))
                continue; /* a held launch has its own start */
            /* Too few launches in a situation (the stream never found idle when it should be, or found
             * idle behind a predecessor: a host far slower or faster than the GPU) leaves that situation's
             * hand-off at 0, taking nothing off, and is no failure of the rest. */
            int m = measure(&b, (enum kprof_pred)p, shared, 0, &c->handoff_ns[shared][p]);
            c->handoff_known[shared][p] = m > 0;
            if (m == 0 && (p == KPROF_PRED_HELD || p == KPROF_PRED_HELD_KERNEL))
                c->hold.ok = 0; /* no hand-off known behind a hold: none placed */
            if (m == 0 && p != KPROF_PRED_IDLE)
                kprof_info("device %d: too few launches to calibrate the hand-off behind %s%s; none taken off there",
                           c->device, kprof_pred_names[p], shared ? " (one event)" : "");
            ok = m >= 0;
        }
    if (ok)
    {
        c->handoff_ns[KPROF_START_SHARED][KPROF_PRED_IDLE] = c->handoff_ns[KPROF_START_OWN][KPROF_PRED_IDLE];
        c->handoff_known[KPROF_START_SHARED][KPROF_PRED_IDLE] = c->handoff_known[KPROF_START_OWN][KPROF_PRED_IDLE];
    }
    if (ok && measure_seen(&b, &c->seen_ns) < 0)
        c->seen_ns = 0.0; /* every event asked about: the hand-offs stand without it */
    if (ok)
        c->param_ns_per_kib = measure_param_ns_per_kib(&b, c->device);
    /* Beside HtoD copies: what they add to the hand-off behind a kernel (too few launches, or no memory
     * for the copies: nothing). */
    unsigned copies = ok && kprof_drv.cuMemAlloc_v2(&b.dbig, BESIDE_BYTES) == CUDA_SUCCESS &&
                              kprof_drv.cuMemAllocHost_v2(&b.hbig, BESIDE_BYTES) == CUDA_SUCCESS
                          ? beside_copies(&b)
                          : 0;
    double beside = 0.0;
    if (copies == 0 || measure(&b, KPROF_PRED_KERNEL, 0, copies, &beside) < 0)
        beside = 0.0; /* the other hand-offs stand without it */
    c->beside_htod_ns = beside > c->handoff_ns[KPROF_START_OWN][KPROF_PRED_KERNEL]
                            ? beside - c->handoff_ns[KPROF_START_OWN][KPROF_PRED_KERNEL]
                            : 0.0;
    kprof_drv.cuStreamSynchronize(own);
    bench_free(&b);
    kprof_drv.cuThreadExchangeStreamCaptureMode(&mode);
    c->cost_ns = kprof_now_ns() - t0;
    if (ok) {
        c->state = KPROF_CALIB_DONE;
    } else {
        memset(c->handoff_ns, 0, sizeof c->handoff_ns);
        c->beside_htod_ns = 0.0;
        c->seen_ns = 0.0;
        c->param_ns_per_kib = 0.0;
        c->hold.ok = 0;
        kprof_warn("cannot calibrate the event hand-off on device %d; kernel times keep it (see KPROF_CALIBRATE)",
                   c->device);
    }
}
