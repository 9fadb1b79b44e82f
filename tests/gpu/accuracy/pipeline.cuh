// pipeline.cuh: HtoD -> kernel -> DtoH on a stream per thread, pinned memory, host callbacks between.
// Used by pipeline_1thread and pipeline_8threads.
#pragma once
#include <atomic>
#include <thread>
#include <vector>
#include "common.cuh"

// Adds 1 to each of the n floats, then spins until ns have passed since the kernel started.
__global__ void bump(float *x, size_t n, unsigned long long ns)
{
    unsigned long long t0 = globaltimer();
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] += 1.0f;
    while (globaltimer() - t0 < ns) {
    }
}

static std::atomic<int> callbacks{0};
static void CUDART_CB host_cb(void *) { callbacks++; }

// One worker: `iters` rounds of HtoD, callback, kernel, callback, DtoH on its own stream; the data goes
// round trip, so after the last round every element is `iters`.
static void pipeline_worker(int iters, size_t n, unsigned long long ns)
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *h, *d;
    CK(cudaMallocHost(&h, n * sizeof *h));
    CK(cudaMalloc(&d, n * sizeof *d));
    for (size_t i = 0; i < n; i++)
        h[i] = 0.0f;
    for (int it = 0; it < iters; it++) {
        CK(cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, s));
        CK(cudaLaunchHostFunc(s, host_cb, nullptr));
        bump<<<64, 256, 0, s>>>(d, n, ns);
        CK(cudaLaunchHostFunc(s, host_cb, nullptr));
        CK(cudaMemcpyAsync(h, d, n * sizeof *h, cudaMemcpyDeviceToHost, s));
        if (it % 10 == 9)
            CK(cudaStreamSynchronize(s));
    }
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < n; i++)
        EXPECT(h[i] == (float)iters);
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    CK(cudaStreamDestroy(s));
}

static int run_pipeline(const char *name, int nthreads, int iters)
{
    const size_t n = (size_t)1 << 18; // 1 MiB of floats per copy
    std::vector<std::thread> t;
    if (nthreads == 1)
        pipeline_worker(iters, n, 20000); // on the main thread
    for (int i = 0; nthreads > 1 && i < nthreads; i++)
        t.emplace_back(pipeline_worker, iters, n, 20000ull);
    for (auto &x : t)
        x.join();
    EXPECT(callbacks == 2 * nthreads * iters);
    printf("%s: ok\n", name);
    return 0;
}
