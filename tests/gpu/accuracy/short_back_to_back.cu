// short_back_to_back: 1, 2, 3 and 5 us kernels launched back to back, 250 launches each.
// Round robin on one stream behind a 2 ms kernel that lets the queue fill, then on two streams at once.
#include "common.cuh"

int main()
{
    Counters c(7);
    cudaStream_t s[2];
    for (auto &x : s)
        CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    spin<0><<<1, 32, 0, s[0]>>>(2000000, c[0]);
    for (int i = 0; i < 150; i++) {
        spin<1><<<1, 32, 0, s[0]>>>(1000, c[1]);
        spin<2><<<1, 32, 0, s[0]>>>(2000, c[2]);
        spin<3><<<1, 32, 0, s[0]>>>(3000, c[3]);
        spin<5><<<1, 32, 0, s[0]>>>(5000, c[5]);
    }
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 50; i++) // two streams at once: kernels of the two overlap on the GPU
        for (cudaStream_t st : s) {
            spin<1><<<1, 32, 0, st>>>(1000, c[1]);
            spin<2><<<1, 32, 0, st>>>(2000, c[2]);
            spin<3><<<1, 32, 0, st>>>(3000, c[3]);
            spin<5><<<1, 32, 0, st>>>(5000, c[5]);
        }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    EXPECT(c.get(0) == 1);
    for (int t : {1, 2, 3, 5})
        EXPECT(c.get(t) == 250);
    for (auto x : s)
        CK(cudaStreamDestroy(x));
    printf("short_back_to_back: ok\n");
    return 0;
}
