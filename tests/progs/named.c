/* named.c: launches one kernel per argument, named by that argument's bytes (names are just bytes: tests
 * give it invalid UTF-8, control characters, report-looking lines).  With NAMED_SETLOCALE set it first
 * takes the environment's locale, as many programs do (setlocale(LC_ALL, "")). */
#include <locale.h>
#include "fakeprog.h"

static void stub0(void) {}
static void stub1(void) {}
static void stub2(void) {}
static void stub3(void) {}

int main(int argc, char **argv)
{
    if (getenv("NAMED_SETLOCALE"))
        setlocale(LC_ALL, "");
    void (*stubs[])(void) = { stub0, stub1, stub2, stub3 };
    int n = argc - 1 < 4 ? argc - 1 : 4;
    void **m = register_module();
    for (int i = 0; i < n; i++)
        register_kernel(m, stubs[i], argv[i + 1]);
    __cudaRegisterFatBinaryEnd(m);
    for (int i = 0; i < n; i++)
        CHECK(launch(stubs[i], (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    printf("named: %d kernel%s\n", n, n == 1 ? "" : "s");
    return 0;
}
