/* first_call: the program's first CUDA call is a kernel launch, which creates the context (as nvcc
 * programs that launch before any cudaMalloc do: the launch gets the host stub as its handle, the way a
 * stub whose kernel lookup found nothing launches); then two more launches.  Truth: first_k 3. */
#include "fakeprog.h"

static void first_k(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, first_k, "first_k");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    void *args[1] = { NULL };
    for (int i = 0; i < 3; i++)
        CHECK(__cudaLaunchKernel((cudaKernel_t)(void *)first_k, one, one, args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    printf("first_call: ok\n");
    return 0;
}
