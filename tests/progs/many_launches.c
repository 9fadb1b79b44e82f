/* many_launches.c N THREADS [PAUSE_AT]: THREADS host threads, each on its own stream, launch kernel_a N
 * times and kernel_b N / 10 times, interleaved (a workload for KPROF_SAMPLE=auto); with PAUSE_AT, each
 * thread sleeps 500 ms (real time) after its PAUSE_AT-th launch of kernel_a, so that libkprof's harvester
 * has read what came before. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub_a(void) {}
static void stub_b(void) {}
static long n, pause_at;

static void *worker(void *arg)
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (long i = 0; i < n; i++) {
        CHECK(launch(stub_a, (dim3){ 64, 1, 1 }, (dim3){ 128, 1, 1 }, s));
        if (i % 10 == 0)
            CHECK(launch(stub_b, (dim3){ 8, 1, 1 }, (dim3){ 32, 1, 1 }, s));
        if (pause_at > 0 && i + 1 == pause_at)
            usleep(500000);
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return arg;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 1000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    pause_at = argc > 3 ? atol(argv[3]) : 0;
    if (n <= 0 || threads <= 0 || threads > 64)
        return 2;
    void **m = register_module();
    register_kernel(m, stub_a, "_Z8kernel_aPf");
    register_kernel(m, stub_b, "_Z8kernel_bPf");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(0));
    run_threads(threads, worker);
    return 0;
}
