/* errors.c: failing CUDA calls; prints every result and the last-error state so that a run under libkprof
 * can be compared line by line with a run without it. */
#include "fakeprog.h"

static void stub(void) {}

static void show(const char *what, cudaError_t r)
{
    /* peek first (does not clear), then get (clears), then get again (must be success) */
    cudaError_t peek = cudaPeekAtLastError();
    cudaError_t get = cudaGetLastError();
    cudaError_t again = cudaGetLastError();
    printf("%-28s returned %3d  peek %3d  get %3d  then %3d\n", what, (int)r, (int)peek, (int)get, (int)again);
}

int main(void)
{
    void **m = register_module();
    register_kernel(m, stub, "_Z6kernelv");
    __cudaRegisterFatBinaryEnd(m);

    void *p = NULL;
    show("cudaMalloc ok", cudaMalloc(&p, 1024));
    show("launch block 2048", launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 2048, 1, 1 }, 0));
    show("launch grid 0", launch(stub, (dim3){ 0, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    show("launch ok", launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    void *q = NULL;
    show("cudaMalloc too large", cudaMalloc(&q, (size_t)1 << 50));
    show("cudaMemcpy NULL", cudaMemcpy(NULL, p, 16, cudaMemcpyDeviceToDevice));
    show("cudaLaunchKernel unknown", cudaLaunchKernel((const void *)&show, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 },
                                                      NULL, 0, 0));
    show("cudaFree ok", cudaFree(p));
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    return 0;
}
