// fork_child.cu: a CUDA program that forks; the child does not use CUDA (CUDA forbids it after the
// parent initialised it) and exits, or execs a command; the parent goes on launching.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void parent_kernel(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }

int main(int argc, char **argv)
{
    const int n = 1 << 20;
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));
    for (int k = 0; k < 10; k++) parent_kernel<<<n / 256, 256>>>(d, n);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (argc > 1 && !strcmp(argv[1], "exec")) { execlp("echo", "echo", "fork_child: child exec ok", (char *)0); _exit(127); }
        printf("fork_child: child ok\n");
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    for (int k = 0; k < 5; k++) parent_kernel<<<n / 256, 256>>>(d, n);
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
    printf("fork_child: parent ok (15 launches), child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
