/* sample.h: what the timing layer (timing/) hands down to the statistics: completed, timed calls and
 * the event counters. */
#ifndef KPROF_SAMPLE_H
#define KPROF_SAMPLE_H

#include <math.h>
#include <stdint.h>

/* What a completed event pair's duration is added to. */
enum kprof_target_kind {
    KPROF_TARGET_KERNEL,       /* a kernel launch */
    KPROF_TARGET_KERNEL_FIRST, /* a kernel's first launch (lazy module loading makes it slow) */
    KPROF_TARGET_COPY,
};

/* How a kernel's pair was read (KPROF_HOLD=N, timing/offsets.c), for the trace: measured in full (a
 * reference, or no learned offset applies), or with the learned offset of its situation taken off: unheld
 * and not drawn, unheld with its stream's idleness not asked (blind), or started at an idle stream's last
 * stop (read as its references' mean).  KPROF_READ_GAP is added where a gap's offset (behind a short
 * backlog, its start shared) was taken off too. */
enum kprof_read_as {
    KPROF_READ_FULL,
    KPROF_READ_UNHELD,
    KPROF_READ_BLIND,
    KPROF_READ_IDLE_SHARED,
    KPROF_READ_GAP = 4
};

/* One completed, timed call, as the harvester read it (times in ns). */
struct kprof_sample {
    enum kprof_target_kind kind;
    void *target;            /* struct kprof_kernel * or struct kprof_copy * */
    uint64_t dur_ns;         /* GPU duration, idle-stream latency taken off */
    int has_time;            /* 1 when start_ns is known */
    uint64_t start_ns;       /* on the process timeline: the GPU clock, in ns since libkprof started */
    int device;
    unsigned stream_index;   /* the stream's number in the process (see kprof_stream_named) */
    uint64_t bytes;          /* copies and memsets */
    unsigned grid[3], block[3];
    uint64_t taken_ns;       /* kernels: what was taken off the pair (idle-stream latency and hand-off) */
    unsigned char pred;      /* kernels: enum kprof_pred whose hand-off was taken off (UNKNOWN: none) */
    unsigned char shared;    /* kernels: 1 when the start was the previous call's stop */
    unsigned char stop_idle; /* kernels: 1 when the stop was stamped on an idle stream, dur_ns the kernel's mean
                              * so far (timing/queue.h, IDLE_STOP_SLACK_NS) */
    unsigned char start_idle; /* kernels: 1 when its stream ran dry inside its launch call: a shared start
                               * stamped more than LATE_STAMP_NS before the call returned (dur_ns its kernel's
                               * mean, or read as on an idle stream: timing/harvest.c, start_stamped_idle), or
                               * a start of its own stamped that much after its record (read from its stamp) */
    unsigned char beside_htod; /* kernels: 1 when it started beside another stream's HtoD copy, the delay that
                                * costs taken off too (calibrate.h, beside_htod_ns) */
    unsigned char behind_filling; /* kernels: 1 when it waited for a kernel of another stream that filled the
                                   * device, that wait taken off too (timing/harvest.c, past_filling) */
    unsigned char offset_read; /* kernels: read with a learned offset (KPROF_HOLD=N, not drawn: timing/offsets.c),
                                * so dur_ns is not its own length; kept out of Min, Max and the percentiles */
    unsigned char read_as;   /* kernels: how the pair was read (enum kprof_read_as) */
    unsigned char thin;      /* kernels, KPROF_HOLD=N, measured in full: drawn at the rate 1/(N x 2^thin), it
                              * stands for 2^thin launches (0 otherwise) */
    unsigned char check_held; /* kernels, KPROF_AUTO_CHECK=1: measured in full only because auto would have
                               * timed it, not by KPROF_HOLD=N's draw: it stands for no launch of the draw's
                               * sample (kept out of full_hist, whose launches auto's early draws would crowd) */
    float weight;            /* kernels, KPROF_SAMPLE=auto: 1/p, p the launch's probability of being timed */
    float auto_weight;       /* kernels, KPROF_AUTO_CHECK=1: 1/p when auto would have timed it, else 0 */
    /* Kernels (and graph launches), the split nsys's cuda_kern_exec_sum makes: has_split when the launch
     * call's host time launch_host_ns (CLOCK_MONOTONIC around the real call) is known; has_queue when the
     * queue time queue_ns is too: the kernel's start (start_ns) less the call's start (the launch latency;
     * nsys's queue time starts at the call's return), both on the host
     * clock through the reference events' host anchors (docs/accuracy.md), 0 where the model put the
     * kernel's start before the call's. */
    unsigned char has_split, has_queue;
    uint64_t launch_host_ns, queue_ns;
    /* Not a timed call but a correction of kernel `target`'s GPU time (KPROF_HOLD=N's learned offsets
     * settled, timing/offsets.c): adjust_ns (ns, may be below 0) added to its total and to its device's
     * kernel time; no launch counted, nothing else read. */
    unsigned char adjust;
    double adjust_ns;
};

/* u plus ns (ns; ns may be below 0), rounded, never below 0: a total that takes an adjustment. */
static inline uint64_t kprof_ns_add_clamped(uint64_t u, double ns)
{
    double v = (double)u + ns;
    return v <= 0.0 ? 0 : (uint64_t)(v + 0.5);
}

/* Of an adjustment of ns (ns, fractions and below 0 allowed) to a total kept in whole ns, the whole ns to
 * add now, *rest (the fraction not added yet, within half a ns of 0; zero-initialise it) taking the
 * remainder: adjustments added one by one each rounded on its own drift (0.4 ns a thousand times added
 * nothing), carried they add up to their sum rounded.  Not thread-safe: the caller's lock guards *rest. */
static inline double kprof_ns_carry(double *rest, double ns)
{
    double v = ns + *rest, whole = rint(v);
    *rest = v - whole;
    return whole;
}

/* Adds an adjustment of ns (as kprof_ns_carry) to the total *u, in whole ns and never below 0: what *u
 * cannot take is carried in *rest too, for the next call (an adjustment that comes before the times it is
 * for: dropped, the total would keep them; the learned offsets' roles, timing/offsets.c).  Returns what
 * was added (ns, whole).  Not thread-safe: the caller's lock guards *u and *rest. */
static inline double kprof_ns_adjust(uint64_t *u, double *rest, double ns)
{
    double whole = kprof_ns_carry(rest, ns);
    if (whole < -(double)*u) {
        *rest += whole + (double)*u;
        whole = -(double)*u;
    }
    *u = kprof_ns_add_clamped(*u, whole);
    return whole;
}

/* Counters for the report, each (field, JSON key) in the order the JSON report writes them (the events
 * object; kprof-report reads them back by the same list): events created; pairs dropped because their
 * events failed (incomplete at exit, failed); calls untimed for lack of events; launches timed with one
 * event (their start shared with the previous call's stop); launches held (struct kprof_hold) after a
 * kernel or wait and behind other work (HELD, HELD_KERNEL); launches not held because another stream of
 * their context had timed work in flight; holds released after kprof_hold had given up (hold.h);
 * launches not held while kprof_kernels_traced (calibrate.h); KPROF_HOLD=N: launches left unheld by the
 * draw (hold.h), a start of their own or their idle stream's last stop (timing.c, begin_take_events),
 * launches that shared their start though their stream might run dry before their kernel arrived
 * (timing.h, gap), and of those two kinds, the launches read before their shape had a reference, and
 * those whose shape still had none at exit (their total keeps what an offset would have taken off:
 * timing/offsets.c, kprof_offsets_settle); launches whose stop was stamped on an idle stream, read as
 * their kernel's mean (timing/queue.h, IDLE_STOP_SLACK_NS); launches whose stream ran dry inside their launch
 * call, read from the call's return (timing/harvest.c, start_stamped_idle); launches started beside another stream's HtoD copy, the delay
 * that costs taken off (calibrate.h, beside_htod_ns); cuEventQuery calls left out on launching threads,
 * the event (a lent stop, a start) recorded too recently to have completed (calibrate.h, seen_ns); and the
 * question whether a launch's stream was idle left out for a held launch before its hold could have given
 * up (hold.h), and, KPROF_HOLD=N, for a launch not drawn, read with the learned offset however it reads
 * (timing/timing.c, timing_end; timing/offsets.c, KPROF_OFFSET_BLIND). */
#define KPROF_EVENT_COUNTERS(X)                                                                    \
    X(created, "created") X(incomplete, "incomplete") X(failed, "failed")                          \
    X(pool_exhausted, "untimed_no_event") X(one_event, "one_event") X(held, "held")                \
    X(held_kernel, "held_kernel") X(beside_busy, "beside_busy") X(holds_overdue, "holds_overdue")  \
    X(not_held_traced, "not_held_traced") X(unheld_drawn, "unheld_drawn") X(gap_shared, "gap_shared") \
    X(unheld_unlearned, "unheld_unlearned") X(unheld_no_reference, "unheld_no_reference")           \
    X(stop_idle, "stop_idle") X(start_idle, "start_idle") X(beside_htod, "beside_htod") X(behind_filling, "behind_filling_kernel")   \
    X(unasked, "queries_unasked") X(unasked_held, "queries_unasked_held") X(unasked_cheap, "queries_unasked_not_drawn")
struct kprof_event_counters {
#define KPROF_EVENT_FIELD(field, key) long field;
    KPROF_EVENT_COUNTERS(KPROF_EVENT_FIELD)
#undef KPROF_EVENT_FIELD
};

#endif
