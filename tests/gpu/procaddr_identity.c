/* procaddr_identity.c: on a real driver, does cuGetProcAddress_v2 hand out the same addresses that dlsym
 * finds for the exported names?  libkprof's driver hooks rely on the answer (tests/gpu/run-gpu-tests.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <cuda.h>

typedef CUresult (*gpa_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { printf("no libcuda\n"); return 1; }
    gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    init(0);
    static const struct { const char *base; int version; int flags; const char *exported; } q[] = {
        { "cuLaunchKernel", 4000, 0, "cuLaunchKernel" }, { "cuLaunchKernel", 13000, 0, "cuLaunchKernel" },
        { "cuLaunchKernel", 7000, 2, "cuLaunchKernel_ptsz" }, { "cuLaunchKernel", 13000, 2, "cuLaunchKernel_ptsz" },
        { "cuLaunchKernelEx", 11060, 0, "cuLaunchKernelEx" }, { "cuLaunchKernelEx", 13000, 2, "cuLaunchKernelEx_ptsz" },
        { "cuMemAlloc", 3020, 0, "cuMemAlloc_v2" }, { "cuMemAlloc", 13000, 0, "cuMemAlloc_v2" },
        { "cuMemAlloc", 2000, 0, "cuMemAlloc" }, { "cuMemcpyHtoD", 13000, 0, "cuMemcpyHtoD_v2" },
        { "cuMemcpyHtoD", 13000, 2, "cuMemcpyHtoD_v2_ptds" }, { "cuMemcpyAsync", 13000, 2, "cuMemcpyAsync_ptsz" },
        { "cuMemsetD8Async", 13000, 0, "cuMemsetD8Async" }, { "cuMemFree", 13000, 0, "cuMemFree_v2" },
        { "cuCtxCreate", 13000, 0, "cuCtxCreate_v4" }, { "cuCtxCreate", 3020, 0, "cuCtxCreate_v2" },
        { "cuDevicePrimaryCtxRetain", 13000, 0, "cuDevicePrimaryCtxRetain" },
        { "cuGetProcAddress", 11030, 0, "cuGetProcAddress" }, { "cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2" },
        { "cuGetProcAddress", 13000, 0, "cuGetProcAddress_v2" },
        { "cuEventElapsedTime", 13000, 0, "cuEventElapsedTime_v2" }, { "cuStreamSynchronize", 13000, 2, "cuStreamSynchronize_ptsz" },
        { "cuMemcpy2D", 13000, 0, "cuMemcpy2D_v2" }, { "cuMemAllocHost", 13000, 0, "cuMemAllocHost_v2" },
        { "cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2" }, { "cuCtxSynchronize", 12000, 0, "cuCtxSynchronize" },
    };
    int same = 0, n = (int)(sizeof q / sizeof q[0]);
    for (int i = 0; i < n; i++) {
        void *p = NULL;
        CUdriverProcAddressQueryResult st;
        CUresult r = gpa(q[i].base, &p, q[i].version, (cuuint64_t)q[i].flags, &st);
        void *e = dlsym(h, q[i].exported);
        Dl_info di;
        const char *sym = (p && dladdr(p, &di) && di.dli_sname) ? di.dli_sname : "?";
        printf("%-26s v%-6d f%d -> rc %d %p (%s)  dlsym(%s) %p  %s\n", q[i].base, q[i].version, q[i].flags, (int)r, p,
               sym, q[i].exported, e, p == e ? "SAME" : "DIFFERENT");
        same += p == e;
    }
    printf("procaddr-identity: %d of %d the same\n", same, n);
    return 0;
}
