// launch_apis: kernels launched through the runtime's other entry points (added in the twenty-sixth
// session): cudaLaunchKernelEx with a thread-block cluster of 2 (Hopper), cudaLaunchCooperativeKernel
// (a grid-wide sync inside), and <<<>>> with 100 KiB of dynamic shared memory (cudaFuncSetAttribute);
// each 50 times with a stream synchronisation after every launch and 50 times back to back.
#include <cooperative_groups.h>
#include "common.cuh"

namespace cg = cooperative_groups;

// Every thread busy-waits ns of %globaltimer.
__device__ void spin_for(unsigned long long ns)
{
    unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < ns) {
    }
}

__global__ void __cluster_dims__(2, 1, 1) cluster_spin(unsigned long long ns, unsigned int *count)
{
    spin_for(ns);
    cg::this_cluster().sync();
    if (count && threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(count, 1u);
}

__global__ void coop_spin(unsigned long long ns, unsigned int *count)
{
    spin_for(ns);
    cg::this_grid().sync();
    if (count && threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(count, 1u);
}

__global__ void smem_spin(unsigned long long ns, unsigned int *count)
{
    extern __shared__ unsigned char smem[];
    smem[threadIdx.x] = (unsigned char)threadIdx.x;
    spin_for(ns);
    __syncthreads();
    if (count && threadIdx.x == 0 && blockIdx.x == 0 && smem[1] == 1)
        atomicAdd(count, 1u);
}

int main()
{
    Counters c(3);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(128);
    cfg.stream = s;
    unsigned int *c0 = c[0], *c1 = c[1], *c2 = c[2];
    unsigned long long ns = 5000;
    const int smem = 100 << 10;
    CK(cudaFuncSetAttribute(smem_spin, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    for (int sync = 1; sync >= 0; sync--)
        for (int i = 0; i < 50; i++) {
            CK(cudaLaunchKernelEx(&cfg, cluster_spin, ns, c0));
            if (sync)
                CK(cudaStreamSynchronize(s));
            void *args[] = { &ns, &c1 };
            CK(cudaLaunchCooperativeKernel((void *)coop_spin, dim3(16), dim3(128), args, 0, s));
            if (sync)
                CK(cudaStreamSynchronize(s));
            smem_spin<<<4, 128, smem, s>>>(ns, c2);
            if (sync)
                CK(cudaStreamSynchronize(s));
        }
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    EXPECT(c.get(0) == 100 && c.get(1) == 100 && c.get(2) == 100);
    CK(cudaStreamDestroy(s));
    printf("launch_apis: ok\n");
    return 0;
}
