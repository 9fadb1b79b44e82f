// shared_stream_threads: host threads launching on one stream that they all share, as a thread pool
// serving one CUDA stream does, or PyTorch's autograd thread on the main thread's stream (added in the
// thirty-second session: a break-it run had read a 1 us kernel at up to 1.6 ms on an H100).
// 1. 8 threads, one non-blocking stream, each launching a 200 us kernel then a 2 us one, 50 times.
// 2. 4 threads on the legacy default stream, each launching a 50 us kernel then a 5 us one, 50 times.
// A device synchronisation after each part.
#include <thread>
#include <vector>
#include "common.cuh"

template <typename F> static void on_threads(int n, F f)
{
    std::vector<std::thread> pool;
    for (int t = 0; t < n; t++)
        pool.emplace_back(f);
    for (auto &th : pool)
        th.join();
}

int main()
{
    Counters c(5);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    on_threads(8, [&] {
        for (int i = 0; i < 50; i++) {
            spin<1><<<1, 32, 0, s>>>(200000, c[1]);
            spin<2><<<1, 32, 0, s>>>(2000, c[2]);
        }
    });
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    on_threads(4, [&] {
        for (int i = 0; i < 50; i++) {
            spin<3><<<1, 32>>>(50000, c[3]);
            spin<4><<<1, 32>>>(5000, c[4]);
        }
    });
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    EXPECT(c.get(1) == 400 && c.get(2) == 400 && c.get(3) == 200 && c.get(4) == 200);
    CK(cudaStreamDestroy(s));
    printf("shared_stream_threads: ok\n");
    return 0;
}
