/* quick_exit.c: launches a kernel three times, then ends with quick_exit(), which runs only the
 * at_quick_exit handlers (no atexit handlers, no destructors) and flushes no stdio stream: a line left in
 * stdout's buffer is never written. */
#include "fakeprog.h"

static void stub(void) {}

int main(void)
{
    void **m = register_module();
    register_kernel(m, stub, "_Z10quick_kernv");
    __cudaRegisterFatBinaryEnd(m);
    for (int i = 0; i < 3; i++)
        CHECK(launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    printf("quick_exit: ok\n");
    fflush(stdout);
    printf("quick_exit: never flushed\n");
    quick_exit(4);
}
