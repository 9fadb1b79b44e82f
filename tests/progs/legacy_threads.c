/* legacy_threads.c: kernels/first_launch's pattern, 20 rounds: kernels spin1..spin3 on the legacy default
 * stream from the main thread, then five threads at once: spin4 on the legacy stream, spin5 on a
 * non-blocking stream, spin6 on the per-thread default stream and spin7 on a blocking stream each (two
 * threads), each stream created and destroyed by its thread; then spin8 on the legacy stream.  Kernel n
 * launched n times a round (spin7 4 times per thread). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "fakeprog.h"

static void s1(void) {}
static void s2(void) {}
static void s3(void) {}
static void s4(void) {}
static void s5(void) {}
static void s6(void) {}
static void s7(void) {}
static void s8(void) {}
static void (*const stubs[9])(void) = { NULL, s1, s2, s3, s4, s5, s6, s7, s8 };

static void run(int tag, int n, cudaStream_t s)
{
    for (int i = 0; i < n; i++)
        CHECK(launch(stubs[tag], (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, s));
    CHECK(cudaStreamSynchronize(s));
}

static void *on_legacy(void *arg)
{
    (void)arg;
    run(4, 4, 0);
    return NULL;
}

static void *on_stream(void *arg)
{
    int tag = (int)(intptr_t)arg;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, tag == 5 ? cudaStreamNonBlocking : cudaStreamDefault));
    run(tag, tag == 7 ? 4 : tag, s);
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

static void *on_per_thread(void *arg)
{
    (void)arg;
    run(6, 6, cudaStreamPerThread);
    return NULL;
}

int main(void)
{
    void **m = register_module();
    static const char *names[9] = { NULL, "spin1", "spin2", "spin3", "spin4", "spin5", "spin6", "spin7", "spin8" };
    for (int i = 1; i <= 8; i++)
        register_kernel(m, stubs[i], names[i]);
    __cudaRegisterFatBinaryEnd(m);
    for (int round = 0; round < 20; round++) {
        run(1, 1, 0);
        run(2, 2, 0);
        run(3, 3, 0);
        pthread_t t[5];
        pthread_create(&t[0], NULL, on_legacy, NULL);
        pthread_create(&t[1], NULL, on_stream, (void *)(intptr_t)5);
        pthread_create(&t[2], NULL, on_per_thread, NULL);
        pthread_create(&t[3], NULL, on_stream, (void *)(intptr_t)7);
        pthread_create(&t[4], NULL, on_stream, (void *)(intptr_t)7);
        for (int i = 0; i < 5; i++)
            pthread_join(t[i], NULL);
        run(8, 7, 0);
    }
    printf("legacy_threads: ok\n");
    return 0;
}
