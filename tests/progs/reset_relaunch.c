/* reset_relaunch.c: launches kernel_c once on the legacy stream, resets the device (cudaDeviceReset, no
 * synchronize first), launches it once more and synchronizes (a breaker helper's pattern).  With
 * FAKEGPU_REUSE_CTX_HANDLE=1 the new primary context gets the old one's handle, as a real driver's
 * primary context may keep its handle across a reset. */
#include <stdlib.h>
#include "fakeprog.h"

static void stub_c(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, stub_c, "_Z8kernel_cPf");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(launch(stub_c, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    CHECK(cudaDeviceReset());
    CHECK(launch(stub_c, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    printf("reset_relaunch: ok\n");
    return 0;
}
