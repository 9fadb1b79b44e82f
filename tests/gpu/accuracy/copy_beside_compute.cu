// copy_beside_compute: a compute stream runs 5 us kernels back to back while another stream uploads the
// next batch (128 MiB HtoD, pinned), as a training loop prefetching its data does; then the same kernels
// with no copy running.  spin<1>: the 50 launches of each round queued as the copy begins; spin<2>: 50
// launches with both streams otherwise idle.  4 rounds.  Added in the twelfth session, after
// tests/gpu/probe_beside_copy.cu found that an HtoD copy on another stream delays a kernel's start.
#include "common.cuh"

int main()
{
    Counters c(3);
    const size_t bytes = 128u << 20;
    char *h, *d;
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    cudaStream_t copy, compute;
    CK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    for (int round = 0; round < 4; round++) {
        CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy));
        for (int i = 0; i < 50; i++)
            spin<1><<<1, 32, 0, compute>>>(5000, c[1]);
        CK(cudaStreamSynchronize(compute));
        CK(cudaStreamSynchronize(copy));
        for (int i = 0; i < 50; i++)
            spin<2><<<1, 32, 0, compute>>>(5000, c[2]);
        CK(cudaStreamSynchronize(compute));
    }
    CK(cudaGetLastError());
    EXPECT(c.get(1) == 200 && c.get(2) == 200);
    printf("copy_beside_compute: ok\n");
    return 0;
}
