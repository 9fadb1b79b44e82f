/* fakeprog.h: what nvcc generates for a CUDA program, written by hand so C test programs can register and
 * launch kernels through libcudart exactly as a <<<>>> launch does (crt/host_runtime.h, CUDA 13). */
#ifndef KPROF_TESTS_FAKEPROG_H
#define KPROF_TESTS_FAKEPROG_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cudart_private.h"

extern void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);
extern void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
extern __typeof__(__cudaLaunchKernel) __cudaLaunchKernel_ptsz;

static int fatbin_placeholder;

/* Registers one kernel: host_stub stands for the host stub nvcc would emit, mangled for its device name. */
static inline void register_kernel(void **module, void (*host_stub)(void), const char *mangled)
{
    __cudaRegisterFunction(module, (const char *)host_stub, (char *)host_stub, mangled, -1, NULL, NULL, NULL,
                           NULL, NULL);
}

static inline void **register_module(void)
{
    return __cudaRegisterFatBinary(&fatbin_placeholder);
}

/* Runs worker(NULL) on `threads` host threads at once (1 to 64) and waits for them all. */
static inline void run_threads(int threads, void *(*worker)(void *))
{
    pthread_t t[64];
    int n = 0;
    while (n < threads && n < 64 && pthread_create(&t[n], NULL, worker, NULL) == 0)
        n++;
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* The host stub's body: look the kernel up once, then launch it. */
static inline cudaError_t launch(void (*host_stub)(void), dim3 grid, dim3 block, cudaStream_t stream)
{
    cudaKernel_t k = NULL;
    cudaError_t r = __cudaGetKernel(&k, (const void *)host_stub);
    if (r != cudaSuccess)
        return r;
    void *args[1] = { NULL };
    return __cudaLaunchKernel(k, grid, block, args, 0, stream);
}

#define CHECK(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: error %d\n", __FILE__, __LINE__, #call, (int)e_);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
