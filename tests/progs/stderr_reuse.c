/* stderr_reuse.c FILE: closes stderr, opens FILE for its own data (it gets descriptor 2), launches a
 * kernel ten times, writes its data there and returns: what libkprof writes at exit must not land in it. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void **m = register_module();
    register_kernel(m, stub, "_Z12stderr_reusev");
    __cudaRegisterFatBinaryEnd(m);
    close(2);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd != 2)
        return 3;
    for (int i = 0; i < 10; i++)
        CHECK(launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
    CHECK(cudaDeviceSynchronize());
    const char data[] = "APPDATA\n";
    return write(fd, data, strlen(data)) == (ssize_t)strlen(data) ? 0 : 4;
}
