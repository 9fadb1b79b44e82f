// graphs_conditional: a CUDA graph with conditional IF (then/else) and WHILE nodes, each body a kernel.
// The graph's first kernel sets the conditions, so over 8 replays the bodies run a varying number of
// times; ordinary kernel nodes around them, and direct launches of a kernel of its own between replays.
#include "common.cuh"

// state[0]: replays so far; state[1]: WHILE iterations left in this replay.
__global__ void set_conditions(cudaGraphConditionalHandle hif, cudaGraphConditionalHandle hwhile, unsigned *state)
{
    if (threadIdx.x != 0)
        return;
    unsigned r = state[0]++;
    cudaGraphSetConditional(hif, r % 2 == 0); // then body on even replays, else body on odd ones
    state[1] = 1 + r % 3;                     // the WHILE body runs 1, 2, 3, 1, 2, 3... times
    cudaGraphSetConditional(hwhile, 1);
}

__global__ void while_body(cudaGraphConditionalHandle hwhile, unsigned *state, unsigned long long ns, unsigned *count)
{
    unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < ns) {
    }
    if (threadIdx.x != 0)
        return;
    atomicAdd(count, 1u);
    if (--state[1] == 0)
        cudaGraphSetConditional(hwhile, 0);
}

// Adds a kernel node running f(args) on one block of 32 threads to graph g, after dep (if any).
static cudaGraphNode_t add_kernel(cudaGraph_t g, cudaGraphNode_t dep, void *f, void **args)
{
    cudaKernelNodeParams p = {};
    p.func = f;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    cudaGraphNode_t n;
    CK(cudaGraphAddKernelNode(&n, g, dep ? &dep : nullptr, dep ? 1 : 0, &p));
    return n;
}

// Adds a conditional node of the given type and handle after dep; returns its body graphs in body[].
static cudaGraphNode_t add_conditional(cudaGraph_t g, cudaGraphNode_t dep, cudaGraphConditionalHandle h,
                                       cudaGraphConditionalNodeType type, unsigned size, cudaGraph_t *body)
{
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t n;
    CK(cudaGraphAddNode(&n, g, &dep, nullptr, 1, &p));
    for (unsigned i = 0; i < size; i++)
        body[i] = p.conditional.phGraph_out[i];
    return n;
}

int main()
{
    Counters c(6);
    unsigned *state;
    CK(cudaMalloc(&state, 2 * sizeof *state));
    CK(cudaMemset(state, 0, 2 * sizeof *state));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle hif, hwhile;
    CK(cudaGraphConditionalHandleCreate(&hif, g, 0, 0));
    CK(cudaGraphConditionalHandleCreate(&hwhile, g, 0, 0));

    unsigned long long ns_then = 20000, ns_else = 6000, ns_while = 10000, ns_last = 15000;
    unsigned *c1 = c[1], *c2 = c[2], *c3 = c[3], *c4 = c[4];
    void *set_args[] = {&hif, &hwhile, &state};
    void *then_args[] = {&ns_then, &c1}, *else_args[] = {&ns_else, &c2};
    void *while_args[] = {&hwhile, &state, &ns_while, &c3}, *last_args[] = {&ns_last, &c4};
    cudaGraphNode_t n = add_kernel(g, nullptr, (void *)set_conditions, set_args);
    cudaGraph_t ifbody[2], whilebody;
    n = add_conditional(g, n, hif, cudaGraphCondTypeIf, 2, ifbody);
    add_kernel(ifbody[0], nullptr, (void *)spin<1>, then_args);
    add_kernel(ifbody[1], nullptr, (void *)spin<2>, else_args);
    n = add_conditional(g, n, hwhile, cudaGraphCondTypeWhile, 1, &whilebody);
    add_kernel(whilebody, nullptr, (void *)while_body, while_args);
    add_kernel(g, n, (void *)spin<4>, last_args);

    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int r = 0; r < 8; r++) {
        CK(cudaGraphLaunch(exec, s));
        if (r % 2)
            CK(cudaStreamSynchronize(s));
        spin<5><<<1, 32, 0, s>>>(8000, c[5]); // a direct launch between replays
    }
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    EXPECT(c.get(1) == 4 && c.get(2) == 4 && c.get(3) == 15 && c.get(4) == 8 && c.get(5) == 8);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    printf("graphs_conditional: ok\n");
    return 0;
}
