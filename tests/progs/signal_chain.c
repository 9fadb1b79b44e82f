/* signal_chain.c: installs its own SIGTERM handler A at start (as Python does for SIGINT), makes its first CUDA
 * calls, then a second component installs handler B, which calls the handler it replaced (as many
 * libraries' handlers do).  Without libkprof, SIGTERM runs B then A; both flags end the wait. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "fakeprog.h"
static void k(void) {}
static volatile sig_atomic_t a_ran, b_ran;
static struct sigaction replaced;
static void handler_a(int sig) { (void)sig; a_ran = 1; }
static void handler_b(int sig, siginfo_t *si, void *uc)
{
    b_ran = 1;
    if (replaced.sa_flags & SA_SIGINFO)
        replaced.sa_sigaction(sig, si, uc);
    else if (replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN)
        replaced.sa_handler(sig);
}
int main(void)
{
    signal(SIGTERM, handler_a);
    void **m = register_module();
    register_kernel(m, k, "_Z12signal_chainv");
    __cudaRegisterFatBinaryEnd(m);
    dim3 one = { 1, 1, 1 };
    for (int i = 0; i < 5; i++)
        CHECK(launch(k, one, one, 0));
    CHECK(cudaDeviceSynchronize());
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler_b;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGTERM, &sa, &replaced);
    kill(getpid(), SIGTERM);
    for (int i = 0; i < 50 && !a_ran; i++)
        usleep(100000);
    printf("handler B ran: %d, handler A ran: %d\n", b_ran, a_ran);
    return a_ran ? 0 : 1;
}
