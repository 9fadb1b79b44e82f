// module_load: driver API only (no cudart): cuModuleLoadData of PTX and of a cubin, cuLibraryLoadData.
// The PTX is JIT-compiled at load; launches with cuLaunchKernel and cuLaunchKernelEx.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>
#include "module_kernels.ptx.h"   // module_ptx[]: module_kernels.cu as PTX, NUL-terminated (build.sh)
#include "module_kernels.cubin.h" // module_cubin[]: module_kernels.cu as an sm_90 cubin (build.sh)

#define CU(x)                                                                                              \
    do {                                                                                                   \
        CUresult r_ = (x);                                                                                 \
        if (r_ != CUDA_SUCCESS) {                                                                          \
            const char *s_ = "?";                                                                          \
            cuGetErrorString(r_, &s_);                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);                                \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

int main()
{
    CUdevice dev;
    CUcontext ctx;
    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CUstream s;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr count;
    CU(cuMemAlloc(&count, 3 * sizeof(unsigned)));
    CU(cuMemsetD32(count, 0, 3));

    CUmodule mptx, mcubin;
    CUlibrary lib;
    CUfunction fptx, fcubin, flib;
    CUkernel klib;
    CU(cuModuleLoadData(&mptx, module_ptx));
    CU(cuModuleGetFunction(&fptx, mptx, "mod_ptx_spin"));
    std::vector<unsigned long long> cubin((sizeof module_cubin + 7) / 8); // the ELF image, 8-byte aligned
    memcpy(cubin.data(), module_cubin, sizeof module_cubin);
    CU(cuModuleLoadData(&mcubin, cubin.data()));
    CU(cuModuleGetFunction(&fcubin, mcubin, "mod_cubin_spin"));
    CU(cuLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CU(cuLibraryGetKernel(&klib, lib, "mod_library_spin"));
    CU(cuKernelGetFunction(&flib, klib));

    unsigned long long ns;
    CUdeviceptr c;
    void *args[] = {&ns, &c};
    for (int i = 0; i < 12; i++) {
        ns = 15000, c = count;
        CU(cuLaunchKernel(fptx, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr));
        ns = 25000, c = count + 4;
        CUlaunchConfig cfg = {};
        cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = 32, cfg.blockDimY = cfg.blockDimZ = 1;
        cfg.hStream = s;
        CU(cuLaunchKernelEx(&cfg, fcubin, args, nullptr));
        ns = 35000, c = count + 8;
        CU(cuLaunchKernel(flib, 1, 1, 1, 32, 1, 1, 0, i % 3 ? s : nullptr, args, nullptr));
        if (i % 4 == 3)
            CU(cuStreamSynchronize(s));
    }
    CU(cuCtxSynchronize());
    unsigned got[3];
    CU(cuMemcpyDtoH(got, count, sizeof got));
    if (got[0] != 12 || got[1] != 12 || got[2] != 12) {
        fprintf(stderr, "module_load: counts %u %u %u, want 12 each\n", got[0], got[1], got[2]);
        return 1;
    }
    CU(cuModuleUnload(mptx));
    CU(cuModuleUnload(mcubin));
    CU(cuLibraryUnload(lib));
    CU(cuMemFree(count));
    CU(cuStreamDestroy(s));
    CU(cuDevicePrimaryCtxRelease(dev));
    printf("module_load: ok\n");
    return 0;
}
