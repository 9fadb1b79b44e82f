// concurrent_streams: kernels of several streams running at the same time, as CUDA's concurrentKernels
// sample and multi-stream HPC codes launch them (added in the twenty-sixth session: the suite had two
// streams at once in short_back_to_back and a pipeline per thread, and no program whose streams' kernels
// wait for one another's SMs).
// 1. 8 streams, 40 rounds of a 10 us one-block kernel on each in turn: all 8 run side by side.
// 2. 4 streams, 40 rounds of a 20 us kernel that fills the GPU (2 blocks of 1024 threads per SM) on each
//    in turn: each waits for the SMs the others hold.
// 3. 8 streams, 100 rounds of a 2 us one-block kernel on each in turn, then a 1 ms kernel on stream 0
//    while the other 7 run 20 rounds of the 2 us kernel beside it.
// A device synchronisation after each part.
#include "common.cuh"

int main()
{
    Counters c(6);
    cudaStream_t s[8];
    for (auto &x : s)
        CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int i = 0; i < 40; i++)
        for (cudaStream_t st : s)
            spin<1><<<1, 32, 0, st>>>(10000, c[1]);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 4; j++)
            spin<2><<<sms * 2, 1024, 0, s[j]>>>(20000, c[2]);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 100; i++)
        for (cudaStream_t st : s)
            spin<3><<<1, 32, 0, st>>>(2000, c[3]);
    CK(cudaDeviceSynchronize());
    spin<4><<<1, 32, 0, s[0]>>>(1000000, c[4]);
    for (int i = 0; i < 20; i++)
        for (int j = 1; j < 8; j++)
            spin<5><<<1, 32, 0, s[j]>>>(2000, c[5]);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    EXPECT(c.get(1) == 320 && c.get(2) == 160 && c.get(3) == 800 && c.get(4) == 1 && c.get(5) == 140);
    for (auto x : s)
        CK(cudaStreamDestroy(x));
    printf("concurrent_streams: ok (%d SMs)\n", sms);
    return 0;
}
