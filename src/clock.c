/* clock.c: the host clocks libkprof reads. */
#include <sys/syscall.h>
#include <unistd.h>
#include "clock.h"

uint64_t kprof_start_ns;

uint64_t kprof_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct timespec kprof_timespec_later(struct timespec t, long ms)
{
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

struct timespec kprof_deadline_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return kprof_timespec_later(t, ms);
}

struct timespec kprof_wait_deadline_ms(long ms)
{
    struct timespec t = { 0, 0 };
    /* A sandbox may refuse the system call (a seccomp filter: EPERM) while the vDSO's clock_gettime works:
     * then that (the deadline read as 0 was long past, and every wait gave up at once). */
    if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t) != 0)
        clock_gettime(CLOCK_MONOTONIC, &t);
    return kprof_timespec_later(t, ms);
}
