// cublas: cuBLAS SGEMM, HGEMM and strided-batched SGEMM of a few sizes, 10 calls each.
// cuBLAS and cudart linked shared.
#include <vector>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include "common.cuh"

#define CB(x)                                                                                              \
    do {                                                                                                   \
        cublasStatus_t s_ = (x);                                                                           \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                 \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_);             \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

int main()
{
    const int maxn = 4096;
    cublasHandle_t h;
    CB(cublasCreate(&h));
    float *a, *b, *c;
    __half *ha, *hb, *hc;
    CK(cudaMalloc(&a, sizeof(float) * maxn * maxn));
    CK(cudaMalloc(&b, sizeof(float) * maxn * maxn));
    CK(cudaMalloc(&c, sizeof(float) * maxn * maxn));
    CK(cudaMalloc(&ha, sizeof(__half) * maxn * maxn));
    CK(cudaMalloc(&hb, sizeof(__half) * maxn * maxn));
    CK(cudaMalloc(&hc, sizeof(__half) * maxn * maxn));
    std::vector<float> ones(maxn * maxn, 1.0f);
    std::vector<__half> hones(maxn * maxn, __float2half(1.0f));
    CK(cudaMemcpy(a, ones.data(), sizeof(float) * maxn * maxn, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, ones.data(), sizeof(float) * maxn * maxn, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ha, hones.data(), sizeof(__half) * maxn * maxn, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(hb, hones.data(), sizeof(__half) * maxn * maxn, cudaMemcpyHostToDevice));

    const float one = 1.0f, zero = 0.0f;
    const __half hone = __float2half(1.0f), hzero = __float2half(0.0f);
    for (int n : {256, 1024, 2048}) {
        for (int i = 0; i < 10; i++)
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
        float v;
        CK(cudaMemcpy(&v, c, sizeof v, cudaMemcpyDeviceToHost));
        EXPECT(v == (float)n);
    }
    for (int n : {1024, 4096}) {
        for (int i = 0; i < 10; i++)
            CB(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &hone, ha, n, hb, n, &hzero, hc, n));
        __half v;
        CK(cudaMemcpy(&v, hc, sizeof v, cudaMemcpyDeviceToHost));
        EXPECT(n != 1024 || __half2float(v) == 1024.0f);
    }
    for (int i = 0; i < 10; i++) // 64 products of 128 x 128
        CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 128, 128, 128, &one, a, 128, 128 * 128, b,
                                     128, 128 * 128, &zero, c, 128, 128 * 128, 64));
    float v;
    CK(cudaMemcpy(&v, c + 128 * 128 * 63, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(v == 128.0f);
    CB(cublasDestroy(h));
    printf("cublas: ok\n");
    return 0;
}
