// graph_replay.cu: captures kernels into a CUDA graph (global capture mode), replays it, and launches
// kernels directly too: a profiler must count the graph's kernels on every replay.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void step_a(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 0.5f + 1.0f; }
__global__ void step_b(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] + 2.0f; }
__global__ void direct(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] -= 1.0f; }

int main(int argc, char **argv)
{
    int replays = 10;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--replays") && i + 1 < argc) replays = atoi(argv[++i]);
    const int n = 1 << 20, t = 256, b = (n + t - 1) / t;
    float *d;
    cudaStream_t s;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemset(d, 0, n * sizeof(float)));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < 3; k++) step_a<<<b, t, 0, s>>>(d, n);
    for (int k = 0; k < 2; k++) step_b<<<b, t, 0, s>>>(d, n);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < replays; r++) CK(cudaGraphLaunch(ge, s));
    for (int k = 0; k < 4; k++) direct<<<b, t, 0, s>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    float h = 0;
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("graph_replay: replays=%d nodes=5 direct=4 x0=%g\n", replays, h);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    return 0;
}
