/* fake_private.h: prototypes of libcudart exports that the CUDA headers declare only for C++ or not at all. */
#ifndef FAKE_PRIVATE_H
#define FAKE_PRIVATE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registration entry points called from nvcc's generated constructors; copied from crt/host_runtime.h
 * (there they are extern "C" inside C++ only). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);

/* Launch path of a <<<>>> call; copied from crt/device_functions.h (C++ only there; the default
 * arguments of __cudaPushCallConfiguration are dropped). */
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);

/* Per-thread default stream twins: cuda_runtime_api.h declares them only when the includer asks for
 * per-thread default streams, and then hides the plain names, so take their types from the plain ones. */
__typeof__(cudaLaunchKernel) cudaLaunchKernel_ptsz;
__typeof__(cudaLaunchKernelExC) cudaLaunchKernelExC_ptsz;
__typeof__(cudaLaunchCooperativeKernel) cudaLaunchCooperativeKernel_ptsz;
__typeof__(cudaMallocAsync) cudaMallocAsync_ptsz;
__typeof__(cudaFreeAsync) cudaFreeAsync_ptsz;
__typeof__(cudaMemcpy) cudaMemcpy_ptds;
__typeof__(cudaMemcpyAsync) cudaMemcpyAsync_ptsz;
__typeof__(cudaMemset) cudaMemset_ptds;
__typeof__(cudaMemsetAsync) cudaMemsetAsync_ptsz;
__typeof__(cudaMemcpyToSymbol) cudaMemcpyToSymbol_ptds;
__typeof__(cudaMemcpyFromSymbol) cudaMemcpyFromSymbol_ptds;
__typeof__(cudaEventRecord) cudaEventRecord_ptsz;
__typeof__(cudaEventRecordWithFlags) cudaEventRecordWithFlags_ptsz;
__typeof__(cudaStreamSynchronize) cudaStreamSynchronize_ptsz;
__typeof__(cudaStreamQuery) cudaStreamQuery_ptsz;
__typeof__(cudaStreamIsCapturing) cudaStreamIsCapturing_ptsz;
__typeof__(cudaStreamBeginCapture) cudaStreamBeginCapture_ptsz;
__typeof__(cudaStreamEndCapture) cudaStreamEndCapture_ptsz;
__typeof__(cudaStreamGetCaptureInfo) cudaStreamGetCaptureInfo_ptsz;
__typeof__(cudaGraphLaunch) cudaGraphLaunch_ptsz;
/* Spelled out because taking __typeof__ of the deprecated cudaGetDriverEntryPoint warns. */
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus);
__typeof__(cudaGetDriverEntryPointByVersion) cudaGetDriverEntryPointByVersion_ptsz;

#ifdef __cplusplus
}
#endif

#endif /* FAKE_PRIVATE_H */
