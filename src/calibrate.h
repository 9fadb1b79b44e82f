/* calibrate.h: the hand-off an event pair adds to a kernel, measured per context with libkprof's own
 * kernel, by what came before the kernel on its stream. */
#ifndef KPROF_CALIBRATE_H
#define KPROF_CALIBRATE_H

#include <stdint.h>
#include "cuda_api.h"
#include "hold.h"

/* What libkprof last put on a kernel's stream before it (its predecessor), which decides the hand-off
 * the kernel's event pair holds: the GPU time between the event after the predecessor and the kernel's
 * start, plus the event after the kernel.  IDLE: the stream had finished its work when the launch
 * returned (the start event had completed); then the pair also holds the host's launch latency, which
 * the idle-stream correction takes off, and IDLE's hand-off is what is left.  A host function changes
 * nothing: behind one, a kernel's hand-off is that of the GPU work before it (calibrated as a predecessor
 * of its own, a host function left the kernel behind it long: docs/accuracy.md, point 7). */
enum kprof_pred {
    KPROF_PRED_IDLE,
    KPROF_PRED_KERNEL,  /* a kernel or a graph launch */
    KPROF_PRED_HTOD,
    KPROF_PRED_DTOH,
    KPROF_PRED_DTOD,    /* also HtoH and peer copies */
    KPROF_PRED_MEMSET,
    KPROF_PRED_OTHER,   /* an operation libkprof does not time (an event wait, a stream memory operation...) */
    KPROF_PRED_HELD,    /* libkprof held the stream (struct kprof_hold), its last work a kernel or a wait */
    KPROF_PRED_HELD_KERNEL, /* ... behind a copy, memset or host function, or at a stream's first launch */
    KPROF_PRED_COUNT,
    KPROF_PRED_UNKNOWN = KPROF_PRED_COUNT, /* the stream's first timed call: nothing to take off */
    KPROF_PRED_SHARED_COUNT = KPROF_PRED_HELD /* the predecessors a shared start can have (never held) */
};
/* Each predecessor's name in the reports.  Here, not in calibrate.c, so that kprof-report, which links the
 * writers but not calibrate.c, shares it. */
static const char *const kprof_pred_names[KPROF_PRED_COUNT] = { "idle", "kernel", "HtoD", "DtoH", "DtoD", "memset",
                                                                "other", "held", "held_kernel" };

/* How the start of a pair was taken: its own start event, or the previous call's stop (one-event
 * timing).  The hand-off differs slightly between the two. */
enum kprof_start { KPROF_START_OWN, KPROF_START_SHARED, KPROF_START_COUNT };

enum kprof_calib_state {
    KPROF_CALIB_NONE,     /* not (yet) run for this context */
    KPROF_CALIB_DONE,
    KPROF_CALIB_OFF,      /* KPROF_CALIBRATE=0 */
    KPROF_CALIB_TOOL,     /* skipped: another tool that counts kernels is attached */
    KPROF_CALIB_TRACED,   /* skipped: another tool was tracing kernels through CUPTI (kprof_kernels_traced) */
    KPROF_CALIB_CAPTURE,  /* skipped: a stream capture was in progress when the context was first used */
    KPROF_CALIB_FAILED,   /* a driver call failed (no cuModuleLoadData, no memory...) */
};

/* Another tool tracing kernels in this process through CUPTI's activity API (torch.profiler, for one):
 * nonzero while it has kernel records enabled (hook/hook_cupti.c sets it).  Meanwhile libkprof runs no
 * kernel of its own (no hold, no calibration), so that the tool's trace holds the app's kernels only. */
extern int kprof_kernels_traced;

/* One context's calibration.  handoff_ns[start][pred] is the mean time (ns) an event pair adds to a kernel
 * behind `pred`, beyond the kernel's own duration as CUPTI reports it; 0 when not calibrated.  Never
 * negative but for IDLE, where it is what the idle-stream correction left (it may take off too much).  Written once
 * before the context's first pair is queued, read-only afterwards. */
struct kprof_calibration {
    enum kprof_calib_state state;
    int device;
    uint64_t cost_ns;                  /* host time the calibration took, module load included */
    double handoff_ns[KPROF_START_COUNT][KPROF_PRED_COUNT];
    /* 1 where handoff_ns was measured; 0 where too few launches fell in the situation (or none was tried:
     * a held start shared), its 0 then taking nothing off (the report prints "-") */
    unsigned char handoff_known[KPROF_START_COUNT][KPROF_PRED_COUNT];
    unsigned samples;                  /* timed launches per situation (more behind copies) */
    /* What a kernel's start waits, beyond its hand-off, while another stream of the device copies host to
     * device (ns, never below 0; 0 when not calibrated): the hand-off behind a kernel measured with HtoD
     * copies running on a second private stream, less handoff_ns[OWN][KERNEL] (about 6 us on an H200:
     * docs/accuracy.md, "An HtoD copy beside") */
    double beside_htod_ns;
    /* The least host time from an event record's return to the host's seeing the event complete (ns; 0
     * when not calibrated): a lower bound from polling records on the idle private stream, each taken
     * from the start of the last query that found it pending, the least two of 24 left out.  An event
     * recorded less than half of it ago is pending without asking (kprof_calibration_surely_pending: a
     * cuEventQuery costs the launching thread as much as a record; 1.3 to 3.2 us on an H200). */
    double seen_ns;
    /* What each KiB of a kernel's parameter block beyond the calibration kernel's KPROF_CALIB_PARAM_BYTES
     * adds to its hand-off (ns per KiB, never below 0; 0 when not calibrated): the GPU takes in a launch's
     * parameters after the event before it, and CUPTI counts that in no kernel (about 70 ns a KiB on an
     * H200, whatever the predecessor: docs/accuracy.md, "Parameter blocks").  Measured behind a kernel
     * with kprof_calibrate_wide, whose parameters take KPROF_CALIB_WIDE_BYTES (PTX ISA 8.1, sm_70: a
     * driver or GPU without large kernel parameters leaves it 0). */
    double param_ns_per_kib;
    struct kprof_hold hold;            /* holding this context's streams (KPROF_HOLD, hold.h) */
};

/* The time CUPTI counts in a kernel beyond what %globaltimer reads inside a one-block kernel (its block's
 * launch and retirement), as measured (docs/accuracy.md, "What an event pair holds"), taken as a constant
 * of the model. */
#define KPROF_CALIB_C0_NS 600.0

/* The parameter blocks of libkprof's calibration kernels (bytes): kprof_calibrate's two 8-byte pointers
 * and numbers, and kprof_calibrate_wide's, padded to the 32764-byte limit's last multiple of 16 (calibrate.c). */
#define KPROF_CALIB_PARAM_BYTES 16u
#define KPROF_CALIB_WIDE_BYTES 32752u

/* Measures c's hand-offs in the current context on `own` (libkprof's private non-blocking stream), with
 * the kernel kprof_calibrate loaded from PTX through cuModuleLoadData: for each predecessor and both
 * kinds of start, a few launches of a 3 us kernel, each taken as (event pair - idle-stream lag -
 * in-kernel span - KPROF_CALIB_C0_NS), and the trimmed mean kept; HELD and HELD_KERNEL are measured
 * behind holds placed and released as timing/timing.c does (they are made here first: c->hold, 4 KiB of
 * pinned memory); then the hand-off behind a kernel again with enough HtoD copies of 8 MiB on a second
 * private stream to run through the launch (their number from one copy timed first), for beside_htod_ns;
 * seen_ns, from 24 event records polled until seen complete; and param_ns_per_kib, from the hand-off
 * behind a kernel of kprof_calibrate_wide (a second module) against kprof_calibrate's.  Runs synchronously on the calling
 * thread (the guard raised), on libkprof's own streams
 * only (never the legacy default stream, which would make the app's blocking streams wait); 10 MiB of
 * device memory, 9 MiB of pinned memory and the module stay with the context (freeing them may
 * synchronise the device).  Sets c->state; never changes the app's CUDA error state (driver calls only).
 * Not thread-safe for one c. */
void kprof_calibrate(struct kprof_calibration *c, CUstream own);

/* What to take off a kernel's pair whose start fell inside another stream's HtoD copy (ns): 0 unless c
 * is DONE. */
static inline double kprof_calibration_beside_htod(const struct kprof_calibration *c)
{
    return c->state == KPROF_CALIB_DONE ? c->beside_htod_ns : 0.0;
}

/* 1 when an event whose record began or returned at host time recorded_ns (kprof_now_ns) cannot have been
 * seen complete by `now`: less than half of c->seen_ns ago.  0 when not sure (recorded_ns 0, c not DONE):
 * then ask with a query. */
static inline int kprof_calibration_surely_pending(const struct kprof_calibration *c, uint64_t recorded_ns,
                                                   uint64_t now)
{
    return c->state == KPROF_CALIB_DONE && recorded_ns && now >= recorded_ns &&
           (double)(now - recorded_ns) < 0.5 * c->seen_ns;
}

/* The hand-off (ns) to take off a kernel's pair: 0 unless c is DONE. */
static inline double kprof_calibration_handoff(const struct kprof_calibration *c, int shared, enum kprof_pred pred)
{
    return c->state == KPROF_CALIB_DONE && pred < KPROF_PRED_COUNT
               ? c->handoff_ns[shared ? KPROF_START_SHARED : KPROF_START_OWN][pred]
               : 0.0;
}

/* What a kernel's parameter block of param_bytes (struct kprof_kernel's; 0: unknown) adds to its pair's
 * hand-off beyond the calibration kernel's (ns): 0 unless c is DONE. */
static inline double kprof_calibration_param_ns(const struct kprof_calibration *c, unsigned param_bytes)
{
    return c->state == KPROF_CALIB_DONE && param_bytes > KPROF_CALIB_PARAM_BYTES
               ? c->param_ns_per_kib * (double)(param_bytes - KPROF_CALIB_PARAM_BYTES) / 1024.0
               : 0.0;
}

/* A one-line description of state for the report ("done", "off (KPROF_CALIBRATE=0)"...); inline, as
 * kprof_pred_names, for kprof-report. */
static inline const char *kprof_calib_state_text(enum kprof_calib_state state)
{
    switch (state) {
    case KPROF_CALIB_DONE: return "done";
    case KPROF_CALIB_OFF: return "off (KPROF_CALIBRATE=0)";
    case KPROF_CALIB_TOOL: return "skipped (another tool that counts kernels is attached)";
    case KPROF_CALIB_TRACED: return "skipped (another tool was tracing kernels through CUPTI)";
    case KPROF_CALIB_CAPTURE: return "skipped (a stream capture was in progress)";
    case KPROF_CALIB_FAILED: return "failed";
    default: return "not run";
    }
}

#endif
