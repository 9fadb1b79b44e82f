/* cupti_window.c: a driver-API program that records kernels with CUPTI's activity API for a while, as
 * torch.profiler does, against tests/fake's libcupti.so.13.  Mode "window" (default): idle_k launched 3
 * times on an idle stream (each waited for), then CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL enabled, 3 more,
 * disabled, 3 more.  Mode "early": the kind enabled before the first CUDA call, then 3 launches.  Mode
 * "context": per-context kernel records (cuptiActivityEnableContext) around 3 launches of the 9, and
 * MEMCPY records (kind 1) enabled throughout, which do not count.  Mode "local" (progs/cupti_local, not
 * linked against CUPTI): as "window", CUPTI switched by tests/fake's libcuptiuser.so, dlopened without
 * RTLD_GLOBAL (as Python loads libtorch), so that CUPTI is in that library's local scope only.  In
 * every mode the switch must reach the fake CUPTI (fakecupti_kind_on), whoever sees it on the way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <cuda.h>
#include "drvprog.h"

/* Weak: progs/cupti_local, built from this file for mode "local", is not linked against CUPTI at all. */
__attribute__((weak)) int cuptiActivityEnable(int kind);
__attribute__((weak)) int fakecupti_kind_on(int kind);
__attribute__((weak)) int cuptiActivityDisable(int kind);
__attribute__((weak)) int cuptiActivityEnableContext(CUcontext c, int kind);
__attribute__((weak)) int cuptiActivityDisableContext(CUcontext c, int kind);

#define KIND_MEMCPY 1
#define KIND_KERNEL 3
#define KIND_CONCURRENT_KERNEL 10


static void three(CUfunction f, CUstream s)
{
    for (int i = 0; i < 3; i++) {
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
}

static int (*user_enable)(int), (*user_disable)(int), (*user_on)(int);

/* Switches kernel records on or off as the mode says; 0 when CUPTI answered success and has it so. */
static int set(CUcontext ctx, int mode_ctx, int on)
{
    int kind = mode_ctx ? KIND_KERNEL : KIND_CONCURRENT_KERNEL;
    int r = user_enable ? (on ? user_enable : user_disable)(kind)
            : mode_ctx ? (on ? cuptiActivityEnableContext : cuptiActivityDisableContext)(ctx, kind)
                       : (on ? cuptiActivityEnable : cuptiActivityDisable)(kind);
    int is_on = user_on ? user_on(kind) : fakecupti_kind_on(kind);
    if (r != 0 || is_on != on) {
        fprintf(stderr, "cupti_window: switching kind %d %s answered %d, CUPTI has it %s\n", kind, on ? "on" : "off", r,
                is_on ? "on" : "off");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "window";
    int early = strcmp(mode, "early") == 0, per_ctx = strcmp(mode, "context") == 0;
    if (strcmp(mode, "local") == 0) {
        void *h = dlopen("libcuptiuser.so", RTLD_NOW | RTLD_LOCAL);
        if (!h || !(user_enable = (int (*)(int))dlsym(h, "cuptiuser_enable")) ||
            !(user_disable = (int (*)(int))dlsym(h, "cuptiuser_disable")) || !(user_on = (int (*)(int))dlsym(h, "cuptiuser_on"))) {
            fprintf(stderr, "cupti_window: libcuptiuser.so: %s\n", dlerror());
            return 1;
        }
    }
    if (early && set(NULL, 0, 1))
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
        if (set(ctx, per_ctx, 1))
            return 1;
        three(f, s);
        if (set(ctx, per_ctx, 0))
            return 1;
        three(f, s);
    }
    printf("cupti_window %s: ok\n", mode);
    return 0;
}
