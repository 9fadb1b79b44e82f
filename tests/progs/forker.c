/* forker.c: launches kernels, forks while pairs may be in flight; the child does not touch CUDA and
 * exits (or, with "exec", execs /bin/echo); the parent waits, launches once more and exits.  With "slow"
 * it waits 50 ms before forking, so that libkprof's harvester is inside its first event query (which the
 * test makes slow), and prints how long fork() took in the parent ("fork took N ms"). */
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}

int main(int argc, char **argv)
{
    void **m = register_module();
    register_kernel(m, stub, "_Z6parentv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    for (int i = 0; i < 50; i++)
        CHECK(launch(stub, one, one, 0));
    if (argc > 1 && strcmp(argv[1], "slow") == 0)
        usleep(50000);
    fflush(stdout);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        if (argc > 1 && strcmp(argv[1], "exec") == 0) {
            execl("/bin/echo", "echo", "child exec ok", (char *)NULL);
            _exit(127);
        }
        printf("child ok\n");
        exit(0);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("fork took %ld ms\n", (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(launch(stub, one, one, 0));
    CHECK(cudaDeviceSynchronize());
    printf("parent ok, child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
