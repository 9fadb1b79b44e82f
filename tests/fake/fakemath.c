/* fakemath.c: a fake math library (like cuBLAS) that carries its own embedded copy of the fake runtime.
 * fake_runtime.c is compiled into libfakemath.so with -fvisibility=hidden and libfakemath.map keeps every
 * symbol but fakemath_* local, so a preload can see this library's work only at the driver level. */
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>

#include "fake_private.h"
#include "fakemath.h"

/* ------------------------------------------------------------------ what nvcc would generate */

static const char fatbin_image[] = "fakemath: not really a fatbin";
static void **fatbin_handle;

/* Host stub of fakemath_gemm(const float *, const float *, float *, int); only its address matters. */
static void gemm_stub(const float *a, const float *b, float *c, int n)
{
    (void)a;
    (void)b;
    (void)c;
    (void)n;
}

static void unregister_binary(void)
{
    __cudaUnregisterFatBinary(fatbin_handle);
}

__attribute__((constructor)) static void register_binary(void)
{
    fatbin_handle = __cudaRegisterFatBinary((void *)fatbin_image);
    __cudaRegisterFunction(fatbin_handle, (const char *)gemm_stub, (char *)"_Z13fakemath_gemmPKfS0_Pfi",
                           "_Z13fakemath_gemmPKfS0_Pfi", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(fatbin_handle);
    atexit(unregister_binary);
}

/* The body nvcc generates for fakemath_gemm<<<grid, block>>>(a, b, c, n). */
static cudaError_t launch_gemm(dim3 grid, dim3 block, const float *a, const float *b, float *c, int n)
{
    static cudaKernel_t handle;
    void *args[] = { &a, &b, &c, &n };
    dim3 g, bl;
    size_t shmem;
    cudaStream_t s;
    cudaKernel_t k;

    if (__cudaPushCallConfiguration(grid, block, 0, NULL))
        return cudaErrorMissingConfiguration;
    if (!(k = __atomic_load_n(&handle, __ATOMIC_ACQUIRE))) {
        __cudaGetKernel(&k, (const void *)gemm_stub);
        __atomic_store_n(&handle, k, __ATOMIC_RELEASE);
    }
    if (__cudaPopCallConfiguration(&g, &bl, &shmem, &s) != cudaSuccess)
        return cudaErrorMissingConfiguration;
    return __cudaLaunchKernel(k, g, bl, args, shmem, s);
}

/* ------------------------------------------------------------------ the library's API */

__attribute__((visibility("default"))) int fakemath_gemm(int reps)
{
    enum { BYTES = 4096 };
    static float host[BYTES / sizeof(float)];
    dim3 grid = { 4, 1, 1 }, block = { 256, 1, 1 };
    float *d = NULL;
    cudaError_t e;

    if ((e = cudaMalloc((void **)&d, BYTES)) != cudaSuccess ||
        (e = cudaMemcpy(d, host, BYTES, cudaMemcpyHostToDevice)) != cudaSuccess)
        goto fail;
    for (int i = 0; i < reps; i++)
        if ((e = launch_gemm(grid, block, d, d, d, BYTES / (int)sizeof(float))) != cudaSuccess)
            goto fail;
    if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaFree(d)) != cudaSuccess)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "fakemath_gemm: %s\n", cudaGetErrorString(e));
    return (int)e;
}
