// first_call_is_launch: the program's very first CUDA call is a kernel launch (it creates the context).
// Built with static (first_call_is_launch) and shared cudart (first_call_is_launch_shared).
#include "common.cuh"

int main()
{
    spin<0><<<1, 32>>>(20000, nullptr); // nothing before this: no cudaMalloc, cudaFree or cudaSetDevice
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    Counters c(2);
    for (int i = 0; i < 5; i++)
        spin<1><<<1, 32>>>(20000, c[1]);
    spin<0><<<1, 32>>>(20000, c[0]);
    CK(cudaDeviceSynchronize());
    EXPECT(c.get(1) == 5 && c.get(0) == 1);
    printf("first_call_is_launch: ok\n");
    return 0;
}
