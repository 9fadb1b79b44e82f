/* cudart_private.h: prototypes of libcudart's compiler-facing entry points, which no C header declares. */
#ifndef KPROF_CUDART_PRIVATE_H
#define KPROF_CUDART_PRIVATE_H

#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>

/* From crt/host_runtime.h (CUDA 13.0): called once per kernel by the program's module constructor.
 * hostFun is the host stub's address, deviceName the mangled device name (plain for extern "C"). */
extern void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                             const char *deviceName, int thread_limit, uint3 *tid,
                                             uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);

/* From crt/device_functions.h (CUDA 13.0): a <<<>>> host stub looks its kernel up once with
 * __cudaGetKernel, then launches it with __cudaLaunchKernel (or _ptsz under per-thread default stream). */
extern cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
extern cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem, cudaStream_t stream);

#endif
