/* shared_stream.c: host threads launching on ONE non-blocking stream, which all of them share.  A pair's
 * start, its kernel and its stop are three calls; another thread's launch queued between them lands inside
 * the pair, which then reads that kernel as its own.  Modes, one per argument:
 *   "race": 3 rounds of a launch of slow_tiny (whose launch takes host time under
 *       FAKEGPU_LAUNCH_SLEEP_US=slow=us) while, 20 ms in, another thread launches big_k; then 3 rounds of
 *       slow_big while another thread launches tiny_k 5 times; each round waited for.
 *   "alternate": 8 threads at once, each launching big_k then tiny_k 100 times (the pattern of a break-it
 *       run on an H100, where tiny_k, 1 us, read up to 1.6 ms); under KPROF_SAMPLE, the launches left
 *       untimed land between other threads' events too.
 *   "firstlaunch": tiny_k on the legacy default stream and on a blocking stream (launches on those are
 *       ordered), then 20 rounds on a new blocking stream: a new thread whose first call is a launch of
 *       tiny_k (5 times) while an older thread launches tiny_k 5 times (a break-it helper: the new thread's
 *       launch held the stream's turn while its nested driver launch waited for the order lock, 200 ms).
 *   "firstuntimed": big_k 20 times, then 10 rounds of a launch of slow_tiny while, 20 ms in, a new thread's
 *       first call is a launch of big_k, which KPROF_SAMPLE=N leaves untimed (each thread's first launch of
 *       a kernel after its first is) (a break-it helper: slow_tiny read 101 us, big_k inside its pair).
 *   "resets": 4 threads launching tiny_k on the legacy default stream until told to stop, each waiting for
 *       it every 50th launch, while the main thread resets the device 10 times, 20 ms apart (the fake GPU
 *       freed the legacy stream at a reset while a call waiting for libkprof's hold still used it; then
 *       a launch's hold release wrote the hold word after the reset freed it: errors of the launches are
 *       the reset's and not checked).
 *   "newblocking": tiny_k once on the legacy default stream (the context has seen both kinds of stream),
 *       then 200 rounds, each on a new blocking stream that 4 threads, starting together, launch tiny_k on
 *       10 times each (a break-it helper: a call holding the stream's turn waited for the context's order
 *       lock, whose holder waited for a call that waited for the turn, 200 ms each time).
 *   "firstcopy": 3 rounds of a launch of slow_tiny while, 20 ms in, a new thread makes its first call, a
 *       1 MiB cudaMemcpyAsync (a thread's first call finds no current context, and stays untimed: it
 *       landed inside the other thread's pair all the same); each round waited for.
 *   "copyblocking": tiny_k once on the legacy default stream, then on one shared blocking stream, one
 *       thread copies 1 MiB host to device 300 times (cudaMemcpyAsync) while 3 threads launch tiny_k 300
 *       times each (the launches there are ordered, and the copies were not kept out of their pairs).
 *   "cancelled": a thread launching slow_tiny on the shared stream (its launch takes host time under
 *       FAKEGPU_LAUNCH_SLEEP_US=slow=us, a usleep: a cancellation point, as a blocking call in a driver may
 *       be) is cancelled 100 ms into its launch, then the main thread launches tiny_k 10 times there; then
 *       the same on a blocking stream with the legacy default stream in use (launches ordered), the main
 *       thread's 10 on the legacy stream.  Prints each part's 10 launches' wall time (a break-it helper:
 *       the cancelled thread kept the stream's turn, and the order lock, and each later call waited 200 ms
 *       for it).
 *   "cancelledcleanup": a new thread's first CUDA call, a launch of slow_tiny (its nested driver launch
 *       timed on its behalf: the thread has no current context yet), cancelled 100 ms in; a cleanup of the
 *       thread's own (__attribute__((cleanup)), built with -fexceptions, as a C++ destructor) launches
 *       tiny_k as the cancellation unwinds (a break-it helper: a SEGV in the driver launch wrapper, which
 *       took the launch for the dead frame's delegated one).  Prints the cleanup launch's result.
 *   "cancelledcalibration": a new thread's launch of tiny_k, the context's first timed call (libkprof
 *       calibrates on it), cancelled 5 ms in; then the main thread launches tiny_k 10 times (a break-it
 *       helper: with KPROF_LOG=info the calibration's message, a write(), was a cancellation point while
 *       the thread held the making of the context's pool, and the next launch waited 10 s for it).
 *       Prints the 10 launches' wall time.
 * Prints "shared_stream MODE: ok" at the end. */
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fakeprog.h"

static void slowshort(void) {}
static void slowlong(void) {}
static void longk(void) {}
static void shortk(void) {}

static cudaStream_t shared;

static void run(void (*stub)(void), int n)
{
    for (int i = 0; i < n; i++)
        CHECK(launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, shared));
}

/* One thread's part of a round (late): n launches of stub, or copies, delay_ms after it starts. */
struct job {
    void (*stub)(void); /* NULL: a 1 MiB host-to-device copy instead */
    int n;
    unsigned delay_ms;
    int first; /* the thread's first CUDA call is the launch itself, by __cudaLaunchKernel (launch() would
                * look the kernel up first, which makes the context current) */
    int meet;  /* the round's threads start together (`together`), each with its context current unless
                * `first` */
};

static void *hbuf, *dbuf;
static pthread_barrier_t together;

static void *late(void *arg)
{
    const struct job *j = arg;
    void *args[1] = { NULL };
    if (j->meet) {
        if (!j->first)
            CHECK(cudaFree(0));
        pthread_barrier_wait(&together);
    }
    usleep(j->delay_ms * 1000u);
    for (int i = 0; i < j->n; i++)
        if (!j->stub)
            CHECK(cudaMemcpyAsync(dbuf, hbuf, 1 << 20, cudaMemcpyHostToDevice, shared));
        else if (j->first)
            CHECK(__cudaLaunchKernel((cudaKernel_t)(void *)j->stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, args, 0,
                                     shared));
        else
            run(j->stub, 1);
    return NULL;
}

/* Two threads: `first` at once, `second` delay_ms later (while the first is still inside its slow launch),
 * or both together (`meet`); then the stream waited for. */
static void race_round(struct job first, struct job second)
{
    pthread_t a, b;
    pthread_create(&a, NULL, late, &first);
    pthread_create(&b, NULL, late, &second);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(cudaStreamSynchronize(shared));
}

static void *ten_tiny(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&together);
    run(shortk, 10);
    return NULL;
}

static int copier;

static void *copy_or_launch(void *arg)
{
    (void)arg;
    int me = __atomic_fetch_add(&copier, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 300; i++) {
        if (me == 0)
            CHECK(cudaMemcpyAsync(dbuf, hbuf, 1 << 20, cudaMemcpyHostToDevice, shared));
        else
            run(shortk, 1);
    }
    return NULL;
}

static int stop;

static void *until_stopped(void *arg)
{
    (void)arg;
    for (int i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
        (void)launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0);
        if (i % 50 == 0)
            (void)cudaStreamSynchronize(0);
    }
    return NULL;
}

static void *alternate(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        run(longk, 1);
        run(shortk, 1);
    }
    return NULL;
}

static void *slow_launch(void *arg)
{
    (void)arg;
    CHECK(cudaFree(0));
    CHECK(launch(slowshort, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, shared));
    return NULL;
}

/* Wall-clock seconds (CLOCK_REALTIME: the tests' virtual clock is the monotonic one). */
static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Cancels a new thread running fn(arg) `ms` milliseconds (real time) after its start; its exit value. */
static void *cancel_after(void *(*fn)(void *), void *arg, double ms)
{
    pthread_t th;
    pthread_create(&th, NULL, fn, arg);
    double until = wall_s() + ms / 1000.0;
    while (wall_s() < until) {
        struct timespec t = { 0, 200000 };
        syscall(SYS_nanosleep, &t, NULL); /* real time: a nanosleep on the main thread moves the virtual clock */
    }
    pthread_cancel(th);
    void *r;
    pthread_join(th, &r);
    return r;
}

/* "cancelled": one part; the main thread's 10 launches go on `after`. */
static void cancelled_part(const char *name, cudaStream_t after)
{
    CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, shared)); /* the main thread's, first */
    void *r = cancel_after(slow_launch, NULL, 100);
    double t0 = wall_s();
    for (int i = 0; i < 10; i++)
        CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, after));
    CHECK(cudaDeviceSynchronize());
    printf("shared_stream cancelled: %s: launcher %s, 10 launches took %.3f s\n", name,
           r == PTHREAD_CANCELED ? "cancelled" : "not cancelled", wall_s() - t0);
}

static int cleanup_launch_rc = -1;

/* Zeroes 16 KiB of stack below the caller: what the unwound frames left there (a stale pointer into them
 * then reads zeros, as after a C++ destructor's own use of that stack). */
static __attribute__((noinline)) void scrub_stack(void)
{
    volatile char pad[16384];
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = 0;
}

static void launch_on_unwind(int *unused)
{
    (void)unused;
    scrub_stack();
    cleanup_launch_rc = (int)launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, shared);
}

static void *first_call_launch(void *arg)
{
    int guard __attribute__((cleanup(launch_on_unwind))) = 0;
    (void)guard;
    launch(arg ? slowshort : shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, arg ? shared : 0);
    cleanup_launch_rc = -2; /* not cancelled: no launch from the cleanup counted */
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "race";
    void **m = register_module();
    register_kernel(m, slowshort, "slow_tiny");
    register_kernel(m, slowlong, "slow_big");
    register_kernel(m, longk, "big_k");
    register_kernel(m, shortk, "tiny_k");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
    if (!strcmp(mode, "race")) {
        for (int r = 0; r < 3; r++)
            race_round((struct job){ .stub = slowshort, .n = 1 },
                       (struct job){ .stub = longk, .n = 1, .delay_ms = 20 });
        for (int r = 0; r < 3; r++)
            race_round((struct job){ .stub = slowlong, .n = 1 },
                       (struct job){ .stub = shortk, .n = 5, .delay_ms = 20 });
    } else if (!strcmp(mode, "alternate")) {
        run_threads(8, alternate);
        CHECK(cudaStreamSynchronize(shared));
    } else if (!strcmp(mode, "firstcopy")) {
        CHECK(cudaMallocHost(&hbuf, 1 << 20));
        CHECK(cudaMalloc(&dbuf, 1 << 20));
        for (int r = 0; r < 3; r++)
            race_round((struct job){ .stub = slowshort, .n = 1 },
                       (struct job){ .stub = NULL, .n = 1, .delay_ms = 20 });
    } else if (!strcmp(mode, "firstlaunch")) {
        CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
        CHECK(cudaStreamDestroy(shared));
        CHECK(cudaStreamCreate(&shared));
        CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, shared));
        CHECK(cudaDeviceSynchronize());
        pthread_barrier_init(&together, NULL, 2);
        for (int r = 0; r < 20; r++) {
            CHECK(cudaStreamDestroy(shared));
            CHECK(cudaStreamCreate(&shared));
            race_round((struct job){ .stub = shortk, .n = 5, .first = 1, .meet = 1 },
                       (struct job){ .stub = shortk, .n = 5, .meet = 1 });
        }
    } else if (!strcmp(mode, "firstuntimed")) {
        run(longk, 20);
        CHECK(cudaStreamSynchronize(shared));
        for (int r = 0; r < 10; r++)
            race_round((struct job){ .stub = slowshort, .n = 1 },
                       (struct job){ .stub = longk, .n = 1, .delay_ms = 20, .first = 1 });
    } else if (!strcmp(mode, "resets")) {
        pthread_t th[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&th[i], NULL, until_stopped, NULL);
        for (int r = 0; r < 10; r++) {
            usleep(20000);
            (void)cudaDeviceReset();
        }
        usleep(20000);
        __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 4; i++)
            pthread_join(th[i], NULL);
        (void)cudaDeviceSynchronize();
        printf("shared_stream resets: ok\n");
        return 0;
    } else if (!strcmp(mode, "newblocking")) {
        CHECK(cudaStreamDestroy(shared));
        CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
        CHECK(cudaDeviceSynchronize());
        pthread_barrier_init(&together, NULL, 4);
        for (int r = 0; r < 200; r++) {
            CHECK(cudaStreamCreate(&shared));
            run_threads(4, ten_tiny);
            CHECK(cudaStreamSynchronize(shared));
            if (r < 199)
                CHECK(cudaStreamDestroy(shared));
        }
    } else if (!strcmp(mode, "cancelled")) {
        cancelled_part("shared stream", shared);
        CHECK(cudaStreamDestroy(shared));
        CHECK(cudaStreamCreate(&shared));
        CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
        CHECK(cudaDeviceSynchronize());
        cancelled_part("legacy stream", 0);
    } else if (!strcmp(mode, "cancelledcleanup")) {
        void *r = cancel_after(first_call_launch, (void *)1, 100);
        CHECK(cudaDeviceSynchronize());
        printf("shared_stream cancelledcleanup: launcher %s, its cleanup's launch returned %d\n",
               r == PTHREAD_CANCELED ? "cancelled" : "not cancelled", cleanup_launch_rc);
    } else if (!strcmp(mode, "cancelledcalibration")) {
        void *r = cancel_after(first_call_launch, NULL, 5);
        double t0 = wall_s();
        for (int i = 0; i < 10; i++)
            CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
        CHECK(cudaDeviceSynchronize());
        printf("shared_stream cancelledcalibration: launcher %s, 10 launches took %.3f s\n",
               r == PTHREAD_CANCELED ? "cancelled" : "not cancelled", wall_s() - t0);
    } else if (!strcmp(mode, "copyblocking")) {
        CHECK(cudaStreamDestroy(shared));
        CHECK(cudaStreamCreate(&shared));
        CHECK(cudaMallocHost(&hbuf, 1 << 20));
        CHECK(cudaMalloc(&dbuf, 1 << 20));
        CHECK(launch(shortk, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
        CHECK(cudaDeviceSynchronize());
        run_threads(4, copy_or_launch);
        CHECK(cudaDeviceSynchronize());
    } else {
        fprintf(stderr, "shared_stream: unknown mode %s\n", mode);
        return 2;
    }
    CHECK(cudaStreamDestroy(shared));
    printf("shared_stream %s: ok\n", mode);
    return 0;
}
