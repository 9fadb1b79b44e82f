// sync_copy_loop: the loop of CUDA's vectorAdd-style samples and of many small applications (added in the
// twenty-sixth session): each round copies its inputs to the device with cudaMemcpy from pageable memory,
// runs one memory-bound kernel (a real one, not a spin: its length is the memory system's), and copies
// the result back with cudaMemcpy; 100 rounds on the legacy default stream.  Then 100 rounds of the same
// with cudaMemcpyAsync from pinned memory on a created stream, and a stream synchronisation each round.
#include <vector>
#include "common.cuh"

__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void saxpy(float k, const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = k * x[i] + y[i];
}

int main()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    std::vector<float> a(n, 1.0f), b(n, 2.0f), out(n);
    float *da, *db, *dc;
    CK(cudaMalloc(&da, bytes));
    CK(cudaMalloc(&db, bytes));
    CK(cudaMalloc(&dc, bytes));
    for (int r = 0; r < 100; r++) {
        CK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
        vec_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
        CK(cudaMemcpy(out.data(), dc, bytes, cudaMemcpyDeviceToHost));
        EXPECT(out[r] == 3.0f && out[n - 1 - r] == 3.0f);
    }
    float *ha, *hy;
    CK(cudaMallocHost(&ha, bytes));
    CK(cudaMallocHost(&hy, bytes));
    for (int i = 0; i < n; i++)
        ha[i] = 1.0f, hy[i] = 0.0f;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int r = 0; r < 100; r++) {
        CK(cudaMemcpyAsync(da, ha, bytes, cudaMemcpyHostToDevice, s));
        CK(cudaMemcpyAsync(db, hy, bytes, cudaMemcpyHostToDevice, s));
        saxpy<<<264, 256, 0, s>>>(2.0f, da, db, n);
        CK(cudaMemcpyAsync(hy, db, bytes, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
    }
    CK(cudaGetLastError());
    EXPECT(hy[0] == 200.0f && hy[n - 1] == 200.0f);
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(ha));
    CK(cudaFreeHost(hy));
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    printf("sync_copy_loop: ok\n");
    return 0;
}
