/* stderr_readonly.c: 5 launches; then closes descriptor 2 and opens the file it was (its path in argv[1]) for reading,
 * which takes descriptor 2 (the lowest free): a program reading back its own log.  Run as
 * ./stderr_readonly log.txt 2>log.txt */
#include <fcntl.h>
#include <unistd.h>
#include "fakeprog.h"
static void k(void) {}
int main(int argc, char **argv)
{
    void **m = register_module();
    register_kernel(m, k, "_Z15stderr_readonlyv");
    __cudaRegisterFatBinaryEnd(m);
    for (int i = 0; i < 5; i++)
        CHECK(launch(k, (dim3){1,1,1}, (dim3){1,1,1}, 0));
    CHECK(cudaDeviceSynchronize());
    close(2);
    int fd = open(argv[1], O_RDONLY);
    char buf[64];
    printf("fd %d, read %zd bytes of the log\n", fd, read(fd, buf, sizeof buf));
    return 0;
}
