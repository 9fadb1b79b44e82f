/* nsys_tables.c: a program whose kernels, copies and memsets take known, differing times on the fake GPU
 * (FAKEGPU_KERNEL_NS lists, FAKEGPU_COPY_PS_PER_BYTE), for the CSV tables that read as nsys stats ones:
 * alpha_k launched 4 times, beta_k(int, int) twice, gamma_k once; 4 pageable HtoD copies of 1000 to 4000
 * bytes, one DtoH copy of 8000 bytes; memsets of 1000 and 3000 bytes. */
#include <string.h>
#include "fakeprog.h"

static void alpha_stub(void) {}
static void beta_stub(void) {}
static void gamma_stub(void) {}

int main(void)
{
    static char host[8000];
    void **module = register_module();
    register_kernel(module, alpha_stub, "_Z7alpha_kv");
    register_kernel(module, beta_stub, "_Z6beta_kii");
    register_kernel(module, gamma_stub, "_Z7gamma_kv");
    __cudaRegisterFatBinaryEnd(module);

    dim3 grid = { 1, 1, 1 }, block = { 32, 1, 1 };
    for (int i = 0; i < 4; i++)
        CHECK(launch(alpha_stub, grid, block, 0));
    for (int i = 0; i < 2; i++)
        CHECK(launch(beta_stub, grid, block, 0));
    CHECK(launch(gamma_stub, grid, block, 0));

    void *d = NULL;
    memset(host, 1, sizeof host);
    CHECK(cudaMalloc(&d, sizeof host));
    for (size_t bytes = 1000; bytes <= 4000; bytes += 1000)
        CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(host, d, 8000, cudaMemcpyDeviceToHost));
    CHECK(cudaMemset(d, 0, 1000));
    CHECK(cudaMemset(d, 0, 3000));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    printf("nsys_tables: ok\n");
    return 0;
}
