/* lazy_rt: runtime launches by host function pointer (cudaLaunchKernel(func), as code built by CUDA 12's
 * nvcc makes them), which libkprof cannot load ahead of their first launch: lead_k launched 3 times on a
 * non-blocking stream, each waited for, then late_k 3 times the same way (its first launch loads it, on a
 * stream whose last work was a kernel).  Truth: lead_k 3, late_k 3. */
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
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            CHECK(cudaLaunchKernel((const void *)kernels[k], one, one, args, 0, s));
            CHECK(cudaStreamSynchronize(s));
        }
    printf("lazy_rt: ok\n");
    return 0;
}
