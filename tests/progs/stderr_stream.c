/* stderr_stream.c MODE: launches a kernel ten times with its stderr stream not writing bytes to descriptor 2,
 * descriptor 2 itself untouched: MODE "stdout" points the stderr variable at stdout (an old idiom for a
 * program's diagnostics), "wide" makes the stream wide (fwprintf).  It prints "result 42" on stdout. */
#include <string.h>
#include <wchar.h>
#include "fakeprog.h"

static void stub(void) {}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void **m = register_module();
    register_kernel(m, stub, "_Z13stderr_streamv");
    __cudaRegisterFatBinaryEnd(m);
    if (strcmp(argv[1], "stdout") == 0)
        stderr = stdout;
    else
        fwprintf(stderr, L"stderr_stream: wide\n");
    for (int i = 0; i < 10; i++)
        CHECK(launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    printf("result 42\n");
    return 0;
}
