// first_launch: first launches of lazily loaded kernels, from the main thread and from worker threads.
// Each kernel runs 1 to 8 times; two threads race to be the first to launch the same kernel.
#include <thread>
#include <vector>
#include "common.cuh"

// Launches spin<TAG> n times on stream s (0: the legacy default stream), each 10 us x TAG long.
template <int TAG> void launch(int n, cudaStream_t s, const Counters &c)
{
    for (int i = 0; i < n; i++)
        spin<TAG><<<1, 32, 0, s>>>(10000ull * TAG, c[TAG]);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
}

int main()
{
    Counters c(9);
    launch<1>(1, 0, c);
    launch<2>(2, 0, c);
    launch<3>(3, 0, c);
    std::vector<std::thread> t;
    t.emplace_back([&] { launch<4>(4, 0, c); });
    t.emplace_back([&] {
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        launch<5>(5, s, c);
        CK(cudaStreamDestroy(s));
    });
    t.emplace_back([&] { launch<6>(6, cudaStreamPerThread, c); });
    for (int k = 0; k < 2; k++) // two threads racing for spin<7>'s first launch: 4 launches each
        t.emplace_back([&] {
            cudaStream_t s;
            CK(cudaStreamCreate(&s));
            launch<7>(4, s, c);
            CK(cudaStreamDestroy(s));
        });
    for (auto &x : t)
        x.join();
    launch<8>(7, 0, c);
    CK(cudaDeviceSynchronize());
    const unsigned want[9] = {0, 1, 2, 3, 4, 5, 6, 8, 7};
    for (int i = 1; i < 9; i++)
        EXPECT(c.get(i) == want[i]);
    printf("first_launch: ok\n");
    return 0;
}
