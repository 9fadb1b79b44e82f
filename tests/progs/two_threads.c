/* two_threads.c [ROUNDS]: two host threads, each on its own stream, launching kernels concurrently; ROUNDS
 * (default 1) times, with new threads each round. */
#include <pthread.h>
#include <stdlib.h>
#include "fakeprog.h"

#define LAUNCHES 500

static void stub_a(void) {}
static void stub_b(void) {}

static void *worker(void *arg)
{
    void (*stub)(void) = arg;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (int i = 0; i < LAUNCHES; i++)
        CHECK(launch(stub, (dim3){ 64, 1, 1 }, (dim3){ 128, 1, 1 }, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    void **m = register_module();
    register_kernel(m, stub_a, "_Z8kernel_aPf");
    register_kernel(m, stub_b, "_Z8kernel_bPf");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(0)); /* create the context before the threads start */
    for (int r = 0; r < rounds; r++) {
        pthread_t a, b;
        pthread_create(&a, NULL, worker, (void *)stub_a);
        pthread_create(&b, NULL, worker, (void *)stub_b);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    }
    printf("two_threads: %d launches per thread\n", LAUNCHES);
    return 0;
}
