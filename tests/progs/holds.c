/* holds.c: driver-API programs that try to make libkprof leave a hold (struct kprof_hold) on a stream, or
 * use one after its context is gone.  One mode per argument:
 *   "reset_v1", "destroy_v1", "release_v1": ctx_k launched 3 times (each waited for) in a context, which is
 *     then ended through the driver's first-version entry point (cuDevicePrimaryCtxReset,
 *     cuCtxDestroy, cuDevicePrimaryCtxRelease: what a program built against old headers, or asking
 *     cuGetProcAddress for an old version, calls), then a second context (the same handle with
 *     FAKEGPU_REUSE_CTX_HANDLE=1) where ctx_k is launched 3 times more.
 *   "dead_stream": shared_k launched twice on a stream (waited for), the stream destroyed, a launch into it
 *     (must fail as without libkprof), then 2 launches on the legacy stream and a context synchronize.
 *   "shared": 8 threads launch shared_k 50 times each on one non-blocking stream at once, each thread
 *     synchronizing the stream after every 5th launch; then the legacy stream and a blocking stream are
 *     used from 2 threads each (legacy_k, blocking_k, 20 launches each, synchronized).
 *   "capture", "capture_relaxed", "mix", "two_ctx": see the functions of those names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cuda.h>
#include "drvprog.h"

/* cuda.h maps these names to their latest versions; the driver still exports the first ones. */
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxRelease
#undef cuCtxDestroy
CUresult cuDevicePrimaryCtxReset(CUdevice dev);
CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult cuCtxDestroy(CUcontext ctx);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
/* The per-thread default stream's entry points (what cuda.h names them with CUDA_API_PER_THREAD_DEFAULT_STREAM). */
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                             unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void **params,
                             void **extra);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params, void **extra);
CUresult cuStreamSynchronize_ptsz(CUstream s);
CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream s);


static CUfunction fn(CUmodule mod, const char *name)
{
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, name));
    return f;
}

/* Three launches of ctx_k in the current context, each waited for. */
static void three_launches(void)
{
    CUmodule mod;
    CUstream s;
    CK(cuModuleLoadData(&mod, "fake module"));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUfunction f = fn(mod, "ctx_k");
    for (int i = 0; i < 3; i++) {
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
}

static int context_end(const char *how, CUdevice dev)
{
    CUcontext ctx;
    for (int round = 0; round < 2; round++) {
        int primary = strcmp(how, "destroy_v1") != 0;
        if (primary) {
            CK(cuDevicePrimaryCtxRetain(&ctx, dev));
            CK(cuCtxSetCurrent(ctx));
        } else {
            CK(cuCtxCreate_v2(&ctx, 0, dev));
        }
        three_launches();
        if (round == 1)
            break;
        if (!strcmp(how, "reset_v1"))
            CK(cuDevicePrimaryCtxReset(dev));
        else if (!strcmp(how, "release_v1"))
            CK(cuDevicePrimaryCtxRelease(dev));
        else
            CK(cuCtxDestroy(ctx));
    }
    CK(cuCtxSynchronize());
    return 0;
}

static CUmodule shared_mod;
static CUcontext shared_ctx;
struct worker { CUstream s; const char *kernel; int n, every; };

static void *work(void *arg)
{
    struct worker *w = arg;
    CK(cuCtxSetCurrent(shared_ctx));
    CUfunction f = fn(shared_mod, w->kernel);
    for (int i = 0; i < w->n; i++) {
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, w->s, NULL, NULL));
        if (i % w->every == w->every - 1)
            CK(cuStreamSynchronize(w->s));
    }
    return NULL;
}

static void run_workers(struct worker *w, int n)
{
    pthread_t t[8];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, work, &w[i]) != 0)
            exit(1);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static int shared(CUdevice dev)
{
    CK(cuDevicePrimaryCtxRetain(&shared_ctx, dev));
    CK(cuCtxSetCurrent(shared_ctx));
    CK(cuModuleLoadData(&shared_mod, "fake module"));
    CUstream s, blocking;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    struct worker w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (struct worker){ s, "shared_k", 50, 5 };
    run_workers(w, 8);
    w[0] = w[1] = (struct worker){ NULL, "legacy_k", 20, 1 };
    w[2] = w[3] = (struct worker){ blocking, "blocking_k", 20, 1 };
    run_workers(w, 4);
    CK(cuCtxSynchronize());
    return 0;
}

static int dead_stream(CUdevice dev)
{
    CUcontext ctx;
    CUmodule mod;
    CUstream s;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoadData(&mod, "fake module"));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUfunction f = fn(mod, "shared_k");
    for (int i = 0; i < 2; i++) {
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
    CK(cuStreamDestroy(s));
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL);
    printf("launch into a destroyed stream: %d\n", (int)r);
    for (int i = 0; i < 2; i++)
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    CK(cuCtxSynchronize());
    return 0;
}


static CUmodule mod2;
static CUstream cap_s, side_s;
static CUcontext cap_ctx;
static int cap_mode_arg, cap_rounds, cap_bad;

/* Begins and ends a capture of cap_s cap_rounds times (cap_k launched into it, and capside_k on a stream
 * of this thread's own, not captured, each time), counting captures that did not end with a graph; every
 * 50th graph is launched. */
static void *capturer(void *arg)
{
    (void)arg;
    CK(cuCtxSetCurrent(cap_ctx));
    CUstream other;
    CK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    CUfunction f = fn(mod2, "cap_k"), g = fn(mod2, "capside_k");
    for (int r = 0; r < cap_rounds; r++) {
        CUgraph graph = NULL;
        CK(cuStreamBeginCapture_v2(cap_s, (CUstreamCaptureMode)cap_mode_arg));
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, cap_s, NULL, NULL));
        CK(cuLaunchKernel(g, 1, 1, 1, 32, 1, 1, 0, other, NULL, NULL)); /* not captured */
        CUresult rc = cuStreamEndCapture(cap_s, &graph);
        if (rc != CUDA_SUCCESS)
            cap_bad++;
        if (graph) {
            CUgraphExec exec;
            if (r % 50 == 0) {
                CK(cuGraphInstantiateWithFlags(&exec, graph, 0));
                CK(cuGraphLaunch(exec, cap_s));
                CK(cuStreamSynchronize(cap_s));
                CK(cuGraphExecDestroy(exec));
            }
            CK(cuGraphDestroy(graph));
        }
    }
    return NULL;
}

/* "capture", "capture_relaxed": while another thread captures cap_s (global or relaxed mode) 200 times,
 * this one launches side_k on side_s 2000 times, synchronizing every 100th launch in relaxed mode only (a
 * synchronize is forbidden during another thread's global capture). */
static int capture(CUdevice dev, int relaxed)
{
    CK(cuDevicePrimaryCtxRetain(&cap_ctx, dev));
    CK(cuCtxSetCurrent(cap_ctx));
    CK(cuModuleLoadData(&mod2, "fake module"));
    CK(cuStreamCreate(&cap_s, CU_STREAM_NON_BLOCKING));
    CK(cuStreamCreate(&side_s, CU_STREAM_NON_BLOCKING));
    CUfunction f = fn(mod2, "side_k");
    CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, side_s, NULL, NULL));
    CK(cuStreamSynchronize(side_s));
    cap_mode_arg = relaxed ? CU_STREAM_CAPTURE_MODE_RELAXED : CU_STREAM_CAPTURE_MODE_GLOBAL;
    cap_rounds = 200;
    pthread_t t;
    if (pthread_create(&t, NULL, capturer, NULL) != 0)
        exit(1);
    for (int i = 0; i < 2000; i++) {
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, side_s, NULL, NULL));
        if (relaxed && i % 100 == 99)
            CK(cuStreamSynchronize(side_s));
    }
    pthread_join(t, NULL);
    CK(cuCtxSynchronize());
    printf("captures not ended with a graph: %d\n", cap_bad);
    return 0;
}

/* "mix": on one stream, each launch waited for (so each finds the stream idle and is held) and then the
 * same back to back: mix_k by cuLaunchKernel, a graph of graph_k (cuGraphLaunch), ex_k by cuLaunchKernelEx,
 * coop_k by cuLaunchCooperativeKernel; then on the per-thread default stream: ptsz_k by cuLaunchKernel_ptsz
 * (stream NULL) and by cuLaunchKernel (CU_STREAM_PER_THREAD), exptsz_k by cuLaunchKernelEx_ptsz. */
static void mix_round(CUstream s, CUgraphExec exec, int wait)
{
    CUfunction mix = fn(mod2, "mix_k"), ex = fn(mod2, "ex_k"), coop = fn(mod2, "coop_k");
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 32;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = s;
    for (int i = 0; i < 3; i++) {
        CK(cuLaunchKernel(mix, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        if (wait)
            CK(cuStreamSynchronize(s));
        CK(cuGraphLaunch(exec, s));
        if (wait)
            CK(cuStreamSynchronize(s));
        CK(cuLaunchKernelEx(&cfg, ex, NULL, NULL));
        if (wait)
            CK(cuStreamSynchronize(s));
        CK(cuLaunchCooperativeKernel(coop, 1, 1, 1, 32, 1, 1, 0, s, NULL));
        if (wait)
            CK(cuStreamSynchronize(s));
    }
}

static int mix(CUdevice dev)
{
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoadData(&mod2, "fake module"));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUgraph graph;
    CUgraphExec exec;
    CK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CK(cuLaunchKernel(fn(mod2, "graph_k"), 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
    CK(cuStreamEndCapture(s, &graph));
    CK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    mix_round(s, exec, 1);
    mix_round(s, exec, 0);
    CK(cuStreamSynchronize(s));
    CUfunction ptsz = fn(mod2, "ptsz_k"), exptsz = fn(mod2, "exptsz_k");
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 32;
    cfg.blockDimY = cfg.blockDimZ = 1;
    for (int i = 0; i < 3; i++) {
        CK(cuLaunchKernel_ptsz(ptsz, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
        CK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
        CK(cuLaunchKernel(ptsz, 1, 1, 1, 32, 1, 1, 0, CU_STREAM_PER_THREAD, NULL, NULL));
        CK(cuStreamSynchronize_ptsz(NULL));
        CK(cuLaunchKernelEx_ptsz(&cfg, exptsz, NULL, NULL));
        CK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
        CK(cuGraphLaunch_ptsz(exec, NULL));
        CK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    }
    CK(cuCtxSynchronize());
    return 0;
}

/* "two_ctx": two contexts made by cuCtxCreate on this thread; c1_k and c2_k launched alternately, 5 times
 * each, in each context on a stream of its own and its legacy stream (switched by cuCtxSetCurrent and by
 * push/pop), each launch waited for; then 5 of each back to back, and both contexts synchronized. */
static int two_ctx(CUdevice dev)
{
    CUcontext c[2];
    CUmodule m[2];
    CUstream s[2];
    CUfunction f[2];
    for (int i = 0; i < 2; i++) {
        CK(cuCtxCreate_v2(&c[i], 0, dev)); /* made current (pushed) */
        CK(cuModuleLoadData(&m[i], "fake module"));
        CK(cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
        CK(cuModuleGetFunction(&f[i], m[i], i ? "c2_k" : "c1_k"));
    }
    for (int r = 0; r < 5; r++)
        for (int i = 0; i < 2; i++) {
            CK(cuCtxSetCurrent(c[i]));
            CK(cuLaunchKernel(f[i], 1, 1, 1, 32, 1, 1, 0, s[i], NULL, NULL));
            CK(cuStreamSynchronize(s[i]));
            CK(cuCtxPushCurrent(c[1 - i]));
            CK(cuLaunchKernel(f[1 - i], 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
            CK(cuCtxSynchronize());
            CUcontext popped;
            CK(cuCtxPopCurrent(&popped));
        }
    for (int r = 0; r < 5; r++)
        for (int i = 0; i < 2; i++) {
            CK(cuCtxSetCurrent(c[i]));
            CK(cuLaunchKernel(f[i], 1, 1, 1, 32, 1, 1, 0, s[i], NULL, NULL));
        }
    for (int i = 0; i < 2; i++) {
        CK(cuCtxSetCurrent(c[i]));
        CK(cuCtxSynchronize());
    }
    return 0;
}

int main(int argc, char **argv)
{
    CUdevice dev;
    const char *mode = argc > 1 ? argv[1] : "";
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    int rc;
    if (!strcmp(mode, "reset_v1") || !strcmp(mode, "destroy_v1") || !strcmp(mode, "release_v1")) {
        rc = context_end(mode, dev);
    } else if (!strcmp(mode, "shared")) {
        rc = shared(dev);
    } else if (!strcmp(mode, "dead_stream")) {
        rc = dead_stream(dev);
    } else if (!strcmp(mode, "capture") || !strcmp(mode, "capture_relaxed")) {
        rc = capture(dev, mode[7] != 0);
    } else if (!strcmp(mode, "mix")) {
        rc = mix(dev);
    } else if (!strcmp(mode, "two_ctx")) {
        rc = two_ctx(dev);
    } else {
        fprintf(stderr, "holds: unknown mode '%s'\n", mode);
        return 2;
    }
    printf("holds %s: ok\n", mode);
    return rc;
}
