/* chain.c: launches on busy streams, which libkprof times with one event each (the previous stop as the
 * start), and every situation in which a launch does not start where its stream's last timed call
 * stopped, so that one-event timing must not be used.  Each "case" kernel is short, and sits behind a
 * long kernel it waits for one way or another; its time must still be its own.  The fake GPU's kernel
 * times (FAKEGPU_KERNEL_NS) are set by the test.  "chain record" runs one case alone: the app records an
 * event of its own between two launches on a busy stream (the test gives event records GPU time,
 * FAKEGPU_EVENT_NS), which must not be charged to the second launch.
 *
 * Further cases, one per argument: "thread" (a thread whose first CUDA call launches work on a busy
 * stream: libkprof cannot time that call, the context not being current yet), "reuse" (a stream destroyed
 * with its last kernel still running, its handle given to a new stream), "tid" (a thread that used its
 * per-thread default stream exits and another gets its thread id: this program's gettid() makes that
 * happen on demand). */
#define _GNU_SOURCE
#include <cuda_profiler_api.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fakeprog.h"

/* Interposes glibc's gettid() (the executable is linked -rdynamic): a thread that sets fake_tid appears
 * to libkprof under that id, as if the kernel had reused a dead thread's. */
static __thread pid_t fake_tid;
pid_t gettid(void)
{
    return fake_tid ? fake_tid : (pid_t)syscall(SYS_gettid);
}

static void busy(void) {}       /* short, back to back on one stream */
static void longk(void) {}      /* long: what the case kernels wait for */
static void skipme(void) {}     /* long, left out by KPROF_EXCLUDE */
static void after_wait(void) {} /* after cudaStreamWaitEvent on another stream's long kernel */
static void after_legacy(void) {} /* on a blocking stream, after a long kernel on the legacy stream */
static void legacy_after(void) {} /* on the legacy stream, after a long kernel on a blocking stream */
static void after_skip(void) {} /* after an excluded (untimed) long kernel on its stream */
static void after_pause(void) {} /* after a long kernel launched while profiling was stopped */
static void after_record(void) {} /* after the app's own event record */
static void after_legacy_record(void) {} /* after an event record on the legacy stream */
static void after_thread(void) {} /* after another thread's first (untimed) call */
static void after_reuse(void) {} /* first launch on a stream that got a destroyed stream's handle */
static void after_tid(void) {}   /* first launch of a thread that got a dead thread's id */

static cudaStream_t shared_stream;

static void *first_call_launches(void *arg)
{
    (void)arg;
    void *args[1] = { NULL };
    CHECK(cudaLaunchKernel((const void *)longk, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, shared_stream));
    return NULL;
}

/* Launches host_stub on this thread's per-thread default stream, as a _ptsz host stub does. */
static cudaError_t launch_ptsz(void (*host_stub)(void))
{
    cudaKernel_t k = NULL;
    cudaError_t r = __cudaGetKernel(&k, (const void *)host_stub);
    void *args[1] = { NULL };
    return r != cudaSuccess ? r : __cudaLaunchKernel_ptsz(k, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, 0);
}

static void *as_tid_4242(void *stub)
{
    fake_tid = 4242;
    CHECK(launch_ptsz((void (*)(void))stub));
    return NULL;
}

int main(int argc, char **argv)
{
    void **m = register_module();
    register_kernel(m, busy, "_Z4busyv");
    register_kernel(m, longk, "_Z5longkv");
    register_kernel(m, skipme, "_Z6skipmev");
    register_kernel(m, after_wait, "_Z10after_waitv");
    register_kernel(m, after_legacy, "_Z12after_legacyv");
    register_kernel(m, legacy_after, "_Z12legacy_afterv");
    register_kernel(m, after_skip, "_Z10after_skipv");
    register_kernel(m, after_pause, "_Z11after_pausev");
    register_kernel(m, after_record, "_Z12after_recordv");
    register_kernel(m, after_legacy_record, "_Z19after_legacy_recordv");
    register_kernel(m, after_thread, "_Z12after_threadv");
    register_kernel(m, after_reuse, "_Z11after_reusev");
    register_kernel(m, after_tid, "_Z9after_tidv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    cudaStream_t s1, s2;
    cudaEvent_t e;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    CHECK(cudaEventCreate(&e));

    if (argc > 1 && strcmp(argv[1], "thread") == 0) {
        shared_stream = s1;
        CHECK(launch(busy, one, one, s1));
        pthread_t t;
        pthread_create(&t, NULL, first_call_launches, NULL);
        pthread_join(t, NULL);
        CHECK(launch(after_thread, one, one, s1));
        CHECK(cudaDeviceSynchronize());
        printf("chain: ok\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "reuse") == 0) {
        cudaStream_t old[16], s = NULL;
        for (int i = 0; i < 16; i++) {
            CHECK(cudaStreamCreateWithFlags(&old[i], cudaStreamNonBlocking));
            CHECK(launch(longk, one, one, old[i]));
        }
        for (int i = 0; i < 16; i++)
            CHECK(cudaStreamDestroy(old[i]));
        int reused = 0;
        for (int tries = 0; tries < 1000 && !reused; tries++) {
            CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            for (int i = 0; i < 16; i++)
                reused |= s == old[i];
        }
        CHECK(launch(after_reuse, one, one, s));
        CHECK(cudaDeviceSynchronize());
        printf("chain: ok (handle %s)\n", reused ? "reused" : "never reused");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "tid") == 0) {
        pthread_t t;
        pthread_create(&t, NULL, as_tid_4242, (void *)longk);
        pthread_join(t, NULL);
        pthread_create(&t, NULL, as_tid_4242, (void *)after_tid);
        pthread_join(t, NULL);
        CHECK(cudaDeviceSynchronize());
        printf("chain: ok\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "record") == 0) {
        for (int i = 0; i < 5; i++) {
            CHECK(launch(busy, one, one, s1));
            CHECK(cudaEventRecord(e, s1));
            CHECK(launch(after_record, one, one, s1));
        }
        CHECK(cudaDeviceSynchronize());
        printf("chain: ok\n");
        return 0;
    }

    for (int i = 0; i < 20; i++) /* one busy stream: 19 of these start at the previous stop */
        CHECK(launch(busy, one, one, s1));
    CHECK(cudaDeviceSynchronize());

    /* s2 waits for s1's long kernel between two of its own launches. */
    CHECK(launch(busy, one, one, s2));
    CHECK(launch(longk, one, one, s1));
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    CHECK(launch(after_wait, one, one, s2));
    CHECK(cudaDeviceSynchronize());

    /* Implicit synchronisation with the legacy default stream, both ways. */
    CHECK(launch(busy, one, one, s1));
    CHECK(launch(longk, one, one, 0));
    CHECK(launch(after_legacy, one, one, s1));
    CHECK(cudaDeviceSynchronize());
    CHECK(launch(busy, one, one, 0));
    CHECK(launch(longk, one, one, s1));
    CHECK(launch(legacy_after, one, one, 0));
    CHECK(cudaDeviceSynchronize());

    /* An untimed launch between two timed ones on one stream. */
    CHECK(launch(busy, one, one, s1));
    CHECK(launch(skipme, one, one, s1));
    CHECK(launch(after_skip, one, one, s1));
    CHECK(cudaDeviceSynchronize());

    /* An event recorded on the legacy stream waits for s2's long kernel, and s1 waits for the record. */
    CHECK(launch(busy, one, one, s1));
    CHECK(launch(longk, one, one, s2));
    CHECK(cudaEventRecord(e, 0));
    CHECK(launch(after_legacy_record, one, one, s1));
    CHECK(cudaDeviceSynchronize());

    /* A launch made while profiling was stopped. */
    CHECK(launch(busy, one, one, s1));
    CHECK(cudaProfilerStop());
    CHECK(launch(longk, one, one, s1));
    CHECK(cudaProfilerStart());
    CHECK(launch(after_pause, one, one, s1));
    CHECK(cudaDeviceSynchronize());
    printf("chain: ok\n");
    return 0;
}
