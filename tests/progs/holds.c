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
 *     used from 2 threads each (legacy_k, blocking_k, 20 launches each, synchronized). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cuda.h>

/* cuda.h maps these names to their latest versions; the driver still exports the first ones. */
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxRelease
#undef cuCtxDestroy
CUresult cuDevicePrimaryCtxReset(CUdevice dev);
CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult cuCtxDestroy(CUcontext ctx);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);

#define CK(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: error %d\n", __FILE__, __LINE__, #call, (int)r_);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

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
    } else {
        fprintf(stderr, "holds: unknown mode '%s'\n", mode);
        return 2;
    }
    printf("holds %s: ok\n", mode);
    return rc;
}
