/* range.c: kernels before, inside and after a cudaProfilerStart/cudaProfilerStop range. */
#include <cuda_profiler_api.h>
#include "fakeprog.h"

static void before(void) {}
static void inside(void) {}
static void after(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, before, "_Z6beforev");
    register_kernel(m, inside, "_Z6insidev");
    register_kernel(m, after, "_Z5afterv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    for (int i = 0; i < 3; i++)
        CHECK(launch(before, one, one, 0));
    CHECK(cudaProfilerStart());
    for (int i = 0; i < 2; i++)
        CHECK(launch(inside, one, one, 0));
    CHECK(cudaProfilerStop());
    for (int i = 0; i < 4; i++)
        CHECK(launch(after, one, one, 0));
    CHECK(cudaDeviceSynchronize());
    printf("range: ok\n");
    return 0;
}
