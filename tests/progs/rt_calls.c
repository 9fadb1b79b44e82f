/* rt_calls.c: calls, a known number of times each, the runtime functions that cudart carries out through
 * driver functions libkprof also wraps (memsets, stream-ordered and managed allocation, event records and
 * waits, graph instantiation and launches, stream destruction), and the queries that may create the
 * context.  Built twice: against the fake libcudart.so.13 (progs/rt_calls) and against its static copy
 * (progs/rt_calls_static, whose runtime functions libkprof cannot see).
 * `rt_calls first-query` makes cudaStreamIsCapturing its first CUDA call, as PyTorch's allocator does, so
 * that the query creates the context. */
#include <string.h>
#include "fakeprog.h"

extern __typeof__(cudaMemsetAsync) cudaMemsetAsync_ptsz;
extern __typeof__(cudaEventRecord) cudaEventRecord_ptsz;

static void k(void) {}

int main(int argc, char **argv)
{
    const dim3 one = { 1, 1, 1 };
    enum cudaStreamCaptureStatus st;
    cudaStream_t s, cs;
    cudaEvent_t e;
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    void *d = NULL, *a = NULL, *m = NULL;
    size_t free_b = 0, total_b = 0;
    int lo = 0, hi = 0;

    if (argc > 1 && strcmp(argv[1], "first-query") == 0)
        CHECK(cudaStreamIsCapturing(NULL, &st));
    void **mod = register_module();
    register_kernel(mod, k, "_Z1kv");
    __cudaRegisterFatBinaryEnd(mod);
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreateWithPriority(&cs, cudaStreamNonBlocking, 0));
    CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    CHECK(cudaMalloc(&d, 4096));
    CHECK(cudaMemsetAsync(d, 0, 4096, s));
    CHECK(cudaMemsetAsync(d, 1, 2048, s));
    CHECK(cudaMemsetAsync_ptsz(d, 2, 1024, s));
    CHECK(cudaMemset(d, 3, 512));
    CHECK(cudaMallocAsync(&a, 1024, s));
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaMallocManaged(&m, 256, cudaMemAttachGlobal));
    CHECK(cudaEventCreate(&e));
    CHECK(cudaEventRecord(e, s));
    CHECK(cudaEventRecord(e, s));
    CHECK(cudaEventRecord_ptsz(e, s));
    CHECK(cudaStreamWaitEvent(cs, e, 0));
    CHECK(cudaStreamIsCapturing(cs, &st));
    CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
    CHECK(launch(k, one, one, cs));
    CHECK(cudaStreamEndCapture(cs, &g));
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaEventDestroy(e));
    CHECK(cudaStreamDestroy(cs));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(m));
    CHECK(cudaFree(d));
    printf("rt_calls: ok\n");
    return 0;
}
