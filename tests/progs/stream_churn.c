/* stream_churn.c ROUNDS [threads]: each round creates a stream, launches kernel_a 5 times on it and destroys
 * it, waiting for nothing, ever (a breaker helper's pattern: with the stream's handle given to the next one,
 * the new stream's pairs queued behind the destroyed one's).  "threads": each round is a thread instead,
 * which launches kernel_a 5 times on its per-thread default stream and exits (joined before the next).
 * Every 20 rounds it sleeps 2 ms (libkprof's harvester reads what was queued meanwhile, however loaded the
 * machine: tests/queues-of-gone-streams-reused.sh counts the queues in use at once). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub_a(void) {}

static void *one_thread(void *arg)
{
    (void)arg;
    for (int j = 0; j < 5; j++)
        CHECK(launch(stub_a, (dim3){ 4, 1, 1 }, (dim3){ 32, 1, 1 }, cudaStreamPerThread));
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    int threads = argc > 2 && strcmp(argv[2], "threads") == 0;
    if (rounds <= 0)
        return 2;
    void **m = register_module();
    register_kernel(m, stub_a, "_Z8kernel_aPf");
    __cudaRegisterFatBinaryEnd(m);
    for (int i = 0; i < rounds; i++) {
        if (i % 20 == 19)
            usleep(2000);
        if (threads) {
            run_threads(1, one_thread);
            continue;
        }
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        for (int j = 0; j < 5; j++)
            CHECK(launch(stub_a, (dim3){ 4, 1, 1 }, (dim3){ 32, 1, 1 }, s));
        CHECK(cudaStreamDestroy(s));
    }
    printf("stream_churn: %d rounds%s\n", rounds, threads ? " of threads" : "");
    return 0;
}
