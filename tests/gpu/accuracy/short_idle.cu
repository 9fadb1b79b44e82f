// short_idle: 1, 2, 3 and 5 us kernels on an idle stream, 100 launches each.
// A stream synchronisation after every launch, on a created stream and on the legacy default stream.
#include "common.cuh"

// The smallest step of %globaltimer seen over 64 steps: spin kernels last their time to within one step,
// and a profiler may change the step (so the program prints it in each run's output).
__global__ void timer_step(unsigned long long *step)
{
    unsigned long long t = globaltimer(), best = ~0ull;
    for (int i = 0; i < 64; i++) {
        unsigned long long u;
        while ((u = globaltimer()) == t) {
        }
        best = u - t < best ? u - t : best;
        t = u;
    }
    *step = best;
}

int main()
{
    Counters c(6);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 100; i++) {
        cudaStream_t st = i % 2 ? s : 0;
        spin<1><<<1, 32, 0, st>>>(1000, c[1]);
        CK(cudaStreamSynchronize(st));
        spin<2><<<1, 32, 0, st>>>(2000, c[2]);
        CK(cudaStreamSynchronize(st));
        spin<3><<<1, 32, 0, st>>>(3000, c[3]);
        CK(cudaStreamSynchronize(st));
        spin<5><<<1, 32, 0, st>>>(5000, c[5]);
        CK(cudaStreamSynchronize(st));
    }
    CK(cudaGetLastError());
    for (int t : {1, 2, 3, 5})
        EXPECT(c.get(t) == 100);
    unsigned long long *step, h;
    CK(cudaMalloc(&step, sizeof *step));
    timer_step<<<1, 1>>>(step);
    CK(cudaMemcpy(&h, step, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaStreamDestroy(s));
    printf("short_idle: ok (globaltimer step %llu ns)\n", h);
    return 0;
}
