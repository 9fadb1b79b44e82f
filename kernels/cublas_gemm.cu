// cublas_gemm.cu: float32 GEMMs through cuBLAS, whose kernels reach the driver through cuBLAS's own
// embedded runtime: only a dlsym/cuGetProcAddress hook sees them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CB(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)s_); exit(1); } } while (0)

int main(int argc, char **argv)
{
    int n = 1024, reps = 10, verify = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-verify")) verify = 0;
        else { printf("usage: cublas_gemm [--n N] [--reps R] [--no-verify]\n"); return strcmp(argv[i], "--help") ? 2 : 0; }
    }
    size_t elems = (size_t)n * n;
    std::vector<float> a(elems), b(elems), c(elems);
    srand(7);
    for (size_t i = 0; i < elems; i++) { a[i] = rand() / (float)RAND_MAX; b[i] = rand() / (float)RAND_MAX; }
    float *da, *db, *dc;
    CK(cudaMalloc(&da, elems * sizeof(float)));
    CK(cudaMalloc(&db, elems * sizeof(float)));
    CK(cudaMalloc(&dc, elems * sizeof(float)));
    CK(cudaMemcpy(da, a.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH)); // plain fp32: the check below is exact enough
    const float one = 1.0f, zero = 0.0f;
    for (int r = 0; r < reps; r++)
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.data(), dc, elems * sizeof(float), cudaMemcpyDeviceToHost));
    printf("cublas_gemm: n=%d reps=%d\n", n, reps);
    if (verify) {
        // column-major: C(i,j) = sum_k A(i,k) B(k,j); check a few entries
        double maxrel = 0;
        for (int t = 0; t < 16; t++) {
            int i = (t * 131) % n, j = (t * 71) % n;
            double s = 0;
            for (int k = 0; k < n; k++) s += (double)a[i + (size_t)k * n] * b[k + (size_t)j * n];
            double rel = fabs(c[i + (size_t)j * n] - s) / fabs(s);
            if (rel > maxrel) maxrel = rel;
        }
        printf("cublas_gemm: verify=%s max_rel_err=%.3e\n", maxrel < 1e-4 ? "PASSED" : "FAILED", maxrel);
        if (maxrel >= 1e-4) return 1;
    } else {
        printf("cublas_gemm: verify=SKIPPED\n");
    }
    CB(cublasDestroy(h));
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc));
    return 0;
}
