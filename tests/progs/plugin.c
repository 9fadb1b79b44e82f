/* plugin.c: a plugin that links libcudart and is loaded with dlopen(RTLD_LOCAL), as Python extension
 * modules and application plugins are: its CUDA calls reach libkprof's wrappers, whose real functions
 * RTLD_NEXT cannot see. */
#include "fakeprog.h"

static void stub(void) {}

int plugin_run(void)
{
    static void **m;
    if (!m) {
        m = register_module();
        register_kernel(m, stub, "_Z12plugin_kernv");
        __cudaRegisterFatBinaryEnd(m);
    }
    void *p = NULL;
    cudaError_t r = cudaMalloc(&p, 1024);
    if (r == cudaSuccess)
        r = launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0);
    if (r == cudaSuccess)
        r = cudaFree(p);
    if (r == cudaSuccess)
        r = cudaDeviceSynchronize();
    return (int)r;
}
