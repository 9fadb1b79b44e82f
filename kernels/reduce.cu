// reduce.cu: shared-memory tree reduction of 10 Mi doubles, timing reduce_blocks with cudaEvents.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
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

static const size_t N = 10u << 20;  // 10,485,760 doubles
static const int THREADS = 256;     // blockDim for both kernels
static const int BLOCKS = 1024;     // fixed grid of reduce_blocks

// Sums s[0..THREADS) in shared memory; the result ends up in s[0].
__device__ void block_tree(double *s)
{
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        __syncthreads();
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
    }
}

__global__ void reduce_blocks(const double *in, double *partials, size_t n)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        acc += in[i];
    s[threadIdx.x] = acc;
    block_tree(s);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = s[0];
}

__global__ void reduce_final(const double *partials, double *out, int m)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        acc += partials[i];
    s[threadIdx.x] = acc;
    block_tree(s);
    if (threadIdx.x == 0)
        *out = s[0];
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f, "usage: %s [--iters N] [--no-verify] [--help]\n"
               "  --iters N     timed iterations (default 20)\n"
               "  --no-verify   do not check the sums against the CPU\n", argv0);
}

int main(int argc, char **argv)
{
    int iters = 20;
    bool verify = true;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--iters") && a + 1 < argc) {
            char *end;
            long v = strtol(argv[++a], &end, 10);
            if (*end || v < 1 || v > 1000000) { fprintf(stderr, "bad --iters\n"); return 2; }
            iters = (int)v;
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

    std::vector<double> h(N);
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    for (double &x : h)
        x = dist(rng);

    double *d_in, *d_partials, *d_totals;
    CK(cudaMalloc(&d_in, N * sizeof(double)));
    CK(cudaMalloc(&d_partials, BLOCKS * sizeof(double)));
    CK(cudaMalloc(&d_totals, iters * sizeof(double)));
    CK(cudaMemcpy(d_in, h.data(), N * sizeof(double), cudaMemcpyHostToDevice));

    // Warm-up (its total is overwritten by iteration 0).
    reduce_blocks<<<BLOCKS, THREADS>>>(d_in, d_partials, N);
    CK(cudaGetLastError());
    reduce_final<<<1, THREADS>>>(d_partials, d_totals, BLOCKS);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    std::vector<cudaEvent_t> start(iters), stop(iters);
    for (int i = 0; i < iters; i++) {
        CK(cudaEventCreate(&start[i]));
        CK(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < iters; i++) {
        CK(cudaEventRecord(start[i], 0));
        reduce_blocks<<<BLOCKS, THREADS>>>(d_in, d_partials, N);
        CK(cudaGetLastError());
        CK(cudaEventRecord(stop[i], 0));
        reduce_final<<<1, THREADS>>>(d_partials, d_totals + i, BLOCKS);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());

    std::vector<double> totals(iters, 0.0);
    CK(cudaMemcpy(totals.data(), d_totals, iters * sizeof(double), cudaMemcpyDeviceToHost));

    double sum_us = 0.0, min_us = 0.0;
    for (int i = 0; i < iters; i++) {
        float ms = 0.0f;
        CK(cudaEventElapsedTime(&ms, start[i], stop[i]));
        double us = ms * 1000.0;
        sum_us += us;
        if (i == 0 || us < min_us)
            min_us = us;
        CK(cudaEventDestroy(start[i]));
        CK(cudaEventDestroy(stop[i]));
    }

    printf("reduce: n=%zu blocks=%d threads=%d iters=%d\n", N, BLOCKS, THREADS, iters);
    for (int i = 0; i < iters; i++)
        printf("total %d: %.9f\n", i, totals[i]);
    printf("reduce_blocks: %d launches, average %.3f us per launch (cudaEvent)\n", iters, sum_us / iters);
    printf("reduce_blocks: minimum %.3f us per launch (cudaEvent)\n", min_us);

    int status = 0;
    if (verify) {
        long double ref = 0.0L;
        for (double x : h)
            ref += x;
        bool ok = true;
        double worst = 0.0;
        for (int i = 0; i < iters; i++) {
            double rel = std::fabs(totals[i] - (double)ref) / (double)ref;
            ok = ok && rel <= 1e-9;  // false for NaN too
            worst = std::fmax(worst, rel);
        }
        printf("reduce: verify=%s cpu=%.9f max_rel_err=%.3e\n", ok ? "PASSED" : "FAILED",
               (double)ref, worst);
        status = ok ? 0 : 1;
    } else {
        printf("reduce: verify=SKIPPED\n");
    }

    CK(cudaFree(d_in));
    CK(cudaFree(d_partials));
    CK(cudaFree(d_totals));
    return status;
}
