/* queue_split.c: launches for the host versus device split (launch call host time, queue time), run with the
 * fake GPU's clock tied to a virtual host clock (tests/fake/hostclock.c).  "idle N": N launches of
 * split_idle, each waited for (cudaStreamSynchronize), so that each finds its stream idle; then the host
 * sleeps 1.5 s (virtual) and makes N more.  "busy N": a long fill kernel, then N launches of split_busy
 * queued behind it and behind each other, then one synchronisation. */
#include <string.h>
#include <time.h>
#include "fakeprog.h"

static void split_idle(void) {}
static void split_busy(void) {}
static void fill(void) {}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = atoi(argv[2]);
    void **m = register_module();
    register_kernel(m, split_idle, "split_idle");
    register_kernel(m, split_busy, "split_busy");
    register_kernel(m, fill, "fill");
    __cudaRegisterFatBinaryEnd(m);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamSynchronize(s));
    dim3 one = { 1, 1, 1 };
    if (!strcmp(argv[1], "idle")) {
        for (int phase = 0; phase < 2; phase++) {
            for (int i = 0; i < n; i++) {
                CHECK(launch(split_idle, one, one, s));
                CHECK(cudaStreamSynchronize(s));
            }
            struct timespec gap = { 1, 500000000 };
            if (phase == 0)
                nanosleep(&gap, NULL);
        }
    } else {
        CHECK(launch(fill, one, one, s));
        for (int i = 0; i < n; i++)
            CHECK(launch(split_busy, one, one, s));
        CHECK(cudaStreamSynchronize(s));
    }
    CHECK(cudaStreamDestroy(s));
    return 0;
}
