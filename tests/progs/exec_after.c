/* exec_after.c MODE: launches a kernel 5 times and synchronizes, then by MODE: "execl" replaces itself with
 * /bin/echo through execl, "execvp" through execvp, "execle" with /usr/bin/env through execle and an
 * environment of one variable (KPROF_TEST_ENV=1, which env prints); "fail [PATH]" execs PATH (default: a
 * program that is not there), then launches 3 more times and exits; "sigexec" launches in a loop until a
 * SIGALRM handler, 20 ms on, execs /bin/echo (as a daemon restarting itself on a signal); "vfork" runs /bin/true in a vfork()ed child (which execs in its
 * parent's memory, as Python's subprocess may), waits for it, then launches 3 more times and exits; "self"
 * execs itself in mode "execl" (a second CUDA program in the same process), "self2" itself in mode "self". */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}
static void on_alarm(int sig)
{
    (void)sig;
    char *const args[] = { "echo", "handed over from a handler", NULL };
    execv("/bin/echo", args);
    _exit(127);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void **m = register_module();
    register_kernel(m, stub, "_Z10exec_afterv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    for (int i = 0; i < 5; i++)
        CHECK(launch(stub, one, one, 0));
    CHECK(cudaDeviceSynchronize());
    fflush(stdout);
    if (strcmp(argv[1], "self") == 0) { /* itself again, which then execs /bin/echo */
        execl("/proc/self/exe", argv[0], "execl", (char *)NULL);
        return 127;
    }
    if (strcmp(argv[1], "self2") == 0) { /* itself again, twice */
        char *const args[] = { argv[0], "self", NULL };
        execv("/proc/self/exe", args);
        return 127;
    }
    if (strcmp(argv[1], "execl") == 0) {
        execl("/bin/echo", "echo", "handed over", (char *)NULL);
        return 127;
    }
    if (strcmp(argv[1], "execle") == 0) {
        char *const env[] = { "KPROF_TEST_ENV=1", NULL };
        execle("/usr/bin/env", "env", (char *)NULL, env);
        return 127;
    }
    if (strcmp(argv[1], "execvp") == 0) {
        char *const args[] = { "echo", "handed over", NULL };
        execvp("echo", args);
        return 127;
    }
    if (strcmp(argv[1], "sigexec") == 0) {
        signal(SIGALRM, on_alarm);
        struct itimerval it = { { 0, 0 }, { 0, 20000 } };
        setitimer(ITIMER_REAL, &it, NULL);
        for (;;)
            CHECK(launch(stub, one, one, 0));
    }
    if (strcmp(argv[1], "fail") == 0) {
        char *const args[] = { "nowhere", NULL };
        if (execv(argc > 2 ? argv[2] : "/nonexistent/kprof-test-nowhere", args) == 0)
            return 3;
        printf("exec failed\n");
    } else if (strcmp(argv[1], "vfork") == 0) {
        pid_t pid = vfork();
        if (pid == 0) {
            char *const args[] = { "true", NULL };
            execv("/bin/true", args);
            _exit(127);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 4;
        printf("child ran\n");
    }
    for (int i = 0; i < 3; i++)
        CHECK(launch(stub, one, one, 0));
    CHECK(cudaDeviceSynchronize());
    return 0;
}
