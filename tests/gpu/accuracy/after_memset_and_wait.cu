// after_memset_and_wait: kernels right after memsets, after a wait on another stream's event, after an event record.
// Memsets: cudaMemsetAsync and cudaMemset2DAsync on the kernel's stream, cudaMemset on the legacy stream.
#include "common.cuh"

// Checks that the n bytes at d all equal v (counting mismatches in *bad), then spins ns from its start.
template <int TAG>
__global__ void check_fill(const unsigned char *d, size_t n, unsigned char v, unsigned *bad, unsigned long long ns)
{
    unsigned long long t0 = globaltimer();
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (d[i] != v)
            atomicAdd(bad, 1u);
    while (globaltimer() - t0 < ns) {
    }
}

int main()
{
    const size_t n = 1 << 20;
    unsigned char *d;
    Counters bad(1), c(4);
    CK(cudaMalloc(&d, n));
    cudaStream_t a, b;
    CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t ev, own;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    CK(cudaEventCreate(&own));
    for (int i = 0; i < 30; i++) { // after an async memset on the same stream
        CK(cudaMemsetAsync(d, i, n, a));
        check_fill<0><<<64, 256, 0, a>>>(d, n, (unsigned char)i, bad[0], 10000);
    }
    for (int i = 0; i < 10; i++) { // after a 2D memset (1024 rows of 1 KiB)
        CK(cudaMemset2DAsync(d, 1024, 100 + i, 1024, 1024, a));
        check_fill<1><<<64, 256, 0, a>>>(d, n, (unsigned char)(100 + i), bad[0], 10000);
    }
    for (int i = 0; i < 30; i++) { // after waiting on another stream's 30 us kernel
        spin<2><<<1, 32, 0, b>>>(30000, c[2]);
        CK(cudaEventRecord(ev, b));
        CK(cudaStreamWaitEvent(a, ev, 0));
        spin<3><<<1, 32, 0, a>>>(10000, c[3]);
    }
    CK(cudaStreamSynchronize(a));
    for (int i = 0; i < 20; i++) { // after a synchronous memset, on the legacy default stream
        CK(cudaMemset(d, 200 + i, n));
        check_fill<4><<<64, 256>>>(d, n, (unsigned char)(200 + i), bad[0], 8000);
    }
    for (int i = 0; i < 20; i++) { // after the program's own event record
        CK(cudaEventRecord(own, a));
        spin<5><<<1, 32, 0, a>>>(7000, c[1]);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    EXPECT(bad.get(0) == 0 && c.get(2) == 30 && c.get(3) == 30 && c.get(1) == 20);
    printf("after_memset_and_wait: ok\n");
    return 0;
}
