// probe_beside_copy.cu: what another stream's work does to a kernel's start.  A 20 us one-block kernel on
// stream B runs behind a 50 us kernel that stamps its end; meanwhile another stream runs nothing, an HtoD,
// DtoH or DtoD copy, 64 HtoD copies of 1 MiB, or a memset.  pre = the kernel's start less its
// predecessor's end (%globaltimer), post = the event pair less the kernel's span less pre; medians over
// 100 launches per situation (us).  docs/accuracy.md, "An HtoD copy beside".
// Build: nvcc -O2 -gencode arch=compute_90,code=sm_90 -o probe_beside_copy probe_beside_copy.cu; run plain.
#include <algorithm>
#include <cstdio>
#include <vector>
#include "accuracy/common.cuh"
__global__ void sspin(unsigned long long ns, unsigned long long *out)
{
    unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < ns) {
    }
    if (out && threadIdx.x == 0 && blockIdx.x == 0) { out[0] = t0; out[1] = globaltimer(); }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main()
{
    cudaStream_t b, o[2];
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    for (auto &s : o) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long *d; CK(cudaMalloc(&d, 64)); unsigned long long h[4];
    char *hp, *dp; size_t big = 256 << 20; CK(cudaMallocHost(&hp, big)); CK(cudaMalloc(&dp, big));
    cudaEvent_t e1, e2; CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2));
    const char *sit[] = { "idle GPU", "HtoD 256 MiB beside", "DtoH 256 MiB beside", "HtoD 1 MiB x 64 beside", "DtoD 256 MiB beside", "memset 256 MiB beside" };
    for (int si = 0; si < 6; si++) {
        std::vector<double> pre, post, ps;
        for (int r = 0; r < 110; r++) {
            CK(cudaDeviceSynchronize());
            if (si == 1) CK(cudaMemcpyAsync(dp, hp, big, cudaMemcpyHostToDevice, o[0]));
            if (si == 2) CK(cudaMemcpyAsync(hp, dp, big, cudaMemcpyDeviceToHost, o[0]));
            if (si == 3) for (int k = 0; k < 64; k++) CK(cudaMemcpyAsync(dp + (k << 20), hp + (k << 20), 1 << 20, cudaMemcpyHostToDevice, o[0]));
            if (si == 4) CK(cudaMemcpyAsync(dp, dp + (128 << 20), 128 << 20, cudaMemcpyDeviceToDevice, o[0]));
            if (si == 5) CK(cudaMemsetAsync(dp, 1, big, o[0]));
            sspin<<<1, 32, 0, b>>>(50000ull, d + 2);
            CK(cudaEventRecord(e1, b));
            sspin<<<1, 32, 0, b>>>(20000ull, d);
            CK(cudaEventRecord(e2, b));
            CK(cudaStreamSynchronize(b));
            float ms; CK(cudaEventElapsedTime(&ms, e1, e2));
            CK(cudaMemcpy(h, d, 32, cudaMemcpyDeviceToHost));
            if (r < 10) continue;
            double span = (h[1] - h[0]) / 1e3, p = (h[0] - h[3]) / 1e3;
            ps.push_back(ms * 1e3 - span); pre.push_back(p); post.push_back(ms * 1e3 - span - p);
        }
        printf("%-26s pair-span %5.2f  pre (pred end -> start) %5.2f  post %5.2f\n", sit[si], med(ps), med(pre), med(post));
    }
    return 0;
}
