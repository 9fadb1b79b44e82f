/* multigpu (FAKEGPU_DEVICES=2): launches dev0 3 times on a device-0 stream and dev1 twice on a device-1 stream;
 * a launch and an async copy on the device-0 stream while device 1 is current must fail with
 * cudaErrorInvalidResourceHandle and run nothing. Truth: dev0 3, dev1 2, one HtoD copy of 4096 bytes (on
 * device 1), device allocations 2 x 4096. */
#include <string.h>
#include "robustprog.h"

static void dev0(void) {}
static void dev1(void) {}

int main(void)
{
    void **m = register_module();
    cudaStream_t s0, s1;
    static char host[4096];
    void *d0, *d1;
    int n = 0, d = -1;

    register_kernel(m, dev0, "_Z4dev0v");
    register_kernel(m, dev1, "_Z4dev1v");
    __cudaRegisterFatBinaryEnd(m);

    CHECK(cudaGetDeviceCount(&n));
    if (n < 2) {
        fprintf(stderr, "multigpu: needs 2 devices (FAKEGPU_DEVICES=2), found %d\n", n);
        return 1;
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreate(&s0));
    CHECK(cudaMalloc(&d0, sizeof host));
    for (int i = 0; i < 3; i++)
        CHECK(launch(dev0, s0));

    CHECK(cudaSetDevice(1));
    CHECK(cudaGetDevice(&d));
    ASSERT(d == 1);
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaMalloc(&d1, sizeof host));
    for (int i = 0; i < 2; i++)
        CHECK(launch(dev1, s1));
    EXPECT(launch(dev1, s0), cudaErrorInvalidResourceHandle);
    EXPECT(cudaMemcpyAsync(d1, host, sizeof host, cudaMemcpyHostToDevice, s0), cudaErrorInvalidResourceHandle);
    CHECK(cudaMemcpyAsync(d1, host, sizeof host, cudaMemcpyHostToDevice, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFree(d1));

    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamSynchronize(s0));
    CHECK(cudaStreamDestroy(s0));
    CHECK(cudaFree(d0));
    printf("multigpu: 3 launches on device 0, 2 on device 1, cross-device launch refused\n");
    return 0;
}
