/* cupti_window.c: a driver-API program that records kernels with CUPTI's activity API for a while, as
 * torch.profiler does, against tests/fake's libcupti.so.13.  Mode "window" (default): idle_k launched 3
 * times on an idle stream (each waited for), then CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL enabled, 3 more,
 * disabled, 3 more.  Mode "early": the kind enabled before the first CUDA call, then 3 launches.  Mode
 * "context": per-context kernel records (cuptiActivityEnableContext) around 3 launches of the 9, and
 * MEMCPY records (kind 1) enabled throughout, which do not count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>

int cuptiActivityEnable(int kind);
int cuptiActivityDisable(int kind);
int cuptiActivityEnableContext(CUcontext c, int kind);
int cuptiActivityDisableContext(CUcontext c, int kind);

#define KIND_MEMCPY 1
#define KIND_KERNEL 3
#define KIND_CONCURRENT_KERNEL 10

#define CK(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: error %d\n", __FILE__, __LINE__, #call, (int)r_);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void three(CUfunction f, CUstream s)
{
    for (int i = 0; i < 3; i++) {
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "window";
    int early = strcmp(mode, "early") == 0, per_ctx = strcmp(mode, "context") == 0;
    if (early && cuptiActivityEnable(KIND_CONCURRENT_KERNEL) != 0)
        return 1;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUstream s;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoadData(&mod, "fake module"));
    CK(cuModuleGetFunction(&f, mod, "idle_k"));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    if (early) {
        three(f, s);
    } else {
        if (per_ctx && cuptiActivityEnable(KIND_MEMCPY) != 0)
            return 1;
        three(f, s);
        if ((per_ctx ? cuptiActivityEnableContext(ctx, KIND_KERNEL) : cuptiActivityEnable(KIND_CONCURRENT_KERNEL)) != 0)
            return 1;
        three(f, s);
        if ((per_ctx ? cuptiActivityDisableContext(ctx, KIND_KERNEL) : cuptiActivityDisable(KIND_CONCURRENT_KERNEL)) != 0)
            return 1;
        three(f, s);
    }
    printf("cupti_window %s: ok\n", mode);
    return 0;
}
