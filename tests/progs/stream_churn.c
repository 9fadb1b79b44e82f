/* stream_churn.c ROUNDS: each round creates a stream, launches kernel_a 5 times on it and destroys it,
 * waiting for nothing, ever (a breaker helper's pattern: with the stream's handle given to the next one,
 * the new stream's pairs queued behind the destroyed one's). */
#include <stdlib.h>
#include "fakeprog.h"

static void stub_a(void) {}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    if (rounds <= 0)
        return 2;
    void **m = register_module();
    register_kernel(m, stub_a, "_Z8kernel_aPf");
    __cudaRegisterFatBinaryEnd(m);
    for (int i = 0; i < rounds; i++) {
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        for (int j = 0; j < 5; j++)
            CHECK(launch(stub_a, (dim3){ 4, 1, 1 }, (dim3){ 32, 1, 1 }, s));
        CHECK(cudaStreamDestroy(s));
    }
    printf("stream_churn: %d rounds\n", rounds);
    return 0;
}
