/* cu12app.c: a program built against CUDA 12's runtime (the fake libcudart.so.12). Like CUDA 12 host
 * stubs and PyTorch's cu12 wheels it launches with cudaLaunchKernel(hostStub, ...).
 * Truth: _Z9cu12_axpyPf 4 launches, copy HtoD 1 1000, alloc device 1 1000. */
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>

#include "fake_private.h"

static const char fatbin_image[] = "cu12app: not really a fatbin";
static void **fatbin_handle;

static void cu12_axpy_stub(float *a) { (void)a; }

static void unregister_binary(void)
{
    __cudaUnregisterFatBinary(fatbin_handle);
}

__attribute__((constructor)) static void register_binary(void)
{
    fatbin_handle = __cudaRegisterFatBinary((void *)fatbin_image);
    __cudaRegisterFunction(fatbin_handle, (const char *)cu12_axpy_stub, (char *)"_Z9cu12_axpyPf", "_Z9cu12_axpyPf",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(fatbin_handle);
    atexit(unregister_binary);
}

#define CK(call) \
    do { \
        cudaError_t e_ = (call); \
        if (e_ != cudaSuccess) { \
            fprintf(stderr, "cu12app: %s: %s\n", #call, cudaGetErrorString(e_)); \
            return 1; \
        } \
    } while (0)

int main(void)
{
    static unsigned char host[1000];
    dim3 grid = { 2, 1, 1 }, block = { 64, 1, 1 };
    float *d = NULL;
    void *args[] = { &d };
    int v = 0;

    CK(cudaRuntimeGetVersion(&v));
    if (v != 12080) {
        fprintf(stderr, "cu12app: runtime version %d, not 12080\n", v);
        return 1;
    }
    CK(cudaMalloc((void **)&d, sizeof host));
    CK(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));
    for (int i = 0; i < 4; i++)
        CK(cudaLaunchKernel((const void *)cu12_axpy_stub, grid, block, args, 0, NULL));
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
    printf("cu12app: ok (runtime %d)\n", v);
    return 0;
}
