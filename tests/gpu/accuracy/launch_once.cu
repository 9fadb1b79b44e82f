// launch_once: ten different kernels (5 to 100 us), each launched exactly once.
// Five with a device synchronisation after each, five back to back.
#include "common.cuh"

int main()
{
    Counters c(10);
#define ONCE(T, US) spin<T><<<1, 32>>>((US) * 1000ull, c[T]);
    ONCE(0, 5) CK(cudaDeviceSynchronize());
    ONCE(1, 10) CK(cudaDeviceSynchronize());
    ONCE(2, 20) CK(cudaDeviceSynchronize());
    ONCE(3, 30) CK(cudaDeviceSynchronize());
    ONCE(4, 40) CK(cudaDeviceSynchronize());
    ONCE(5, 50) ONCE(6, 60) ONCE(7, 70) ONCE(8, 80) ONCE(9, 100)
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 10; i++)
        EXPECT(c.get(i) == 1);
    printf("launch_once: ok\n");
    return 0;
}
