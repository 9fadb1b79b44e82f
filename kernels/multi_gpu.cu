// multi_gpu.cu: kernels and copies on every visible GPU (each on its own stream): a profiler must time
// each on its own device and give each device its row.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void per_device(float *x, int n, float v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 0.5f + v; }

int main()
{
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    const int n = 1 << 22;
    std::vector<float *> d(ndev);
    std::vector<cudaStream_t> s(ndev);
    for (int g = 0; g < ndev; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&d[g], n * sizeof(float)));
        CK(cudaStreamCreate(&s[g]));
    }
    for (int k = 0; k < 10; k++)
        for (int g = 0; g < ndev; g++) {
            CK(cudaSetDevice(g));
            per_device<<<n / 256, 256, 0, s[g]>>>(d[g], n, (float)g);
        }
    float h = 0;
    for (int g = 0; g < ndev; g++) {
        CK(cudaSetDevice(g));
        CK(cudaStreamSynchronize(s[g]));
        CK(cudaMemcpy(&h, d[g], sizeof h, cudaMemcpyDeviceToHost));
        CK(cudaFree(d[g]));
    }
    printf("multi_gpu: %d devices x 10 launches\n", ndev);
    return 0;
}
