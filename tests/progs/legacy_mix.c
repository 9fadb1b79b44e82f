/* legacy_mix.c THREADS N: THREADS host threads each launch kernel_a N times, one launch in three on the
 * legacy default stream and the others on a blocking stream of its own, without waiting in between (a
 * breaker helper's pattern: under KPROF_SAMPLE, another thread's untimed launch on the other kind of
 * stream could come between a timed pair's events).  First, alone, the main thread launches it 16 times
 * on a blocking stream and 16 times on the legacy stream, each waited for: both kinds are timed (under
 * KPROF_SAMPLE up to 8 too) before the threads begin, so that their launches find the ordering on (an
 * untimed launch begun at the very moment it comes on may still come between a pair's events). */
#include <pthread.h>
#include <stdlib.h>
#include "fakeprog.h"

static void stub_a(void) {}
static long n;

static void *worker(void *arg)
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (long i = 0; i < n; i++)
        CHECK(launch(stub_a, (dim3){ 64, 1, 1 }, (dim3){ 128, 1, 1 }, i % 3 ? s : 0));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return arg;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    n = argc > 2 ? atol(argv[2]) : 5000;
    if (threads <= 0 || threads > 64 || n <= 0)
        return 2;
    void **m = register_module();
    register_kernel(m, stub_a, "_Z8kernel_aPf");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(0));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (int i = 0; i < 32; i++) {
        CHECK(launch(stub_a, (dim3){ 64, 1, 1 }, (dim3){ 128, 1, 1 }, i < 16 ? s : 0));
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaStreamDestroy(s));
    run_threads(threads, worker);
    printf("legacy_mix: %d threads, %ld launches each\n", threads, n);
    return 0;
}
