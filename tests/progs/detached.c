/* detached.c [THREADS]: THREADS (default 8) detached host threads launch kernels, each on its own stream,
 * until the process exits; main returns once they have made 200 launches (or after 5 s), so libkprof
 * writes its report while they still launch. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}
static unsigned long launched;

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
    int n = argc > 1 ? atoi(argv[1]) : 8;
    void **m = register_module();
    register_kernel(m, stub, "_Z8detachedv");
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
        pthread_create(&t, &a, worker, NULL);
    }
    for (int i = 0; i < 5000 && __atomic_load_n(&launched, __ATOMIC_RELAXED) < 200; i++)
        usleep(1000);
    printf("detached: main returns\n");
    fflush(stdout);
    return 0;
}
