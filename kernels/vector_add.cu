// vector_add.cu: c = a + b on float vectors, the simplest malloc/copy/launch/copy/free sequence.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(e_));                                  \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void vector_add(const float *a, const float *b, float *c, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f, "usage: %s [--n N] [--no-verify] [--help]\n"
               "  --n N         vector length in floats (default 4194304)\n"
               "  --no-verify   do not check the result\n", argv0);
}

int main(int argc, char **argv)
{
    size_t n = 1u << 22;
    bool verify = true;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++a], &end, 10);
            if (*end || v < 1 || v > (1ll << 32)) { fprintf(stderr, "bad --n\n"); return 2; }
            n = (size_t)v;
        } else if (!strcmp(argv[a], "--no-verify")) {
            verify = false;
        } else if (!strcmp(argv[a], "--help")) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            usage(stderr, argv[0]);
            return 2;
        }
    }

    const size_t bytes = n * sizeof(float);
    std::vector<float> a(n), b(n), c(n, 0.0f);
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.5f;
        b[i] = 1.0f + (float)(i % 7);
    }

    float *d_a, *d_b, *d_c;
    CK(cudaMalloc(&d_a, bytes));
    CK(cudaMalloc(&d_b, bytes));
    CK(cudaMalloc(&d_c, bytes));
    CK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));
    const int threads = 256;
    vector_add<<<(unsigned)((n + threads - 1) / threads), threads>>>(d_a, d_b, d_c, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));

    const char *result = "SKIPPED";
    if (verify) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += c[i] != a[i] + b[i];
        result = bad ? "FAILED" : "PASSED";
    }
    printf("vector_add: n=%zu verify=%s\n", n, result);

    CK(cudaFree(d_a));
    CK(cudaFree(d_b));
    CK(cudaFree(d_c));
    return strcmp(result, "FAILED") ? 0 : 1;
}
