// param_blocks: 2 us one-block kernels whose parameter blocks take 16, 1024, 4096, 16384 and 32000 bytes
// (CUDA 12.1's large kernel parameters), 100 launches each on an idle stream (a sync after every launch),
// 100 paced by the host (2 us of host time after each launch: the stream runs dry between kernels, as in
// eager decoding), and 60 back to back behind a 300 us kernel.  The GPU takes a launch's parameters in
// before its kernel starts, outside CUPTI's duration and inside an event pair (added in the eighteenth
// session: docs/accuracy.md, "Parameter blocks").
#include <ctime>
#include "common.cuh"

template <int B> struct Blob {
    unsigned char b[B];
};

// blob_spin<B, P>: spins ns of %globaltimer; thread 0 of block 0 counts the run in *count, adding the last
// byte of its parameters (0) so that the block is read.  P (0 idle, 1 paced, 2 back to back) only makes
// distinct kernels of each pattern.
template <int B, int P> __global__ void blob_spin(Blob<B> blob, unsigned long long ns, unsigned int *count)
{
    unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < ns) {
    }
    if (threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(count, 1u + blob.b[B - 1]);
}

static double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

template <int B, int P> static void run(cudaStream_t s, unsigned int *count, int n)
{
    static Blob<B> blob; // zeros
    for (int i = 0; i < n; i++) {
        if (P == 2 && i % 60 == 0) {
            CK(cudaStreamSynchronize(s));
            spin<0><<<1, 32, 0, s>>>(300000, nullptr);
        }
        blob_spin<B, P><<<1, 32, 0, s>>>(blob, 2000, count);
        if (P == 0)
            CK(cudaStreamSynchronize(s));
        if (P == 1)
            for (double t = now_us(); now_us() - t < 2.0;) {
            }
    }
    CK(cudaStreamSynchronize(s));
}

template <int P> static void sizes(cudaStream_t s, const Counters &c, int n)
{
    run<16, P>(s, c[0], n);
    run<1024, P>(s, c[1], n);
    run<4096, P>(s, c[2], n);
    run<16384, P>(s, c[3], n);
    run<32000, P>(s, c[4], n);
}

int main()
{
    Counters c(5);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sizes<0>(s, c, 100);
    sizes<1>(s, c, 100);
    sizes<2>(s, c, 60);
    CK(cudaGetLastError());
    for (int i = 0; i < 5; i++)
        EXPECT(c.get(i) == 260);
    CK(cudaStreamDestroy(s));
    printf("param_blocks: ok\n");
    return 0;
}
