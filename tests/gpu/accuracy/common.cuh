// common.cuh: shared helpers of the accuracy programs: an error check and spin kernels of exact duration.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                              \
    do {                                                                                                   \
        cudaError_t e_ = (x);                                                                              \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));            \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

#define EXPECT(cond)                                                                                       \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                       \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

__device__ __forceinline__ unsigned long long globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// spin<TAG>: every thread busy-waits `ns` nanoseconds of %globaltimer, then thread 0 of block 0 counts the
// run in *count (when given).  TAG only makes distinct kernels (names) of the same code.
template <int TAG> __global__ void spin(unsigned long long ns, unsigned int *count)
{
    unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < ns) {
    }
    if (count && threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(count, 1u);
}

// A device counter per kernel: zeroed at creation, read back with counts().
struct Counters {
    unsigned int *d = nullptr;
    int n;
    explicit Counters(int n_) : n(n_)
    {
        CK(cudaMalloc(&d, n * sizeof *d));
        CK(cudaMemset(d, 0, n * sizeof *d));
    }
    unsigned int *operator[](int i) const { return d + i; }
    unsigned int get(int i) const
    {
        unsigned int v;
        CK(cudaMemcpy(&v, d + i, sizeof v, cudaMemcpyDeviceToHost));
        return v;
    }
};
