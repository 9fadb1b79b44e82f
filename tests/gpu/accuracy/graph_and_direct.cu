// graph_and_direct: one kernel launched directly, in a captured graph and in a child graph node.
// Direct launches come before and after the replays; two kernels run only in graphs.
#include "common.cuh"

int main()
{
    Counters c(4);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 20; i++) // direct, before any graph
        spin<1><<<1, 32, 0, s>>>(10000, c[1]);
    CK(cudaStreamSynchronize(s));

    cudaGraph_t captured, built;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 3; i++)
        spin<1><<<1, 32, 0, s>>>(10000, c[1]);
    spin<2><<<1, 32, 0, s>>>(25000, c[2]);
    CK(cudaStreamEndCapture(s, &captured));

    CK(cudaGraphCreate(&built, 0)); // a child graph node holding the captured graph, then a kernel node
    cudaGraphNode_t child, k;
    CK(cudaGraphAddChildGraphNode(&child, built, nullptr, 0, captured));
    unsigned long long ns = 5000;
    unsigned *c3 = c[3];
    void *args[] = {&ns, &c3};
    cudaKernelNodeParams p = {};
    p.func = (void *)spin<3>;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    CK(cudaGraphAddKernelNode(&k, built, &child, 1, &p));

    cudaGraphExec_t e1, e2;
    CK(cudaGraphInstantiate(&e1, captured, 0));
    CK(cudaGraphInstantiate(&e2, built, 0));
    for (int i = 0; i < 10; i++) {
        CK(cudaGraphLaunch(e1, s));
        if (i % 2 == 0)
            CK(cudaGraphLaunch(e2, s));
    }
    for (int i = 0; i < 10; i++) // direct, right behind the replays
        spin<1><<<1, 32, 0, s>>>(10000, c[1]);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    EXPECT(c.get(1) == 20 + 30 + 15 + 10 && c.get(2) == 15 && c.get(3) == 5);
    for (auto e : {e1, e2})
        CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(built));
    CK(cudaGraphDestroy(captured));
    CK(cudaStreamDestroy(s));
    printf("graph_and_direct: ok\n");
    return 0;
}
