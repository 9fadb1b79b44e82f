/* resetapp: launches `before` 5 times on a stream, calls cudaDeviceReset without synchronizing, then launches
 * `after` 3 times in the fresh primary context. Truth: before 5, after 3. It checks that the old stream and
 * event answer cudaErrorContextIsDestroyed and prints whether the context handle changed (it does, unless
 * FAKEGPU_REUSE_CTX_HANDLE=1).  Memory: 16 MiB of device memory and 1 MiB pinned allocated before the
 * reset and never freed (the reset frees them), 16 MiB of device memory allocated after it and freed. */
#include <cuda.h>
#include "robustprog.h"

static void before(void) {}
static void after(void) {}

static CUcontext current_ctx(void)
{
    CUresult (*get)(CUcontext *) = NULL;
    enum cudaDriverEntryPointQueryResult q;
    CUcontext c = NULL;

    CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get, 4000, cudaEnableDefault, &q));
    ASSERT(get && q == cudaDriverEntryPointSuccess);
    ASSERT(get(&c) == CUDA_SUCCESS);
    return c;
}

int main(void)
{
    void **m = register_module();
    cudaStream_t s;
    cudaEvent_t e;
    CUcontext c0, c1;
    void *d0, *h0, *d1;

    register_kernel(m, before, "_Z6beforev");
    register_kernel(m, after, "_Z5afterv");
    __cudaRegisterFatBinaryEnd(m);

    CHECK(cudaStreamCreate(&s));
    CHECK(cudaEventCreate(&e));
    CHECK(cudaMalloc(&d0, 16 << 20));
    CHECK(cudaMallocHost(&h0, 1 << 20));
    c0 = current_ctx();
    for (int i = 0; i < 5; i++)
        CHECK(launch(before, s));
    CHECK(cudaEventRecord(e, s));
    CHECK(cudaDeviceReset()); /* no synchronization first */
    printf("resetapp: reset with 5 launches in flight\n");

    CHECK(cudaMalloc(&d1, 16 << 20));
    for (int i = 0; i < 3; i++)
        CHECK(launch(after, NULL));
    c1 = current_ctx();
    ASSERT(c1 != NULL);
    printf("resetapp: context handle %s\n", c0 == c1 ? "reused" : "new");
    EXPECT(cudaStreamQuery(s), cudaErrorContextIsDestroyed);
    EXPECT(cudaEventQuery(e), cudaErrorContextIsDestroyed);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d1));
    printf("resetapp: 3 launches after the reset\n");
    return 0;
}
