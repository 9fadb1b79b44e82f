/* threads8x4: 8 host threads, each with 4 streams, 1000 launches of `worker` per stream. Truth: worker 32000. */
#include <pthread.h>
#include "robustprog.h"

#define THREADS 8
#define STREAMS 4
#define LAUNCHES 1000

static void worker(void) {}

static void *run(void *arg)
{
    cudaStream_t s[STREAMS];

    (void)arg;
    for (int i = 0; i < STREAMS; i++)
        CHECK(cudaStreamCreate(&s[i]));
    for (int n = 0; n < LAUNCHES; n++)
        for (int i = 0; i < STREAMS; i++)
            CHECK(launch(worker, s[i]));
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamSynchronize(s[i]));
        CHECK(cudaStreamDestroy(s[i]));
    }
    return NULL;
}

int main(void)
{
    void **m = register_module();
    pthread_t t[THREADS];

    register_kernel(m, worker, "_Z6workerv");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(0));
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, run, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("threads8x4: %d threads x %d streams x %d launches\n", THREADS, STREAMS, LAUNCHES);
    return 0;
}
