/* hold.h: holding a stream until a launch is queued. */
#ifndef KPROF_HOLD_H
#define KPROF_HOLD_H

#include <stdint.h>
#include "cuda_api.h"
#include "kprof_hash.h"

/* On an idle stream the GPU stamps a start event at once and the kernel arrives a launch latency later;
 * behind a copy or a host function the kernel starts after a hand-off that varies from launch to launch
 * (docs/accuracy.md, "Holds").  So, before the start event of such a launch, libkprof puts a hold on the
 * stream: its own one-thread kernel kprof_hold, spinning on a word of pinned host memory (it also absorbs
 * a copy engine's hand-off).  The word is written once the start event, the kernel and the stop event are
 * queued, and the GPU then runs the three back to back, with the constant hand-off calibrated for HELD or
 * HELD_KERNEL (calibrate.h).
 *
 * Never a cuStreamWaitValue32, though it costs the host less than a kernel launch: CUDA does not see the
 * dependency on the host, and a launch that waits inside the driver for the stream's work (a context
 * synchronisation: a kernel loaded, local memory grown, a command queue full of other threads' work)
 * would wait for ever (waits released by a watchdog thread were tried: docs/performance.md, "Holds by a
 * wait").  kprof_hold gives up after KPROF_HOLD_TIMEOUT_NS; timing/timing.c counts a hold released later
 * than that (holds_overdue), as every stream sharing its hardware queue may have waited for it. */
#define KPROF_HOLD_SLOTS 1024 /* words, used in turn by the holds of a context */
/* kprof_hold gives up after 1 ms.  A hold lasts the host time of queuing a launch; one whose release does
 * not come in time stalls every stream sharing its hardware queue until then, so the bound is short
 * (docs/accuracy.md, `pipeline_8threads` with row 14's longer bound). */
#define KPROF_HOLD_TIMEOUT_NS 1000000ull
/* A context's holds.  Made by kprof_calibrate (ok 0 when they could not be), placed and released by
 * timing/timing.c.  Never freed (the GPU may read the words until the context dies). */
struct kprof_hold {
    int ok;               /* 1: holds can be placed in this context */
    CUfunction gate;      /* the kprof_hold kernel */
    uint32_t *words;      /* KPROF_HOLD_SLOTS words of host memory the device reads (calibrate.c, hold_words) */
    CUdeviceptr dwords;   /* their address on the device */
};

/* Puts a hold on s (the context current): kprof_hold, which ends once word `slot` reaches `seq` (compared
 * as a signed difference, so the count may wrap) or after KPROF_HOLD_TIMEOUT_NS.  Returns 1, or 0 when
 * nothing was put on s.  The caller releases it (kprof_hold_release) on every path. */
int kprof_hold_place(const struct kprof_hold *h, CUstream s, unsigned slot, uint32_t seq);

/* KPROF_HOLD=N (N >= 2): holds for a sample of launches.  A launch that would be held is held when it is
 * among the first KPROF_HOLD_FIRST of its kernel and launch shape (`key`, a hash of the grid and block),
 * or else drawn from a hash of KPROF_SEED, key and the shape's count (no aliasing with periodic programs;
 * the same launches for the same seed and launch order): with probability 1/N for the shape's first
 * KPROF_HOLD_THIN_AFTER x N launches (about KPROF_HOLD_THIN_AFTER drawn), then 1/(N x 2^k) from its
 * KPROF_HOLD_THIN_AFTER x N x 2^(k-1)-th launch on (*thin = k; about KPROF_HOLD_THIN_AFTER / 2 more drawn
 * each time the count doubles: a hold costs a kernel launch of host time, and a mean learned from some
 * hundreds of references hardly moves with more).  The others are left unheld and read with the offset
 * learned from the drawn ones of their shape (timing/offsets.c), each of which stands for the 2^k
 * launches of its rate (the references' mean weighs it so, and follows a length that changes over the
 * run).  `shapes` holds n + 2 words of a kernel's (struct kprof_kernel's hold_shapes): n each a shape's key
 * (high 32 bits) and count (low 32), claimed in turn, and a count of the launches of shapes that found them
 * all taken (drawn from their first, never thinned), and a flag that stops the kernel's thinning
 * (kprof_hold_stop_thinning).  Returns 2 for a hold among the first KPROF_HOLD_FIRST, 1 for a hold drawn after them, 0 for
 * none (also once a shape's count has stopped at 2^31); always 1 when shapes is NULL (the kernel unknown).
 * *thin is 0 unless 1 is returned; *word gets the index of the shape's word in shapes[0..n), or -1 when it
 * has none (shapes NULL, or all n taken by other shapes).  Lock-free. */
#define KPROF_HOLD_FIRST 8
#define KPROF_HOLD_THIN_AFTER 512
int kprof_hold_drawn(uint64_t *shapes, unsigned n, uint32_t key, unsigned char *thin, int *word);

/* The key of a launch shape's draw words: a hash of every bit of grid and block (kprof_hold_words), and
 * what is mixed into it for the draw behind a short backlog and behind a copy, memset or host function
 * (timing.c, begin_take_events). */
static inline uint32_t kprof_hold_shape_key(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                            unsigned bz)
{
    uint64_t h = kprof_mix64(gx | (uint64_t)gy << 32);
    h = kprof_mix64(h ^ (gz | (uint64_t)bx << 32));
    return (uint32_t)(kprof_mix64(h ^ (by | (uint64_t)bz << 32)) >> 32);
}
#define KPROF_HOLD_GAP_KEY 0x9e3779b9u
#define KPROF_HOLD_COPY_KEY 0x85ebca6bu

/* The index in shapes[0..n) of the word that draw key `key` claimed (as kprof_hold_drawn was given it), or
 * -1 when none has (the shape found them all taken, or has not been launched).  Lock-free. */
int kprof_hold_word_of(const uint64_t *shapes, unsigned n, uint32_t key);

/* Draws for the kernel whose words are `shapes` (n + 2 of them, as for kprof_hold_drawn) are 1/N from now
 * on, never thinned.  Called by the harvester when a kernel's references spread too widely for a thinned
 * sample to fix its offset (timing/offsets.c).  Lock-free. */
void kprof_hold_stop_thinning(uint64_t *shapes, unsigned n);

/* Ends the hold of `slot` numbered seq: the word goes to seq unless it is already past it (an atomic
 * maximum, so that holds of two threads on one stream never wait for a smaller number).  Lock-free. */
void kprof_hold_release(const struct kprof_hold *h, unsigned slot, uint32_t seq);

#endif
