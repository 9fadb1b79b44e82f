// probe_cupti_blocks.cu: how much CUPTI's kernel records lengthen a kernel, by grid and block size.  A
// kernel of nearly empty blocks (each thread compares one byte of 4 KiB, as XLA's redzone checker does) is
// timed by the program's own event pair behind a 100 us kernel, so that the pair holds no host latency;
// 100 launches per size, mean pair in us.  Run it plain and under the CUPTI tracer
// (CUDA_INJECTION64_PATH=tests/gpu/libkprof-cupti.so CUPTI_TRACE_KINDS=kernel): the difference is what
// the kernel records add to the kernel (docs/accuracy.md, "What CUPTI changes").
// Build: nvcc -O2 -gencode arch=compute_90,code=sm_90 -o probe_cupti_blocks probe_cupti_blocks.cu
#include <cstdio>
#include "accuracy/common.cuh"
__global__ void check(const unsigned char *p, unsigned char pat, unsigned long long n, unsigned *out)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x)
        if (p[i] != pat) atomicAdd(out, 1u);
}
int main()
{
    unsigned char *p; unsigned *out;
    CK(cudaMalloc(&p, 1 << 20)); CK(cudaMalloc(&out, 4)); CK(cudaMemset(p, 7, 1 << 20));
    cudaStream_t s; CK(cudaStreamCreate(&s));
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    unsigned grids[] = { 1024, 8192, 65536 }, blocks[] = { 128, 1024 };
    for (unsigned g : grids)
        for (unsigned bl : blocks) {
            double sum = 0; int cnt = 0;
            for (int i = 0; i < 120; i++) {
                spin<0><<<1, 32, 0, s>>>(100000ull, nullptr);
                CK(cudaEventRecord(a, s));
                check<<<g, bl, 0, s>>>(p, 7, 4096, out);
                CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
                float ms; CK(cudaEventElapsedTime(&ms, a, b));
                if (i >= 20) { sum += ms * 1e3; cnt++; }
            }
            printf("grid %6u x %4u: pair behind a kernel %.2f us\n", g, bl, sum / cnt);
        }
    return 0;
}
