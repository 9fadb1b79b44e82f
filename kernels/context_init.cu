// context_init.cu: host wall time of the first cudaMalloc (creates the context) and of a second one.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(e_));                                  \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void touch(int *p)
{
    *p = 1;
}

static double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--no-verify")) {
            // nothing to verify; accepted for uniformity with the other samples
        } else if (!strcmp(argv[a], "--help")) {
            printf("usage: %s [--no-verify] [--help]\n", argv[0]);
            return 0;
        } else {
            fprintf(stderr, "usage: %s [--no-verify] [--help]\n", argv[0]);
            return 2;
        }
    }

    int *a, *b;
    auto t0 = std::chrono::steady_clock::now();
    CK(cudaMalloc(&a, 1 << 20));
    double first = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    CK(cudaMalloc(&b, 1 << 20));
    double second = ms_since(t0);
    printf("context_init: first cudaMalloc %.3f ms\n", first);
    printf("context_init: second cudaMalloc %.3f ms\n", second);

    touch<<<1, 1>>>(a);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(a));
    CK(cudaFree(b));
    return 0;
}
