/* order_stress.c: threads launching at once on streams that synchronise with each other and on streams
 * that do not, in the ways an app may mix them.  Each argument is one thread, by letter:
 *   L  lg_k on the legacy default stream
 *   B  bk_k on a blocking stream of its own
 *   D  bd_k on a blocking stream created and destroyed every round
 *   E  ne_k on a non-blocking stream created and destroyed every round
 *   P  pt_k on the per-thread default stream
 *   N  nb_k on a non-blocking stream of its own
 *   F  a launch that fails (a grid of 0) on the legacy stream, then fl_k there
 *   M  a synchronous cudaMemcpy (host to device) on the legacy stream, then mc_k there
 *   G  a graph (gr_k) launched on the legacy stream
 *   C  a stream capture of cap_k on a non-blocking stream of its own (thread-local mode), the graph launched
 *      there
 *   X  px_k on the per-thread default stream; the thread exits half-way (pthread_exit)
 *   K  lk_k on the legacy stream, a fork() every few rounds (the child launches lk_k and exits)
 *   S  ls_k on the legacy stream, each launch waited for (cudaStreamSynchronize)
 *   A  an asynchronous copy (host to device) on a blocking stream of its own, then ac_k there
 *   U  uk_k on a blocking stream of its own (for KPROF_EXCLUDE=uk_k or KPROF_SAMPLE)
 *   R  profiling stopped and started again every round (cudaProfilerStop, cudaProfilerStart)
 * Argument "paused" instead: ne_k on a non-blocking stream, lg_k on the legacy stream and bk_k on a
 * blocking stream; profiling stopped (cudaProfilerStop), the non-blocking stream destroyed and a blocking
 * one created (maybe with its handle: FAKEGPU_REUSE_STREAM_HANDLE), profiling started again; then bd_k on
 * the new stream, and 20 ms later, from another thread, lg_k on the legacy stream (with
 * FAKEGPU_LAUNCH_SLEEP_US=bd=100000, while bd_k's launch is in the driver).
 * With ORDER_WARM=1, wm_k is launched on the legacy stream and on a blocking stream before the threads
 * start (libkprof then knows both kinds are in use).  * ORDER_ROUNDS rounds (default 50).  Kernel lengths come from FAKEGPU_KERNEL_NS. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_profiler_api.h>
#include "fakeprog.h"

static void lg(void) {}
static void bk(void) {}
static void bd(void) {}
static void ne(void) {}
static void pt(void) {}
static void nb(void) {}
static void fl(void) {}
static void mc(void) {}
static void gr(void) {}
static void cap(void) {}
static void px(void) {}
static void lk(void) {}
static void ls(void) {}
static void wm(void) {}
static void ac(void) {}
static void uk(void) {}

static int rounds = 50;
static const dim3 one = { 1, 1, 1 }, warp = { 32, 1, 1 };

static void go(void (*k)(void), cudaStream_t s)
{
    CHECK(launch(k, one, warp, s));
}

static cudaGraphExec_t legacy_graph;

static void *thread_main(void *arg)
{
    char role = (char)(intptr_t)arg;
    cudaStream_t own = NULL;
    void *dev = NULL, *host = NULL;
    if (role == 'B' || role == 'A' || role == 'U')
        CHECK(cudaStreamCreateWithFlags(&own, cudaStreamDefault));
    if (role == 'N' || role == 'C')
        CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    if (role == 'M' || role == 'A') {
        CHECK(cudaMalloc(&dev, 1 << 16));
        CHECK(cudaMallocHost(&host, 1 << 16));
    }
    for (int i = 0; i < rounds; i++) {
        cudaStream_t s;
        switch (role) {
        case 'L': go(lg, 0); go(lg, 0); break;
        case 'B': go(bk, own); go(bk, own); break;
        case 'D':
        case 'E':
            CHECK(cudaStreamCreateWithFlags(&s, role == 'D' ? cudaStreamDefault : cudaStreamNonBlocking));
            go(role == 'D' ? bd : ne, s);
            go(role == 'D' ? bd : ne, s);
            CHECK(cudaStreamDestroy(s));
            break;
        case 'P': go(pt, cudaStreamPerThread); go(pt, cudaStreamPerThread); break;
        case 'N': go(nb, own); go(nb, own); break;
        case 'F':
            if (launch(fl, (dim3){ 0, 1, 1 }, warp, 0) == cudaSuccess) {
                fprintf(stderr, "order_stress: a grid of 0 launched\n");
                exit(1);
            }
            cudaGetLastError();
            go(fl, 0);
            break;
        case 'M':
            CHECK(cudaMemcpy(dev, host, 1 << 16, cudaMemcpyHostToDevice));
            go(mc, 0);
            break;
        case 'G': CHECK(cudaGraphLaunch(legacy_graph, 0)); break;
        case 'C': {
            cudaGraph_t g;
            cudaGraphExec_t x;
            CHECK(cudaStreamBeginCapture(own, cudaStreamCaptureModeThreadLocal));
            go(cap, own);
            CHECK(cudaStreamEndCapture(own, &g));
            CHECK(cudaGraphInstantiate(&x, g, 0));
            CHECK(cudaGraphLaunch(x, own));
            CHECK(cudaStreamSynchronize(own));
            CHECK(cudaGraphExecDestroy(x));
            CHECK(cudaGraphDestroy(g));
            break;
        }
        case 'X':
            go(px, cudaStreamPerThread);
            if (i == rounds / 2) {
                CHECK(cudaStreamSynchronize(cudaStreamPerThread));
                pthread_exit(NULL);
            }
            break;
        case 'K':
            go(lk, 0);
            if (i % 10 == 5) {
                pid_t pid = fork();
                if (pid == 0) {
                    /* CUDA is not usable in a forked child: the launch fails, and must not hang. */
                    launch(lk, one, warp, 0);
                    _exit(0);
                }
                int st = 0;
                if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    fprintf(stderr, "order_stress: child failed\n");
                    exit(1);
                }
            }
            break;
        case 'S': go(ls, 0); CHECK(cudaStreamSynchronize(0)); break;
        case 'A':
            CHECK(cudaMemcpyAsync(dev, host, 1 << 16, cudaMemcpyHostToDevice, own));
            go(ac, own);
            CHECK(cudaStreamSynchronize(own));
            break;
        case 'U': go(uk, own); go(uk, own); break;
        case 'R':
            CHECK(cudaProfilerStop());
            usleep(100);
            CHECK(cudaProfilerStart());
            break;
        default: fprintf(stderr, "order_stress: unknown role %c\n", role); exit(2);
        }
    }
    if (own)
        CHECK(cudaStreamSynchronize(own));
    return NULL;
}

static cudaStream_t late_stream;

static void *late_legacy(void *arg)
{
    (void)arg;
    usleep(20000);
    go(lg, 0);
    CHECK(cudaStreamSynchronize(0));
    return NULL;
}

static int paused(void)
{
    cudaStream_t gone, known;
    CHECK(cudaStreamCreateWithFlags(&gone, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&known, cudaStreamDefault));
    go(ne, gone);
    go(lg, 0); /* both kinds timed: launches on them are ordered */
    go(bk, known);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());
    CHECK(cudaStreamDestroy(gone));
    CHECK(cudaStreamCreateWithFlags(&late_stream, cudaStreamDefault));
    CHECK(cudaProfilerStart());
    if (late_stream == gone)
        printf("order_stress paused: stream handle reused\n");
    pthread_t t;
    pthread_create(&t, NULL, late_legacy, NULL);
    go(bd, late_stream);
    CHECK(cudaStreamSynchronize(late_stream));
    pthread_join(t, NULL);
    CHECK(cudaDeviceSynchronize());
    printf("order_stress: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *r = getenv("ORDER_ROUNDS");
    if (r && atoi(r) > 0)
        rounds = atoi(r);
    void **m = register_module();
    void (*stubs[])(void) = { lg, bk, bd, ne, pt, nb, fl, mc, gr, cap, px, lk, ls, wm, ac, uk };
    const char *names[] = { "lg_k", "bk_k", "bd_k", "ne_k", "pt_k", "nb_k", "fl_k", "mc_k", "gr_k", "cap_k", "px_k",
                            "lk_k", "ls_k", "wm_k", "ac_k", "uk_k" };
    for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++)
        register_kernel(m, stubs[i], names[i]);
    __cudaRegisterFatBinaryEnd(m);
    CHECK(cudaFree(NULL)); /* the context */
    if (argc > 1 && !strcmp(argv[1], "paused"))
        return paused();
    if (getenv("ORDER_WARM")) {
        cudaStream_t s;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamDefault));
        go(wm, 0);
        go(wm, s);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaStreamDestroy(s));
    }
    if (argc > 1 && strchr(argv[1], 'G')) {
        cudaStream_t s;
        cudaGraph_t g;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        go(gr, s);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&legacy_graph, g, 0));
        CHECK(cudaStreamDestroy(s));
    }
    int n = argc > 1 ? (int)strlen(argv[1]) : 0;
    pthread_t t[64];
    for (int i = 0; i < n && i < 64; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)argv[1][i]);
    for (int i = 0; i < n && i < 64; i++)
        pthread_join(t[i], NULL);
    CHECK(cudaDeviceSynchronize());
    printf("order_stress: ok\n");
    return 0;
}
