/* badname.c: a kernel whose name is not UTF-8 (names are just bytes). */
#include "fakeprog.h"

static void stub(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, stub, "bad\xff\xfe\"\\\n,name");
    __cudaRegisterFatBinaryEnd(m);
    CHECK(launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    printf("badname: ok\n");
    return 0;
}
