// device_reset.cu: launches kernels, calls cudaDeviceReset mid-run without synchronizing first, then
// launches more on the new context: a profiler must keep everything.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void before_reset(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
__global__ void after_reset(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }

int main()
{
    const int n = 1 << 22;
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));
    for (int k = 0; k < 5; k++) before_reset<<<n / 256, 256>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaDeviceReset()); // no synchronize before it
    CK(cudaMalloc(&d, n * sizeof(float)));
    for (int k = 0; k < 3; k++) after_reset<<<n / 256, 256>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
    printf("device_reset: 5 launches before the reset, 3 after\n");
    return 0;
}
