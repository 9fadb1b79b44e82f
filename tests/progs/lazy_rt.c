/* lazy_rt: runtime launches by host function pointer (cudaLaunchKernel(func), as code built by CUDA 12's
 * nvcc and PyTorch make them): lead_k launched 3 times on a non-blocking stream, each waited for, then
 * late_k 3 times the same way, with an error of the app's own (a bad cudaFree) pending, which must still be
 * there after them (and nothing else).  Truth: lead_k 3, late_k 3. */
#include "fakeprog.h"

static void lead_k(void) {}
static void late_k(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, lead_k, "lead_k");
    register_kernel(m, late_k, "late_k");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    void *args[1] = { NULL };
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void (*kernels[2])(void) = { lead_k, late_k };
    cudaError_t pending = cudaSuccess;
    for (int k = 0; k < 2; k++) {
        if (k == 1) /* an error of the app's own, left pending across late_k's launches */
            pending = cudaFree((void *)8);
        for (int i = 0; i < 3; i++) {
            CHECK(cudaLaunchKernel((const void *)kernels[k], one, one, args, 0, s));
            CHECK(cudaStreamSynchronize(s));
        }
    }
    if (pending == cudaSuccess || cudaGetLastError() != pending) {
        fprintf(stderr, "lazy_rt: the app's pending error was not kept (%d)\n", (int)pending);
        return 1;
    }
    CHECK(cudaGetLastError()); /* and nothing else was left */
    printf("lazy_rt: ok\n");
    return 0;
}
