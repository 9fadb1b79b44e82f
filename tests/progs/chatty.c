/* chatty.c: launches a kernel, then writes lines of its own: "out N" to stdout and "err N" to stderr.
 * Arguments (in any order): out=N and err=N (lines, default 1 and 0), sleep=MS (after writing, before
 * exit), fork (first a child is forked, which launches the kernel once, so it writes a report too; the
 * parent waits for it, then launches three times, as without fork). */
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}

int main(int argc, char **argv)
{
    long out = 1, err = 0, sleep_ms = 0;
    int do_fork = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0)
            out = atol(argv[i] + 4);
        else if (strncmp(argv[i], "err=", 4) == 0)
            err = atol(argv[i] + 4);
        else if (strncmp(argv[i], "sleep=", 6) == 0)
            sleep_ms = atol(argv[i] + 6);
        else if (strcmp(argv[i], "fork") == 0)
            do_fork = 1;
    }
    int launches = 3;
    if (do_fork) {
        /* Before any CUDA call: CUDA is not usable in a child forked after the parent initialised it. */
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            launches = 1;
        } else {
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return 1;
        }
    }
    void **m = register_module();
    register_kernel(m, stub, "_Z6chattyv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    for (int i = 0; i < launches; i++)
        CHECK(launch(stub, one, one, 0));
    CHECK(cudaDeviceSynchronize());
    for (long i = 1; i <= out; i++)
        printf("out %ld\n", i);
    fflush(stdout);
    for (long i = 1; i <= err; i++)
        fprintf(stderr, "err %ld\n", i);
    if (sleep_ms > 0) {
        struct timespec t = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
        while (nanosleep(&t, &t) != 0)
            ;
    }
    return 0;
}
