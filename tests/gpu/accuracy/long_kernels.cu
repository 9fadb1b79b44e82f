// long_kernels: 1 ms, 10 ms and 50 ms kernels, a few each, on an idle stream and back to back.
#include "common.cuh"

int main()
{
    Counters c(3);
    for (int i = 0; i < 4; i++) { // idle stream
        spin<0><<<1, 32>>>(1000000, c[0]);
        CK(cudaDeviceSynchronize());
        spin<1><<<1, 32>>>(10000000, c[1]);
        CK(cudaDeviceSynchronize());
    }
    for (int i = 0; i < 4; i++) { // back to back
        spin<0><<<1, 32>>>(1000000, c[0]);
        spin<1><<<1, 32>>>(10000000, c[1]);
    }
    spin<2><<<132, 256>>>(50000000, c[2]); // a full-device one
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    EXPECT(c.get(0) == 8 && c.get(1) == 8 && c.get(2) == 1);
    printf("long_kernels: ok\n");
    return 0;
}
