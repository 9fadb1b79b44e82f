/* detached.c [THREADS [capture]]: THREADS (default 8) detached host threads launch kernels, each on its own
 * stream, until the process exits; main returns once they have made 200 launches (and 20 captured ones
 * with "capture"; or after 5 s), so libkprof writes its report while they still launch.  With "capture", every other thread launches into
 * its stream while capturing it (relaxed mode: the other threads' launches stay legal), each capture's
 * graph thrown away, so kernels' captured-launch counts also move while the report is written. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}
static void stub_captured(void) {}
static unsigned long launched, captured;

static void *capturer(void *arg)
{
    (void)arg;
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess)
        return NULL;
    for (unsigned i = 0;; i++) {
        cudaGraph_t g = NULL;
        if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess)
            continue;
        if (launch(stub_captured, (dim3){ 1 + (i & 3), 1, 1 }, (dim3){ 32, 1, 1 }, s) == cudaSuccess)
            __atomic_add_fetch(&captured, 1, __ATOMIC_RELAXED);
        if (cudaStreamEndCapture(s, &g) == cudaSuccess && g)
            cudaGraphDestroy(g);
    }
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess)
        return NULL;
    dim3 g = { 64, 1, 1 }, b = { 128, 1, 1 };
    for (unsigned i = 0;; i++) {
        g.x = 64 + (i & 7); /* the shape changes: each launch notes it */
        if (launch(stub, g, b, s) == cudaSuccess)
            __atomic_add_fetch(&launched, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8, capture = argc > 2 && !strcmp(argv[2], "capture");
    void **m = register_module();
    register_kernel(m, stub, "_Z8detachedv");
    register_kernel(m, stub_captured, "_Z8capturedv");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(0));
    /* One launch first, waited for: should it be timed, libkprof's calibration is done before the threads
     * start, and no thread is inside it when the fake runtime tears the context down at exit. */
    CHECK(launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, &a, capture && i % 2 ? capturer : worker, NULL);
    }
    for (int i = 0; i < 5000 && (__atomic_load_n(&launched, __ATOMIC_RELAXED) < 200 ||
                                 (capture && __atomic_load_n(&captured, __ATOMIC_RELAXED) < 20));
         i++)
        usleep(1000);
    printf("detached: main returns\n");
    fflush(stdout);
    return 0;
}
