/* driverapp.c: drives the driver API the way Triton's launcher does: no CUDA library linked, libcuda.so.1
 * dlopened and its entry points taken with dlsym, plus one cuLaunchKernel through cuGetProcAddress_v2.
 * Truth: triton_kernel_0 6 launches, copy HtoD 1 4096, memset 1 4096, alloc device 1 4096 (freed). */
#define _GNU_SOURCE
#include <cuda.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *drv;

static void *sym(const char *name)
{
    void *p = dlsym(drv, name);

    if (!p) {
        fprintf(stderr, "driverapp: libcuda.so.1 has no %s\n", name);
        exit(1);
    }
    return p;
}

#define CK(call) \
    do { \
        CUresult rc_ = (call); \
        if (rc_ != CUDA_SUCCESS) { \
            fprintf(stderr, "driverapp: %s: error %d\n", #call, (int)rc_); \
            return 1; \
        } \
    } while (0)

int main(void)
{
    enum { BYTES = 4096 };
    static const char image[] = "driverapp: not really a cubin";
    static unsigned char host[BYTES];
    __typeof__(cuInit) *init;
    __typeof__(cuDeviceGet) *device_get;
    __typeof__(cuDevicePrimaryCtxRetain) *primary_retain;
    __typeof__(cuCtxSetCurrent) *ctx_set_current;
    __typeof__(cuModuleLoadData) *module_load_data;
    __typeof__(cuModuleGetFunction) *module_get_function;
    __typeof__(cuMemAlloc_v2) *mem_alloc;
    __typeof__(cuMemcpyHtoD_v2) *memcpy_htod;
    __typeof__(cuMemsetD32_v2) *memset_d32;
    __typeof__(cuLaunchKernel) *launch, *launch_gpa;
    __typeof__(cuLaunchKernelEx) *launch_ex;
    __typeof__(cuStreamSynchronize) *stream_sync;
    __typeof__(cuMemFree_v2) *mem_free;
    __typeof__(cuGetProcAddress_v2) *get_proc;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr d;
    CUlaunchConfig cfg;
    void *p = NULL;
    int n = BYTES / 4;
    void *params[] = { &d, &n };

    if (!(drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "driverapp: %s\n", dlerror());
        return 1;
    }
    init = (__typeof__(init))sym("cuInit");
    device_get = (__typeof__(device_get))sym("cuDeviceGet");
    primary_retain = (__typeof__(primary_retain))sym("cuDevicePrimaryCtxRetain");
    ctx_set_current = (__typeof__(ctx_set_current))sym("cuCtxSetCurrent");
    module_load_data = (__typeof__(module_load_data))sym("cuModuleLoadData");
    module_get_function = (__typeof__(module_get_function))sym("cuModuleGetFunction");
    mem_alloc = (__typeof__(mem_alloc))sym("cuMemAlloc_v2");
    memcpy_htod = (__typeof__(memcpy_htod))sym("cuMemcpyHtoD_v2");
    memset_d32 = (__typeof__(memset_d32))sym("cuMemsetD32_v2");
    launch = (__typeof__(launch))sym("cuLaunchKernel");
    launch_ex = (__typeof__(launch_ex))sym("cuLaunchKernelEx");
    stream_sync = (__typeof__(stream_sync))sym("cuStreamSynchronize");
    mem_free = (__typeof__(mem_free))sym("cuMemFree_v2");
    get_proc = (__typeof__(get_proc))sym("cuGetProcAddress_v2");

    CK(init(0));
    CK(device_get(&dev, 0));
    CK(primary_retain(&ctx, dev));
    CK(ctx_set_current(ctx));
    CK(module_load_data(&mod, image));
    CK(module_get_function(&fn, mod, "triton_kernel_0"));
    CK(mem_alloc(&d, BYTES));
    CK(memcpy_htod(d, host, BYTES));
    CK(memset_d32(d, 0, (size_t)n));

    for (int i = 0; i < 3; i++)
        CK(launch(fn, 8, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 8;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 128;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = NULL;
    for (int i = 0; i < 2; i++)
        CK(launch_ex(&cfg, fn, params, NULL));
    CK(get_proc("cuLaunchKernel", &p, 12000, 0, NULL));
    launch_gpa = (__typeof__(launch_gpa))p;
    CK(launch_gpa(fn, 8, 1, 1, 128, 1, 1, 0, NULL, params, NULL));

    CK(stream_sync(NULL));
    CK(mem_free(d));
    printf("driverapp: ok\n");
    return 0;
}
