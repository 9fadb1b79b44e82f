/* forkapp [exec]: launches `parent` twice, forks; the child does not touch CUDA: it prints and calls exit(0)
 * (or, with `exec`, execs /bin/true). The parent waits for it, launches `parent` once more and exits.
 * Truth: parent 3, written by the parent only (a forked child of the fake never writes the truth file). */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "robustprog.h"

static void parent(void) {}

int main(int argc, char **argv)
{
    void **m = register_module();
    int use_exec = argc > 1 && !strcmp(argv[1], "exec");
    int status = 0;
    pid_t pid;

    register_kernel(m, parent, "_Z6parentv");
    __cudaRegisterFatBinaryEnd(m);

    for (int i = 0; i < 2; i++)
        CHECK(launch(parent, NULL));
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (use_exec) {
            execl("/bin/true", "true", (char *)NULL);
            perror("exec /bin/true");
            _exit(127);
        }
        printf("forkapp: child exiting\n");
        exit(0);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "forkapp: child failed (status %#x)\n", status);
        return 1;
    }
    CHECK(launch(parent, NULL));
    CHECK(cudaDeviceSynchronize());
    printf("forkapp: parent launched 3 times, child (%s) exited 0\n", use_exec ? "exec" : "exit");
    return 0;
}
