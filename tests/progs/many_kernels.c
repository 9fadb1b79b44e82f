/* many_kernels.c K N [THREADS]: registers K kernels (1 to 512, named k0 to k<K-1>) and launches them in
 * turn, N launches in all on each of THREADS host threads (default 1), each thread on a stream of its
 * own: a model's step, whose launches go to tens or hundreds of kernels where a benchmark loop has one. */
#include <stdlib.h>
#include "fakeprog.h"

#define MAX_K 512
/* The kernels' host stubs: distinct addresses are all the runtime needs of them (never called). */
static char stubs[MAX_K][16];
static long k_count, n;

static void (*stub(long i))(void)
{
    return (void (*)(void))(void *)stubs[i];
}

static void *worker(void *arg)
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (long i = 0; i < n; i++)
        CHECK(launch(stub(i % k_count), (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return arg;
}

int main(int argc, char **argv)
{
    k_count = argc > 1 ? atol(argv[1]) : 64;
    n = argc > 2 ? atol(argv[2]) : 6400;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    if (k_count < 1 || k_count > MAX_K || n < 0 || threads < 1 || threads > 64)
        return 2;
    void **m = register_module();
    static char names[MAX_K][16];
    for (long i = 0; i < k_count; i++) {
        int digits = snprintf(NULL, 0, "k%ld", i);
        snprintf(names[i], sizeof names[i], "_Z%dk%ldv", digits, i);
        register_kernel(m, stub(i), names[i]);
    }
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(0));
    run_threads(threads, worker);
    return 0;
}
