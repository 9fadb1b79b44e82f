/* clock.h: the host clocks libkprof reads (clock.c). */
#ifndef KPROF_CLOCK_H
#define KPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Host monotonic clock (CLOCK_MONOTONIC), in ns.  Thread-safe, async-signal-safe. */
uint64_t kprof_now_ns(void);

/* The CLOCK_REALTIME time `ms` milliseconds from now, for pthread_*_timedlock and sem_timedwait (a clock
 * set back while a caller waits lengthens its wait by as much: for locks held briefly). */
struct timespec kprof_deadline_ms(long ms);

/* The kernel's CLOCK_MONOTONIC time `ms` milliseconds from now, for pthread_cond_clockwait(...,
 * CLOCK_MONOTONIC, ...): read by system call, so neither a clock set back nor a clock_gettime preloaded
 * before libkprof (the tests' virtual clock, tests/fake/hostclock.c) moves it; where a sandbox refuses the
 * system call, read by clock_gettime.  About 0.1 us: for the paths that wait.  Thread-safe. */
struct timespec kprof_wait_deadline_ms(long ms);

/* t moved on by ms milliseconds (ms >= 0), tv_nsec kept below 1e9: more deadlines from one clock reading. */
struct timespec kprof_timespec_later(struct timespec t, long ms);

/* Host clock (kprof_now_ns) when libkprof started: the origin of the process timeline, in ns.  Set by
 * the constructor, and again in a forked child. */
extern uint64_t kprof_start_ns;

#endif
