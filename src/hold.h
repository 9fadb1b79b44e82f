/* hold.h: holding a stream until a launch is queued, and the watchdog that lets no hold outlast its call.
 *
 * On an idle stream the GPU stamps a start event at once and the kernel arrives a launch latency later;
 * behind a copy or a host function the kernel starts after a hand-off that spreads by several us from
 * launch to launch (H200, docs/accuracy.md).  So, before the start event of such a launch, libkprof puts a
 * hold on the stream, ended by a word of pinned host memory: once the start event, the kernel and the
 * stop event are queued, libkprof writes the word and the GPU runs the three back to back, with the
 * constant hand-off calibrated for HELD or HELD_KERNEL (calibrate.h).  Two kinds of hold:
 *
 * - a wait (cuStreamWaitValue32, CU_STREAM_WAIT_VALUE_GEQ) where the stream's last work was a kernel or a
 *   wait, or nothing (HELD): 0.8 us of host time on an H200;
 * - libkprof's one-thread kernel kprof_hold, spinning on the word, behind a copy, memset or host function
 *   (HELD_KERNEL): it also absorbs the copy engine's hand-off to the compute engine, which a wait would
 *   leave inside the pair; a kernel launch, 2 to 4 us of host time.  It gives up after
 *   KPROF_HOLD_TIMEOUT_NS.
 *
 * CUDA does not see a hold's dependency on the host: a launch that waits inside the driver for the
 * stream's work (a context synchronisation: a kernel loaded, local memory grown, a command queue full of
 * other threads' work) would wait for the hold, and the hold for the launch.  A wait has no timeout of its
 * own, so every hold is also released by libkprof's watchdog thread once it has lasted
 * KPROF_HOLD_OVERDUE_NS: a thread that makes no driver call and takes no lock an app's thread can hold
 * across one, so that it runs whatever the driver waits for.  The pair of a hold released that way (or
 * of a kprof_hold that gave up) is read as one on an idle stream.  Without the watchdog thread (it could
 * not be started) only kernel holds are placed. */
#ifndef KPROF_HOLD_H
#define KPROF_HOLD_H

#include <stdint.h>
#include "cuda_api.h"

#define KPROF_HOLD_SLOTS 1024 /* words, used in turn by the holds of a context */
/* kprof_hold gives up after 1 ms.  A hold lasts the host time of queuing a launch (5 to 100 us); one whose
 * release does not come in time stalls every stream sharing its hardware queue until then: with 20 ms, one
 * pair of 240 in a run of tests/gpu/accuracy/pipeline_8threads read 20.7 ms for a 20.7 us kernel (H200). */
#define KPROF_HOLD_TIMEOUT_NS 1000000ull
/* The watchdog releases a hold that has lasted this long, looking every KPROF_HOLD_OVERDUE_NS / 2: long
 * beside a hold's usual 5 to 100 us, so that a slow build or a loaded machine rarely meets it. */
#define KPROF_HOLD_OVERDUE_NS 2000000ull

/* A context's holds.  Made by kprof_calibrate (ok 0 when they could not be), placed and released by
 * timing/timing.c.  Never freed (the GPU may read the words until the context dies). */
struct kprof_hold {
    int ok;               /* 1: holds can be placed in this context */
    int waits;            /* 1: HELD holds may be waits (the watchdog runs) */
    CUfunction gate;      /* the kprof_hold kernel */
    uint32_t *words;      /* KPROF_HOLD_SLOTS words of pinned host memory */
    CUdeviceptr dwords;   /* their address on the device */
    uint64_t placed_ns[KPROF_HOLD_SLOTS]; /* per slot, when its hold was placed (host ns), 0: none pending */
    uint32_t seq[KPROF_HOLD_SLOTS];       /* per slot, the number of its pending hold */
    struct kprof_hold *next_watched;      /* the watchdog's list (hold.c) */
};

/* Puts a hold on s (the context current): a wait when `kernel` is 0 and h->waits, else kprof_hold; either
 * ends once word `slot` reaches `seq` (a wrapping compare for the kernel; the numbers of one slot never
 * wrap in practice).  Returns 1, or 0 when nothing was put on s.  The caller releases it
 * (kprof_hold_release) on every path; the watchdog releases it first if it lasts KPROF_HOLD_OVERDUE_NS. */
int kprof_hold_place(struct kprof_hold *h, CUstream s, unsigned slot, uint32_t seq, int kernel);

/* Ends the hold of `slot` numbered seq: the word goes to seq unless it is already past it (an atomic
 * maximum, so that holds of two threads on one stream never wait for a smaller number).  Returns 1 when
 * this call ended it, 0 when the watchdog had (the hold then lasted over KPROF_HOLD_OVERDUE_NS).
 * Lock-free. */
int kprof_hold_release(struct kprof_hold *h, unsigned slot, uint32_t seq);

/* Sets up h's words (already allocated and zeroed) for the watchdog, starting its thread if needed; sets
 * h->waits.  Call once per context, before its first hold. */
void kprof_hold_watch(struct kprof_hold *h);

/* Holds the watchdog released, since the process (or its fork() child) started. */
long kprof_holds_overdue(void);

#endif
