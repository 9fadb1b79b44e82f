/* mathapp.c: launches its own kernel through the shared libcudart.so.13, then calls into libfakemath.so,
 * whose kernels go through the library's embedded (hidden) runtime.
 * Truth: _Z7app_addPf 3 launches, _Z13fakemath_gemmPKfS0_Pfi 5, copy HtoD 1 4096, alloc device 1 4096. */
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>

#include "fake_private.h"
#include "fakemath.h"

static const char fatbin_image[] = "mathapp: not really a fatbin";
static void **fatbin_handle;

static void app_add_stub(float *a) { (void)a; }

static void unregister_binary(void)
{
    __cudaUnregisterFatBinary(fatbin_handle);
}

__attribute__((constructor)) static void register_binary(void)
{
    fatbin_handle = __cudaRegisterFatBinary((void *)fatbin_image);
    __cudaRegisterFunction(fatbin_handle, (const char *)app_add_stub, (char *)"_Z7app_addPf", "_Z7app_addPf", -1,
                           NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(fatbin_handle);
    atexit(unregister_binary);
}

/* app_add<<<1, 128>>>(a), as nvcc generates it. */
static cudaError_t launch_app_add(float *a)
{
    static cudaKernel_t handle;
    dim3 grid = { 1, 1, 1 }, block = { 128, 1, 1 }, g, bl;
    void *args[] = { &a };
    size_t shmem;
    cudaStream_t s;

    if (__cudaPushCallConfiguration(grid, block, 0, NULL))
        return cudaErrorMissingConfiguration;
    if (!handle)
        __cudaGetKernel(&handle, (const void *)app_add_stub);
    if (__cudaPopCallConfiguration(&g, &bl, &shmem, &s) != cudaSuccess)
        return cudaErrorMissingConfiguration;
    return __cudaLaunchKernel(handle, g, bl, args, shmem, s);
}

int main(void)
{
    cudaError_t e;
    int rc;

    for (int i = 0; i < 3; i++)
        if ((e = launch_app_add(NULL)) != cudaSuccess) {
            fprintf(stderr, "mathapp: app_add: %s\n", cudaGetErrorString(e));
            return 1;
        }
    if ((rc = fakemath_gemm(5)) != 0) {
        fprintf(stderr, "mathapp: fakemath_gemm returned %d\n", rc);
        return 1;
    }
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) {
        fprintf(stderr, "mathapp: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
        return 1;
    }
    printf("mathapp: ok\n");
    return 0;
}
