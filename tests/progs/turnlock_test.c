/* turnlock_test.c: src/timing/turnlock.c on its own (tests/turns-handed-over-in-order.sh).
 *   order: 200 rounds: the main thread holds the lock while another thread asks for it, gives it back and
 *       asks again at once (a launch loop's pattern); the other thread must have had it first (a glibc
 *       mutex let the main thread take it back before the woken waiter ran).
 *   giveup: a waiter whose deadline passes gets 0 and its ticket is passed over: the next waiter has the
 *       lock as soon as it is given back, and the lock is free for anyone after.
 *   crowd: 8 threads taking and giving it 3000 times each with a 1 s deadline: a count kept under the
 *       lock comes out exact, and no caller waits out its deadline.
 *   reset: kprof_turnlock_reset makes a held lock free again.
 *   many: 40 threads wait for a held lock with 50 ms deadlines, all give up at once (a break-it helper: the
 *       first form kept given-up tickets in an array of 32 and wrote past it, over the fields after the
 *       lock: a stream's name and hash handle, a context's count of unordered launches); bytes after the
 *       lock stay as they were, and it is free for anyone after.
 *   repeat: one thread asks 40 times in a row, 20 ms deadline each, while another holds the lock: each ask
 *       gives up after its deadline (the first form waited with no deadline from the 33rd on, its given-up
 *       tickets only passed over at the next give).
 *   cancel: a thread cancelled while it waits, before the 1 ms and once queued: the lock's own mutex is
 *       not left locked, nor the thread in the queue (a break-it helper: condition waits are cancellation
 *       points, and the holder's give then waited for ever).
 *   clockstep: CLOCK_REALTIME read 10 s ahead (as after the clock was set back by 10 s): "order" again, and
 *       a waiter with a 50 ms deadline gives up within 1 s (a break-it helper: deadlines and the 1 ms were
 *       read on CLOCK_REALTIME, and a clock set back lengthened every wait by as much).
 *   nosyscall: the clock's system call refused (EPERM, as a seccomp filter may): a waiter with a 5 s
 *       deadline has a lock held 50 ms (a break-it helper: the deadline was read as 0, long past, and every
 *       wait gave up at once).
 *   onesyscall: a waiter on a held lock reads the clock by one system call (its deadline and the 1 ms
 *       before it queues come from one reading; a review found two).
 * Prints "ok: ..." per part, or "FAIL: ..." and exits 1. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "timing/turnlock.h"

static struct kprof_turnlock lock;

/* The clock as this program's code (turnlock.c and clock.c among it) reads it: CLOCK_REALTIME
 * realtime_ahead_s ahead of the kernel's, which times the waits ("clockstep"). */
static int realtime_ahead_s;

static int (*real_clock_gettime)(clockid_t, struct timespec *);

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (!real_clock_gettime)
        real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    if (real_clock_gettime(id, ts) != 0)
        return -1;
    if (id == CLOCK_REALTIME)
        ts->tv_sec += __atomic_load_n(&realtime_ahead_s, __ATOMIC_RELAXED);
    return 0;
}

static void fail(const char *what)
{
    printf("FAIL: %s\n", what);
    exit(1);
}

static unsigned waiting(void)
{
    pthread_mutex_lock(&lock.m);
    unsigned w = lock.waiting;
    pthread_mutex_unlock(&lock.m);
    return w;
}

/* Waits until `n` callers hold a ticket. */
static void until_waiting(unsigned n)
{
    while (waiting() != n)
        usleep(100);
}

/* A thread that takes the lock (5 s deadline), sets *flag, holds it hold_us and gives it back. */
struct holder {
    int *flag;
    unsigned hold_us;
    const char *part;
};

static void *take_mark_hold_give(void *arg)
{
    const struct holder *h = arg;
    if (!kprof_turnlock_take(&lock, 5000)) {
        printf("FAIL: %s: the holder's 5 s deadline passed\n", h->part);
        exit(1);
    }
    __atomic_store_n(h->flag, 1, __ATOMIC_RELEASE);
    usleep(h->hold_us);
    kprof_turnlock_give(&lock);
    return NULL;
}

static int took;

static void order(void)
{
    for (int r = 0; r < 200; r++) {
        if (!kprof_turnlock_take(&lock, 5000))
            fail("order: a free lock not taken");
        __atomic_store_n(&took, 0, __ATOMIC_RELEASE);
        pthread_t th;
        struct holder h = { &took, 200, "order" };
        pthread_create(&th, NULL, take_mark_hold_give, &h);
        until_waiting(1);
        kprof_turnlock_give(&lock);
        if (!kprof_turnlock_take(&lock, 5000))
            fail("order: the main thread's 5 s deadline passed");
        if (!__atomic_load_n(&took, __ATOMIC_ACQUIRE)) {
            printf("FAIL: order: round %d: taken back by the thread that gave it, before the waiter had it\n", r);
            exit(1);
        }
        kprof_turnlock_give(&lock);
        pthread_join(th, NULL);
    }
    printf("ok: order: 200 rounds, the waiter had the lock before the thread that gave it back took it again\n");
}

static int short_result = -1, long_result = -1;

static void *short_waiter(void *arg)
{
    (void)arg;
    __atomic_store_n(&short_result, kprof_turnlock_take(&lock, 50), __ATOMIC_RELEASE);
    return NULL;
}

static void *long_waiter(void *arg)
{
    (void)arg;
    int r = kprof_turnlock_take(&lock, 5000);
    __atomic_store_n(&long_result, r, __ATOMIC_RELEASE);
    if (r)
        kprof_turnlock_give(&lock);
    return NULL;
}

static void giveup(void)
{
    if (!kprof_turnlock_take(&lock, 5000))
        fail("giveup: a free lock not taken");
    pthread_t s, l;
    pthread_create(&s, NULL, short_waiter, NULL);
    until_waiting(1);
    pthread_create(&l, NULL, long_waiter, NULL);
    while (waiting() != 2 && __atomic_load_n(&short_result, __ATOMIC_ACQUIRE) == -1)
        usleep(100); /* both hold tickets (or, on a loaded machine, the first gave up already) */
    pthread_join(s, NULL);
    if (short_result != 0)
        fail("giveup: a waiter whose 50 ms deadline passed took the held lock");
    kprof_turnlock_give(&lock);
    pthread_join(l, NULL);
    if (long_result != 1)
        fail("giveup: the waiter behind a given-up ticket did not have the lock");
    if (!kprof_turnlock_take(&lock, 1000))
        fail("giveup: the lock not free after the two waiters");
    kprof_turnlock_give(&lock);
    if (lock.head || lock.tail || lock.waiting != 0 || lock.held)
        fail("giveup: waiters or a holder left behind");
    printf("ok: giveup: a waiter whose deadline passed got 0, the next one had the lock, then it was free\n");
}

#define CROWD 8
#define ROUNDS 3000
static long count;
static int missed;

static void *crowd_member(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (!kprof_turnlock_take(&lock, 1000)) {
            __atomic_add_fetch(&missed, 1, __ATOMIC_RELAXED);
            continue;
        }
        long c = count; /* unguarded but for the lock: a lost update shows a lock that let two in */
        if (i % 64 == 0)
            sched_yield();
        count = c + 1;
        kprof_turnlock_give(&lock);
    }
    return NULL;
}

static void crowd(void)
{
    pthread_t th[CROWD];
    for (int i = 0; i < CROWD; i++)
        pthread_create(&th[i], NULL, crowd_member, NULL);
    for (int i = 0; i < CROWD; i++)
        pthread_join(th[i], NULL);
    if (missed) {
        printf("FAIL: crowd: %d takes waited out their 1 s deadline\n", missed);
        exit(1);
    }
    if (count != (long)CROWD * ROUNDS) {
        printf("FAIL: crowd: count %ld, expected %ld\n", count, (long)CROWD * ROUNDS);
        exit(1);
    }
    printf("ok: crowd: %d threads x %d, count exact, no deadline waited out\n", CROWD, ROUNDS);
}

/* The lock with bytes after it that no take or give may touch. */
static struct {
    struct kprof_turnlock l;
    unsigned char after[256];
} guarded;

static void *give_up_on_guarded(void *arg)
{
    (void)arg;
    if (kprof_turnlock_take(&guarded.l, 50))
        fail("many: a held lock taken");
    return NULL;
}

static void many(void)
{
    memset(guarded.after, 0xa5, sizeof guarded.after);
    if (!kprof_turnlock_take(&guarded.l, 1000))
        fail("many: a free lock not taken");
    pthread_t th[40];
    for (int i = 0; i < 40; i++)
        pthread_create(&th[i], NULL, give_up_on_guarded, NULL);
    for (int i = 0; i < 40; i++)
        pthread_join(th[i], NULL);
    for (size_t i = 0; i < sizeof guarded.after; i++)
        if (guarded.after[i] != 0xa5)
            fail("many: bytes after the lock written");
    kprof_turnlock_give(&guarded.l);
    if (!kprof_turnlock_take(&guarded.l, 1000))
        fail("many: the lock not free after 40 waiters gave up");
    kprof_turnlock_give(&guarded.l);
    if (guarded.l.head || guarded.l.waiting || guarded.l.sleeping)
        fail("many: waiters left behind");
    printf("ok: many: 40 waiters gave up at once, nothing after the lock written, free after\n");
}

static int holding;

static void repeat(void)
{
    pthread_t h;
    struct holder hd = { &holding, 2000000, "repeat" };
    pthread_create(&h, NULL, take_mark_hold_give, &hd);
    while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
        usleep(100);
    for (int i = 0; i < 40; i++) {
        uint64_t t0 = kprof_now_ns();
        int got = kprof_turnlock_take(&lock, 20);
        uint64_t waited = kprof_now_ns() - t0;
        if (got) {
            printf("FAIL: repeat: ask %d took the held lock after %.0f ms\n", i, (double)waited / 1e6);
            exit(1);
        }
        if (waited > 1000000000u) {
            printf("FAIL: repeat: ask %d waited %.0f ms, its deadline 20 ms\n", i, (double)waited / 1e6);
            exit(1);
        }
    }
    pthread_join(h, NULL);
    printf("ok: repeat: 40 asks in a row while the lock was held, each gave up at its deadline\n");
}

static int waiter_started;

static void *wait_to_be_cancelled(void *arg)
{
    (void)arg;
    __atomic_store_n(&waiter_started, 1, __ATOMIC_RELEASE);
    if (kprof_turnlock_take(&lock, 5000))
        kprof_turnlock_give(&lock);
    return NULL;
}

static void cancel(void)
{
    for (int queued = 0; queued <= 1; queued++) {
        if (!kprof_turnlock_take(&lock, 1000))
            fail("cancel: a free lock not taken");
        __atomic_store_n(&waiter_started, 0, __ATOMIC_RELEASE);
        pthread_t w;
        pthread_create(&w, NULL, wait_to_be_cancelled, NULL);
        while (!__atomic_load_n(&waiter_started, __ATOMIC_ACQUIRE))
            usleep(50);
        if (queued)
            until_waiting(1);
        pthread_cancel(w);
        usleep(queued ? 20000 : 200); /* a cancellation acted on at the wait would do it here */
        if (pthread_mutex_trylock(&lock.m) != 0) {
            printf("FAIL: cancel: the lock's mutex left locked by a thread cancelled %s\n",
                   queued ? "in the queue" : "before the 1 ms");
            exit(1);
        }
        pthread_mutex_unlock(&lock.m);
        kprof_turnlock_give(&lock); /* the waiter takes it, gives it back, and is cancelled after */
        pthread_join(w, NULL);
        if (!kprof_turnlock_take(&lock, 1000))
            fail("cancel: the lock not free after the cancelled waiter");
        kprof_turnlock_give(&lock);
        if (lock.head || lock.waiting)
            fail("cancel: the cancelled waiter left in the queue");
    }
    printf("ok: cancel: waiters cancelled before the 1 ms and in the queue left the lock usable\n");
}

/* Takes the lock, then runs `waiter` (which sets short_result) on another thread to its end, the lock
 * still held. */
static void waiter_on_held_lock(void *(*waiter)(void *), const char *part)
{
    if (!kprof_turnlock_take(&lock, 1000)) {
        printf("FAIL: %s: a free lock not taken\n", part);
        exit(1);
    }
    pthread_t s;
    short_result = -1;
    pthread_create(&s, NULL, waiter, NULL);
    pthread_join(s, NULL);
}

/* A system call as this program's code (clock.c among it) makes it: clock_gettime refused (EPERM, as a
 * seccomp filter may) while clock_syscall_fails is set ("nosyscall"). */
static int clock_syscall_fails;
static int clock_syscalls; /* clock_gettime system calls made ("onesyscall") */

long syscall(long n, ...)
{
    static long (*real)(long, ...);
    if (!real)
        real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    if (n == SYS_clock_gettime)
        __atomic_add_fetch(&clock_syscalls, 1, __ATOMIC_RELAXED);
    if (n == SYS_clock_gettime && __atomic_load_n(&clock_syscall_fails, __ATOMIC_RELAXED)) {
        errno = EPERM;
        return -1;
    }
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* Seconds since an arbitrary start, on the monotonic clock. */
static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void clockstep(void)
{
    __atomic_store_n(&realtime_ahead_s, 10, __ATOMIC_RELAXED);
    double t0 = mono_s();
    order();
    double t1 = mono_s();
    waiter_on_held_lock(short_waiter, "clockstep");
    double t2 = mono_s();
    if (short_result != 0)
        fail("clockstep: a held lock taken");
    kprof_turnlock_give(&lock);
    __atomic_store_n(&realtime_ahead_s, 0, __ATOMIC_RELAXED);
    if (t2 - t1 > 1.0) {
        printf("FAIL: clockstep: a 50 ms deadline waited %.2f s with CLOCK_REALTIME 10 s ahead\n", t2 - t1);
        exit(1);
    }
    printf("ok: clockstep: with CLOCK_REALTIME 10 s ahead, order in %.2f s, a 50 ms deadline given up after "
           "%.3f s\n", t1 - t0, t2 - t1);
}

static void nosyscall(void)
{
    __atomic_store_n(&clock_syscall_fails, 1, __ATOMIC_RELAXED);
    if (!kprof_turnlock_take(&lock, 1000))
        fail("nosyscall: a free lock not taken");
    pthread_t l;
    long_result = -1;
    pthread_create(&l, NULL, long_waiter, NULL);
    usleep(50000);
    kprof_turnlock_give(&lock);
    pthread_join(l, NULL);
    __atomic_store_n(&clock_syscall_fails, 0, __ATOMIC_RELAXED);
    if (long_result != 1)
        fail("nosyscall: with the clock's system call refused, a waiter with a 5 s deadline gave up on a lock "
             "held 50 ms");
    printf("ok: nosyscall: with the clock's system call refused, a waiter had the lock held 50 ms\n");
}

static void onesyscall(void)
{
    int before = __atomic_load_n(&clock_syscalls, __ATOMIC_RELAXED);
    waiter_on_held_lock(short_waiter, "onesyscall");
    int made = __atomic_load_n(&clock_syscalls, __ATOMIC_RELAXED) - before;
    kprof_turnlock_give(&lock);
    if (short_result != 0)
        fail("onesyscall: a held lock taken");
    if (made != 1) {
        printf("FAIL: onesyscall: a waiter on a held lock made %d clock system calls (1 expected)\n", made);
        exit(1);
    }
    printf("ok: onesyscall: a waiter on a held lock read the clock by one system call\n");
}

static void reset(void)
{
    waiter_on_held_lock(short_waiter, "reset");
    kprof_turnlock_reset(&lock);
    if (!kprof_turnlock_take(&lock, 1000))
        fail("reset: the lock not free after kprof_turnlock_reset");
    kprof_turnlock_give(&lock);
    printf("ok: reset: free again\n");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } parts[] = { { "order", order }, { "giveup", giveup }, { "crowd", crowd }, { "reset", reset },
                  { "many", many },   { "repeat", repeat }, { "cancel", cancel }, { "clockstep", clockstep },
                  { "nosyscall", nosyscall }, { "onesyscall", onesyscall } };
    const char *part = argc > 1 ? argv[1] : "all";
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!strcmp(part, "all") || !strcmp(part, parts[i].name))
            parts[i].run();
    return 0;
}
