// fake_nvcc_smoke.cu: an ordinary nvcc -cudart shared program, run against the fake stack by fake-smoke.sh.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); return 1; } } while (0)

int main()
{
    const int n = 1 << 16;
    static float hx[n], hy[n], back[n];
    float *x, *y, ms = -1;
    cudaEvent_t start, stop;

    for (int i = 0; i < n; i++) {
        hx[i] = (float)i;
        hy[i] = 1.0f;
    }
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMalloc(&y, sizeof hy));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    CK(cudaEventRecord(start));
    saxpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
    CK(cudaGetLastError());
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    CK(cudaEventElapsedTime(&ms, start, stop));
    // On the fake, kernels do not run: only the copies are checked.
    CK(cudaMemcpy(back, x, sizeof hx, cudaMemcpyDeviceToHost));
    if (std::memcmp(back, hx, sizeof hx) != 0) {
        std::fprintf(stderr, "copy round trip differs\n");
        return 1;
    }
    std::printf("saxpy %.6f ms\n", ms);
    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    CK(cudaFree(x));
    CK(cudaFree(y));
    return 0;
}
