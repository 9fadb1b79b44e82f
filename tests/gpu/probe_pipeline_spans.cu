// probe_pipeline_spans.cu: accuracy/pipeline_8threads (8 threads, a stream each: HtoD, host function, a
// 20 us kernel, host function, DtoH, 30 rounds) whose kernel also records its own span: the first block's
// start and the last block's end on %globaltimer, per launch.  Written to argv[1] as
// start_ns<TAB>end_ns<TAB>worker<TAB>bump, the CUPTI tracer's CUPTI_TRACE_KERNELS format, so that each
// launch of a libkprof trace (KPROF_TRACE) can be matched to its truth, stream by stream in launch order
// (CUPTI's duration of this kernel is its span + 0.68 us on the H200).  docs/accuracy.md, row 32.
// Build: nvcc -O2 -gencode arch=compute_90,code=sm_90 -cudart shared -o probe_pipeline_spans probe_pipeline_spans.cu
#include <atomic>
#include <thread>
#include <vector>
#include "accuracy/common.cuh"
__global__ void bump(float *x, size_t n, unsigned long long ns, unsigned long long *span)
{
    unsigned long long t0 = globaltimer();
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] += 1.0f;
    while (globaltimer() - t0 < ns) {
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicMin(&span[0], t0);
        atomicMax(&span[1], globaltimer());
    }
}
static std::atomic<int> callbacks{0};
static void CUDART_CB host_cb(void *) { callbacks++; }
static unsigned long long *g_span;
static void worker(int w, int iters, size_t n, unsigned long long ns)
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *h, *d;
    CK(cudaMallocHost(&h, n * sizeof *h));
    CK(cudaMalloc(&d, n * sizeof *d));
    for (size_t i = 0; i < n; i++) h[i] = 0.0f;
    for (int it = 0; it < iters; it++) {
        CK(cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, s));
        CK(cudaLaunchHostFunc(s, host_cb, nullptr));
        bump<<<64, 256, 0, s>>>(d, n, ns, g_span + 2 * (w * iters + it));
        CK(cudaLaunchHostFunc(s, host_cb, nullptr));
        CK(cudaMemcpyAsync(h, d, n * sizeof *h, cudaMemcpyDeviceToHost, s));
        if (it % 10 == 9) CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaFreeHost(h)); CK(cudaFree(d)); CK(cudaStreamDestroy(s));
}
int main(int argc, char **argv)
{
    const int nt = 8, iters = 30; const size_t n = (size_t)1 << 18;
    CK(cudaMalloc(&g_span, 2 * sizeof(unsigned long long) * nt * iters));
    std::vector<unsigned long long> hs(2 * nt * iters);
    for (int i = 0; i < nt * iters; i++) { hs[2 * i] = ~0ull; hs[2 * i + 1] = 0; }
    CK(cudaMemcpy(g_span, hs.data(), hs.size() * sizeof hs[0], cudaMemcpyHostToDevice));
    std::vector<std::thread> t;
    for (int i = 0; i < nt; i++) t.emplace_back(worker, i, iters, n, 20000ull);
    for (auto &x : t) x.join();
    CK(cudaMemcpy(hs.data(), g_span, hs.size() * sizeof hs[0], cudaMemcpyDeviceToHost));
    FILE *f = fopen(argv[1], "w");
    for (int w = 0; w < nt; w++)
        for (int it = 0; it < iters; it++)
            fprintf(f, "%llu\t%llu\t%d\tbump\n", hs[2 * (w * iters + it)], hs[2 * (w * iters + it) + 1], w);
    fclose(f);
    printf("p8span: ok\n");
    return 0;
}
