/* graphapp: captures 3 launches of graph_k1 and 2 of graph_k2 on a stream (global mode), instantiates the
 * graph, replays it 10 times and launches `direct` 4 times. Truth: graph_k1 30, graph_k2 20, direct 4 (the
 * captured launches themselves run nothing).
 * `graphapp rules` instead checks the capture rules of the fake (unsafe calls from other threads, capture
 * modes, the legacy stream, event-record nodes, child graph nodes). Truth: direct 1, graph_k1 2, graph_k2 3,
 * 2 device allocations of 256 bytes.
 * `graphapp v1` does what the default does, but begins the capture through the driver's first
 * cuStreamBeginCapture (CUDA 10.0, no mode: global), which old libraries still ask cuGetProcAddress for.
 * `graphapp mixed` does what the default does, then launches graph_k1 once directly (truth: graph_k1 31). */
#include <pthread.h>
#include <string.h>
#include <cuda.h>
#include "robustprog.h"

static void graph_k1(void) {}
static void graph_k2(void) {}
static void direct(void) {}

static void setup(void)
{
    void **m = register_module();
    register_kernel(m, graph_k1, "_Z8graph_k1v");
    register_kernel(m, graph_k2, "_Z8graph_k2v");
    register_kernel(m, direct, "_Z6directv");
    __cudaRegisterFatBinaryEnd(m);
}

static enum cudaStreamCaptureStatus status_of(cudaStream_t s)
{
    enum cudaStreamCaptureStatus st = (enum cudaStreamCaptureStatus)-1;
    CHECK(cudaStreamIsCapturing(s, &st));
    return st;
}

static int v1_begin, mixed;

static cudaError_t begin_capture(cudaStream_t s)
{
    if (!v1_begin)
        return cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    CUresult (*begin)(CUstream) = NULL;
    enum cudaDriverEntryPointQueryResult q;
    cudaError_t r = cudaGetDriverEntryPointByVersion("cuStreamBeginCapture", (void **)&begin, 10000,
                                                     cudaEnableDefault, &q);
    if (r != cudaSuccess || !begin)
        return r != cudaSuccess ? r : cudaErrorSymbolNotFound;
    return begin((CUstream)s) == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

static int basic(void)
{
    cudaStream_t s;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    size_t n = 0;

    CHECK(cudaStreamCreate(&s));
    ASSERT(status_of(s) == cudaStreamCaptureStatusNone);
    CHECK(begin_capture(s));
    ASSERT(status_of(s) == cudaStreamCaptureStatusActive);
    CHECK(cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL, NULL));
    ASSERT(st == cudaStreamCaptureStatusActive && id != 0);
    printf("capture: active, id %llu\n", id);
    for (int i = 0; i < 3; i++)
        CHECK(launch(graph_k1, s));
    for (int i = 0; i < 2; i++)
        CHECK(launch(graph_k2, s));
    CHECK(cudaStreamEndCapture(s, &graph));
    ASSERT(graph != NULL);
    ASSERT(status_of(s) == cudaStreamCaptureStatusNone);
    CHECK(cudaGraphGetNodes(graph, NULL, &n));
    ASSERT(n == 5);
    printf("capture: ended, %zu nodes\n", n);
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 10; i++)
        CHECK(cudaGraphLaunch(exec, s));
    for (int i = 0; i < 4; i++)
        CHECK(launch(direct, s));
    if (mixed)
        CHECK(launch(graph_k1, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s));
    printf("graphapp: 10 replays of 5 kernels, 4 direct launches\n");
    return 0;
}

/* ---- rules */

struct job {
    enum cudaStreamCaptureMode mode; /* the helper thread's capture mode */
    cudaError_t malloc_result;
};

static void *other_thread(void *arg)
{
    struct job *j = arg;
    enum cudaStreamCaptureMode m = j->mode;
    void *p = NULL;

    CHECK(cudaThreadExchangeStreamCaptureMode(&m));
    j->malloc_result = cudaMalloc(&p, 256);
    if (p)
        CHECK(cudaFree(p));
    cudaGetLastError();
    m = cudaStreamCaptureModeGlobal;
    CHECK(cudaThreadExchangeStreamCaptureMode(&m));
    return NULL;
}

static cudaError_t malloc_in_thread(enum cudaStreamCaptureMode mode)
{
    struct job j = { mode, cudaSuccess };
    pthread_t t;

    pthread_create(&t, NULL, other_thread, &j);
    pthread_join(t, NULL);
    return j.malloc_result;
}

/* Begins a capture in mode, lets fn act, and returns what cudaStreamEndCapture says. */
static cudaError_t end_of(cudaStream_t s, cudaGraph_t *g)
{
    *g = NULL;
    return cudaStreamEndCapture(s, g);
}

static int rules(void)
{
    cudaStream_t s, nb;
    cudaGraph_t g;
    cudaGraphExec_t x;
    cudaEvent_t e0, e1;
    cudaGraphNode_t nodes[8];
    enum cudaGraphNodeType type;
    size_t n;
    float ms = 0;
    void *p = NULL;

    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));

    /* 1. global capture: another thread in global mode may not cudaMalloc; the capture is invalidated */
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(launch(graph_k1, s));
    EXPECT(malloc_in_thread(cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    ASSERT(status_of(s) == cudaStreamCaptureStatusInvalidated);
    EXPECT(launch(graph_k1, s), cudaErrorStreamCaptureInvalidated);
    EXPECT(end_of(s, &g), cudaErrorStreamCaptureInvalidated);
    ASSERT(g == NULL && status_of(s) == cudaStreamCaptureStatusNone);
    printf("rules: global capture, other thread's cudaMalloc invalidates it\n");

    /* 2. the same thread in relaxed mode may */
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(malloc_in_thread(cudaStreamCaptureModeRelaxed));
    ASSERT(status_of(s) == cudaStreamCaptureStatusActive);
    CHECK(end_of(s, &g));
    CHECK(cudaGraphDestroy(g));
    printf("rules: relaxed thread may cudaMalloc during a global capture\n");

    /* 3. thread-local capture: other threads are free, the capturing thread is not */
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(malloc_in_thread(cudaStreamCaptureModeGlobal));
    ASSERT(status_of(s) == cudaStreamCaptureStatusActive);
    EXPECT(cudaMalloc(&p, 256), cudaErrorStreamCaptureUnsupported);
    ASSERT(status_of(s) == cudaStreamCaptureStatusInvalidated);
    EXPECT(end_of(s, &g), cudaErrorStreamCaptureInvalidated);
    printf("rules: thread-local capture forbids only the capturing thread\n");

    /* 4. synchronizing the capturing stream, querying an event */
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT(cudaEventQuery(e0), cudaErrorStreamCaptureUnsupported);
    EXPECT(end_of(s, &g), cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    EXPECT(end_of(s, &g), cudaErrorStreamCaptureInvalidated);
    printf("rules: cudaEventQuery and cudaStreamSynchronize invalidate\n");

    /* 5. the legacy stream while a blocking stream captures; a non-blocking one does not count */
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT(launch(direct, NULL), cudaErrorStreamCaptureImplicit);
    EXPECT(end_of(s, &g), cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    CHECK(launch(direct, NULL));
    CHECK(end_of(nb, &g));
    CHECK(cudaGraphDestroy(g));
    printf("rules: legacy stream use invalidates a blocking stream's capture\n");

    /* 6. event records become nodes; a replay stamps them on the virtual clock */
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(e0, s));
    CHECK(launch(graph_k1, s));
    CHECK(launch(graph_k2, s));
    CHECK(cudaEventRecord(e1, s));
    CHECK(end_of(s, &g));
    n = 8;
    CHECK(cudaGraphGetNodes(g, nodes, &n));
    ASSERT(n == 4);
    CHECK(cudaGraphNodeGetType(nodes[0], &type));
    ASSERT(type == cudaGraphNodeTypeEventRecord);
    CHECK(cudaGraphNodeGetType(nodes[1], &type));
    ASSERT(type == cudaGraphNodeTypeKernel);
    CHECK(cudaGraphInstantiateWithFlags(&x, g, 0));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    printf("rules: replayed graph's events are %.6f ms apart\n", ms);
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));

    /* 7. a graph built by hand */
    {
        struct cudaKernelNodeParams kp;
        cudaGraphNode_t a, b;

        memset(&kp, 0, sizeof kp);
        kp.func = (void *)graph_k2;
        kp.gridDim = (dim3){ 1, 1, 1 };
        kp.blockDim = (dim3){ 32, 1, 1 };
        CHECK(cudaGraphCreate(&g, 0));
        CHECK(cudaGraphAddKernelNode(&a, g, NULL, 0, &kp));
        CHECK(cudaGraphAddKernelNode(&b, g, &a, 1, &kp));
        CHECK(cudaGraphInstantiate(&x, g, 0));
        CHECK(cudaGraphLaunch(x, s));
        CHECK(cudaGraphExecDestroy(x));
        CHECK(cudaGraphDestroy(g));
    }
    /* 8. a graph launched into a capture becomes a child graph node; the driver's view of its kernel */
    {
        CUresult (*child_of)(CUgraphNode, CUgraph *) = NULL;
        CUresult (*params_of)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS *) = NULL;
        CUresult (*name_of)(const char **, CUfunction) = NULL;
        enum cudaDriverEntryPointQueryResult q;
        CUDA_KERNEL_NODE_PARAMS kp;
        cudaGraph_t inner, outer;
        CUgraph child;
        cudaGraphExec_t xi, xo;
        const char *name = NULL;

        CHECK(cudaGetDriverEntryPointByVersion("cuGraphChildGraphNodeGetGraph", (void **)&child_of, 10000, 0, &q));
        CHECK(cudaGetDriverEntryPointByVersion("cuGraphKernelNodeGetParams", (void **)&params_of, 12000, 0, &q));
        CHECK(cudaGetDriverEntryPointByVersion("cuFuncGetName", (void **)&name_of, 12030, 0, &q));
        ASSERT(child_of && params_of && name_of);
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        CHECK(launch(graph_k1, s));
        CHECK(end_of(s, &inner));
        CHECK(cudaGraphInstantiate(&xi, inner, 0));
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
        CHECK(cudaGraphLaunch(xi, s));
        CHECK(end_of(s, &outer));
        n = 8;
        CHECK(cudaGraphGetNodes(outer, nodes, &n));
        CHECK(cudaGraphNodeGetType(nodes[0], &type));
        ASSERT(n == 1 && type == cudaGraphNodeTypeGraph);
        ASSERT(child_of((CUgraphNode)nodes[0], &child) == CUDA_SUCCESS);
        n = 8;
        CHECK(cudaGraphGetNodes((cudaGraph_t)child, nodes, &n));
        ASSERT(n == 1);
        ASSERT(params_of((CUgraphNode)nodes[0], &kp) == CUDA_SUCCESS);
        ASSERT(kp.gridDimX == 64 && kp.blockDimX == 128 && kp.gridDimY == 1 && kp.blockDimZ == 1);
        ASSERT(name_of(&name, kp.func) == CUDA_SUCCESS && name && !strcmp(name, "_Z8graph_k1v"));
        CHECK(cudaGraphInstantiate(&xo, outer, 0));
        CHECK(cudaGraphLaunch(xo, s));
        CHECK(cudaGraphExecDestroy(xo));
        CHECK(cudaGraphExecDestroy(xi));
        CHECK(cudaGraphDestroy(outer));
        CHECK(cudaGraphDestroy(inner));
        printf("rules: child graph node holds %s\n", name);
    }

    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(nb));
    printf("rules: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    setup();
    if (argc > 1 && !strcmp(argv[1], "rules"))
        return rules();
    v1_begin = argc > 1 && !strcmp(argv[1], "v1");
    mixed = argc > 1 && !strcmp(argv[1], "mixed");
    return basic();
}
