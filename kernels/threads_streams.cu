// threads_streams.cu: 8 host threads, each with 4 streams, launching at once.
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void work(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 1.0001f + 1.0f; }

int main()
{
    const int threads = 8, streams = 4, launches = 500, n = 1 << 16;
    CK(cudaFree(0));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back([=] {
            cudaStream_t s[streams];
            float *d;
            CK(cudaMalloc(&d, streams * n * sizeof(float)));
            for (int k = 0; k < streams; k++) CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
            for (int i = 0; i < launches; i++)
                for (int k = 0; k < streams; k++) work<<<n / 256, 256, 0, s[k]>>>(d + k * n, n);
            CK(cudaGetLastError());
            for (int k = 0; k < streams; k++) { CK(cudaStreamSynchronize(s[k])); CK(cudaStreamDestroy(s[k])); }
            CK(cudaFree(d));
        });
    for (auto &th : pool) th.join();
    printf("threads_streams: %d threads x %d streams x %d launches = %d\n", threads, streams, launches,
           threads * streams * launches);
    return 0;
}
