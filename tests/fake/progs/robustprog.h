/* robustprog.h: what nvcc generates for a CUDA program, written by hand (as in tests/progs/fakeprog.h) so that
 * the robustness programs register and launch kernels through libcudart exactly as a <<<>>> launch does. */
#ifndef FAKE_ROBUSTPROG_H
#define FAKE_ROBUSTPROG_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "fake_private.h"

static int fatbin_placeholder;

static inline void **register_module(void)
{
    return __cudaRegisterFatBinary(&fatbin_placeholder);
}

/* host_stub stands for the host stub nvcc would emit for the kernel with this mangled name. */
static inline void register_kernel(void **module, void (*host_stub)(void), const char *mangled)
{
    __cudaRegisterFunction(module, (const char *)host_stub, (char *)host_stub, mangled, -1, NULL, NULL, NULL, NULL,
                           NULL);
}

/* The host stub's body: look the kernel up, then launch it. */
static inline cudaError_t launch(void (*host_stub)(void), cudaStream_t stream)
{
    cudaKernel_t k = NULL;
    cudaError_t r = __cudaGetKernel(&k, (const void *)host_stub);
    void *args[1] = { NULL };

    if (r != cudaSuccess)
        return r;
    return __cudaLaunchKernel(k, (dim3){ 64, 1, 1 }, (dim3){ 128, 1, 1 }, args, 0, stream);
}

#define CHECK(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                    (int)e_);                                                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* EXPECT(call, error): the call must fail with exactly that error. */
#define EXPECT(call, want)                                                                          \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != (want)) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s (%d), expected %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorName(e_), (int)e_, cudaGetErrorName(want));                        \
            exit(1);                                                                               \
        }                                                                                          \
        cudaGetLastError();                                                                        \
    } while (0)

#define ASSERT(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
