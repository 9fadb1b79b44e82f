/* clock.h: the host clocks libkprof reads (clock.c). */
#ifndef KPROF_CLOCK_H
#define KPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Host monotonic clock (CLOCK_MONOTONIC), in ns.  Thread-safe, async-signal-safe. */
uint64_t kprof_now_ns(void);

/* The CLOCK_REALTIME time `ms` milliseconds from now, for pthread_*_timedlock and sem_timedwait. */
struct timespec kprof_deadline_ms(long ms);

/* Host clock (kprof_now_ns) when libkprof started: the origin of the process timeline, in ns.  Set by
 * the constructor, and again in a forked child. */
extern uint64_t kprof_start_ns;

#endif
