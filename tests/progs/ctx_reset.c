/* ctx_reset.c MODE: device 0.  A context of the program's own (cuCtxCreate) gets 1 MiB (cuMemAlloc), the
 * primary context (the runtime's) 2 MiB (cudaMalloc).  Then by MODE:
 *   "primary": cuDevicePrimaryCtxReset(0) (the own context lives on);
 *   "devreset": with the own context current, cudaDeviceReset() (resets the primary context; the own lives on).
 * Then the 1 MiB of the own context is freed (cuMemFree, succeeds), and its context destroyed.
 * Truth: device memory: 2 allocations (3 MiB), 1 free of 1 MiB; in use at exit 0.
 * With a second argument "keep", the 1 MiB is not freed and the own context not destroyed: in use at exit 1 MiB. */
#include <string.h>
#include <cuda.h>
#include "fakeprog.h"
#define DRV(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s: %d\n", #x, (int)r_); exit(1); } } while (0)
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "primary";
    void *p2;
    CHECK(cudaMalloc(&p2, 2 << 20)); /* primary context */
    CUcontext own, prim;
    DRV(cuCtxGetCurrent(&prim));
    CUdevice dev;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuCtxCreate(&own, NULL, 0, dev));
    CUdeviceptr p1;
    DRV(cuMemAlloc(&p1, 1 << 20));
    if (!strcmp(mode, "primary"))
        DRV(cuDevicePrimaryCtxReset(dev));
    else
        CHECK(cudaDeviceReset());
    CUcontext cur;
    DRV(cuCtxGetCurrent(&cur));
    printf("own context current: %d\n", cur == own);
    DRV(cuCtxSetCurrent(own));
    if (argc > 2) { /* "keep": the own context and its 1 MiB live on to exit: in use at exit 1 MiB */
        printf("kept 1 MiB in the own context\n");
        return 0;
    }
    DRV(cuMemFree(p1));
    printf("freed 1 MiB in the own context\n");
    DRV(cuCtxDestroy(own));
    return 0;
}
