/* hostclock.c: a virtual host clock for CPU tests (libfakeclock.so, preloaded before libkprof), so that the
 * fake GPU's clock and the host's run in a known relation and host times come out exact.
 *
 * CLOCK_MONOTONIC reads a virtual clock that starts at FAKECLOCK_START_NS and moves only when told: the fake
 * driver advances it by the host time its calls are modelled to take (FAKEGPU_LAUNCH_HOST_NS) and to where
 * a synchronising call waits for the GPU (fake_driver.c's host_waits), and a nanosleep or sched_yield on the
 * process's main thread advances it by the time asked (1 us for a yield), so that a loop waiting for a
 * deadline there ends.  Other threads read it without moving it (a profiler's harvesting thread sleeps at
 * times of its own choosing).  Every other clock is the real one.  The fake driver finds
 * fakeclock_now_ns and fakeclock_advance with dlsym(RTLD_DEFAULT); without this library it keeps its
 * GPU clock apart from the host's.  Thread-safe (atomics). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FAKECLOCK_START_NS 1000000000000ull /* 1000 s: far from 0, so that no subtraction wraps */

static uint64_t now_ns = FAKECLOCK_START_NS;

/* The virtual host clock, ns. */
uint64_t fakeclock_now_ns(void)
{
    return __atomic_load_n(&now_ns, __ATOMIC_SEQ_CST);
}

/* Moves the virtual host clock on by ns. */
void fakeclock_advance(uint64_t ns)
{
    __atomic_add_fetch(&now_ns, ns, __ATOMIC_SEQ_CST);
}

static int main_thread(void)
{
    return (pid_t)syscall(SYS_gettid) == getpid();
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (id == CLOCK_MONOTONIC && ts) {
        uint64_t v = fakeclock_now_ns();
        ts->tv_sec = (time_t)(v / 1000000000u);
        ts->tv_nsec = (long)(v % 1000000000u);
        return 0;
    }
    static int (*real)(clockid_t, struct timespec *);
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real ? real(id, ts) : -1;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    static int (*real)(const struct timespec *, struct timespec *);
    if (!real)
        real = (int (*)(const struct timespec *, struct timespec *))dlsym(RTLD_NEXT, "nanosleep");
    struct timespec shortened = { 0, 0 };
    if (req && main_thread()) {
        fakeclock_advance((uint64_t)req->tv_sec * 1000000000u + (uint64_t)req->tv_nsec);
        /* Really sleeps 1 ms at most: the other threads get their turn, virtual seconds cost none. */
        shortened.tv_nsec = req->tv_sec > 0 || req->tv_nsec > 1000000 ? 1000000 : req->tv_nsec;
        req = &shortened;
    }
    int r = real ? real(req, NULL) : -1;
    if (r == 0 && rem)
        rem->tv_sec = rem->tv_nsec = 0;
    return r;
}

int sched_yield(void)
{
    static int (*real)(void);
    if (!real)
        real = (int (*)(void))dlsym(RTLD_NEXT, "sched_yield");
    if (main_thread())
        fakeclock_advance(1000);
    return real ? real() : 0;
}
