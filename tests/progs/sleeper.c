/* sleeper.c: launches kernels, says "ready", then sleeps until a signal ends it.  With the argument
 * "handler" it first installs its own SIGTERM handler, which exits with status 3; with "nocontext" it only
 * asks for the device count (no launch) before it says "ready"; with "loop" it launches for ever, saying
 * "ready" after 1000 launches (a signal then lands inside a launch, often); with "exit" it says "ready"
 * after its launches and returns from main at once. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub(void) {}
static void on_term(int sig) { (void)sig; exit(3); }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "handler") == 0)
        signal(SIGTERM, on_term);
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
    printf("ready\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        return 0;
    for (int i = 0; i < 300; i++)
        sleep(1);
    return 0;
}
