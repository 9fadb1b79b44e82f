/* chain.c: launches on busy streams, which libkprof times with one event each (the previous stop as the
 * start), and every situation in which a launch does not start where its stream's last timed call
 * stopped, so that one-event timing must not be used.  Each "case" kernel is short, and sits behind a
 * long kernel it waits for one way or another; its time must still be its own.  The fake GPU's kernel
 * times (FAKEGPU_KERNEL_NS) are set by the test.  "chain record" runs one case alone: the app records an
 * event of its own between two launches on a busy stream (the test gives event records GPU time,
 * FAKEGPU_EVENT_NS), which must not be charged to the second launch. */
#include <cuda_profiler_api.h>
#include <string.h>
#include "fakeprog.h"

static void busy(void) {}       /* short, back to back on one stream */
static void longk(void) {}      /* long: what the case kernels wait for */
static void skipme(void) {}     /* long, left out by KPROF_EXCLUDE */
static void after_wait(void) {} /* after cudaStreamWaitEvent on another stream's long kernel */
static void after_legacy(void) {} /* on a blocking stream, after a long kernel on the legacy stream */
static void legacy_after(void) {} /* on the legacy stream, after a long kernel on a blocking stream */
static void after_skip(void) {} /* after an excluded (untimed) long kernel on its stream */
static void after_pause(void) {} /* after a long kernel launched while profiling was stopped */
static void after_record(void) {} /* after the app's own event record */

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
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    cudaStream_t s1, s2;
    cudaEvent_t e;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    CHECK(cudaEventCreate(&e));

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
