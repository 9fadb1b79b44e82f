/* sleeper.c: launches kernels, says "ready", then sleeps until a signal ends it.  With the argument
 * "handler" it first installs its own SIGTERM handler, which exits with status 3; with "nocontext" it only
 * asks for the device count (no launch) before it says "ready"; with "loop" it launches for ever, saying
 * "ready" after 1000 launches (a signal then lands inside a launch, often); with "exit" it says "ready"
 * after its launches and returns from main at once.  With "python" it does as Python does at its start for
 * SIGINT, for SIGTERM (a background job of a non-interactive shell starts with SIGINT ignored): it installs
 * a handler of its own (setting a flag) only if it finds the default there, and says which;
 * with "chain", after its launches, it installs a SIGTERM handler that sets a flag and calls the handler it
 * replaced when that is a function (as many libraries' handlers do); either flag ends its sleep with
 * "interrupted: cleaning up" and exit status 0. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}
static void on_term(int sig) { (void)sig; exit(3); }
static volatile sig_atomic_t interrupted;
static struct sigaction replaced;
static int replaced_set;
static void on_flag(int sig)
{
    interrupted = 1;
    if (sig == SIGTERM && replaced_set && !(replaced.sa_flags & SA_SIGINFO) && replaced.sa_handler != SIG_DFL &&
        replaced.sa_handler != SIG_IGN)
        replaced.sa_handler(sig);
    else if (sig == SIGTERM && replaced_set && (replaced.sa_flags & SA_SIGINFO))
        replaced.sa_sigaction(sig, NULL, NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "handler") == 0)
        signal(SIGTERM, on_term);
    if (argc > 1 && strcmp(argv[1], "python") == 0) {
        struct sigaction cur;
        sigaction(SIGTERM, NULL, &cur);
        int dfl = !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
        printf("SIGTERM at start: %s\n", dfl ? "default" : "taken");
        if (dfl)
            signal(SIGTERM, on_flag);
    }
    int nocontext = argc > 1 && strcmp(argv[1], "nocontext") == 0, n = 0;
    if (nocontext)
        CHECK(cudaGetDeviceCount(&n));
    void **m = register_module();
    register_kernel(m, stub, "_Z7sleeperv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    if (argc > 1 && strcmp(argv[1], "loop") == 0)
        for (unsigned long i = 0;; i++) {
            CHECK(launch(stub, one, one, 0));
            if (i == 1000) {
                printf("ready\n");
                fflush(stdout);
            }
        }
    for (int i = 0; i < 5 && !nocontext; i++)
        CHECK(launch(stub, one, one, 0));
    if (argc > 1 && strcmp(argv[1], "chain") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_flag;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, &replaced);
        replaced_set = 1;
    }
    printf("ready\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        return 0;
    for (int i = 0; i < 300 && !interrupted; i++)
        sleep(1);
    if (interrupted) {
        printf("interrupted: cleaning up\n");
        return 0;
    }
    return 0;
}
