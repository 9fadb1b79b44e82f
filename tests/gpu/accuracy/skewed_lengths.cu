// skewed_lengths: kernels of one launch shape whose lengths are skewed (most launches short, a few far
// longer), as a kernel whose work follows its data runs: 1 us with 40 us every 16th launch (400 launches)
// and 2 us with 10 us every 7th (280), each launch followed by a stream sync (idle stream); then 1 or 6 us
// at random (a fixed seed, 1 in 4 long; 400 launches) back to back in runs of 8 between syncs.  A sample
// of launches measured in full catches the long ones more or less often than their share: read from it
// alone, the total follows the sample (added in the forty-fourth session: docs/accuracy.md, "Skewed
// lengths").
#include "common.cuh"

int main()
{
    Counters c(4);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 400; i++) {
        spin<1><<<1, 32, 0, s>>>(i % 16 == 15 ? 40000 : 1000, c[1]);
        CK(cudaStreamSynchronize(s));
    }
    for (int i = 0; i < 280; i++) {
        spin<2><<<2, 64, 0, s>>>(i % 7 == 6 ? 10000 : 2000, c[2]);
        CK(cudaStreamSynchronize(s));
    }
    unsigned x = 12345;
    for (int i = 0; i < 400; i++) {
        x = x * 1103515245u + 12345u;
        spin<3><<<4, 32, 0, s>>>((x >> 16) % 4 == 0 ? 6000 : 1000, c[3]);
        if (i % 8 == 7)
            CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    EXPECT(c.get(1) == 400);
    EXPECT(c.get(2) == 280);
    EXPECT(c.get(3) == 400);
    CK(cudaStreamDestroy(s));
    printf("skewed_lengths: ok\n");
    return 0;
}
