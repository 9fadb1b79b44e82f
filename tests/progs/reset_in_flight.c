/* reset_in_flight.c: a thread's launch of slow_k is still in its call (FAKEGPU_LAUNCH_SLEEP_US makes the
 * fake's launch take that long) when main resets the device; prints how long the reset took, in ms, and
 * the launch's result. */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include "fakeprog.h"

static void warm_k(void) {}
static void slow_k(void) {}
static int launched = -1;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *worker(void *arg)
{
    (void)arg;
    cudaStream_t s;
    if (cudaStreamCreate(&s) == cudaSuccess)
        launched = launch(slow_k, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, s);
    return NULL;
}

int main(void)
{
    void **m = register_module();
    register_kernel(m, warm_k, "_Z6warm_kv");
    register_kernel(m, slow_k, "_Z6slow_kv");
    __cudaRegisterFatBinaryEnd(m);
    /* libkprof's calibration done first, on this thread */
    CHECK(launch(warm_k, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    usleep(30000); /* the worker is inside its launch call */
    double t0 = now_ms();
    cudaError_t r = cudaDeviceReset();
    double took = now_ms() - t0;
    pthread_join(t, NULL);
    printf("reset_in_flight: reset %d took %.0f ms, launch %d\n", (int)r, took, launched);
    return 0;
}
