/* zero_bytes.c: one 4 KiB copy and one 4 KiB memset, then three rounds of zero-byte copies (HtoD, DtoH,
 * async HtoD) and memsets (sync, async), which the runtime answers with success without any work, and a
 * kernel launched after each round.  Made: 1 copy, 1 memset, 3 launches. */
#include "fakeprog.h"

static void k(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, k, "_Z10zero_afterv");
    __cudaRegisterFatBinaryEnd(m);
    void *d;
    static char h[4096];
    CHECK(cudaMalloc(&d, 4096));
    CHECK(cudaMemcpy(d, h, 4096, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d, 0, 4096));
    for (int i = 0; i < 3; i++) {
        CHECK(cudaMemcpy(d, h, 0, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(h, d, 0, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpyAsync(d, h, 0, cudaMemcpyHostToDevice, 0));
        CHECK(cudaMemset(d, 0, 0));
        CHECK(cudaMemsetAsync(d, 0, 0, 0));
        CHECK(launch(k, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    return 0;
}
