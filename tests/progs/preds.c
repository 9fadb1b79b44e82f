/* preds.c: driver-API launches behind every kind of predecessor libkprof tells apart (a kernel, HtoD, DtoH,
 * DtoD, a memset, an event wait, a host function), each kernel named for its predecessor, so that a test
 * can check that the hand-off the fake GPU adds (FAKEGPU_HANDOFF_NS) is taken off exactly.  Other modes,
 * one per argument: "lazy" (first launches of kernels not loaded yet: FAKEGPU_LAZY_LOAD_NS), "short" and
 * "long" (20 back-to-back launches of a kernel whose length libkprof already knows), "cond" (a graph
 * with a kernel node and a WHILE conditional node whose body holds another kernel, launched 4 times),
 * "reload" (a module unloaded and another loaded, whose kernel may get the first one's handle), "idle"
 * (idle_k launched 10 times on an idle stream, each waited for; then a launch that fails, bad_k with a
 * grid of 0, and a synchronize, which waits for ever on a real GPU if libkprof left a hold in place),
 * "legacy" (legacy_k 5 times on the legacy default stream, each waited for; one launch of blocking_k on a
 * blocking stream; legacy_k 5 times more), "marks" (mark_k launched 10 times back to back, each followed by
 * an event record of the app's), "mixed" (two threads, one on the legacy default stream and one on a
 * blocking stream, each launching while the other is inside a slow launch: FAKEGPU_LAUNCH_SLEEP_US=slow=us;
 * bslow_k then leg_k, lslow_k then blk_k, and bslow_k behind blong_k, so that it may start at blong_k's
 * stop, then leg_k; the blocking stream may have the handle of a non-blocking one destroyed before),
 * "apimix" (16 launches of fast_k and 5 of slow_k, for the api table's median: FAKEGPU_LAUNCH_SLEEP_US),
 * "beside" (beside_k on an idle stream while long_k may still run on another, then once it is done),
 * "shapes" (shape_k launched 40 times with 1 block and 40 times with 4096, alternating, each waited for,
 * then copy_k 20 times behind a 4 KiB HtoD copy, each waited for), "manyshapes" (shape_k with 12 grids of
 * 64 to 768 blocks in turn, 20 rounds, each launch waited for), "idlecopy" (copy_k with 4096 blocks 8
 * times on an idle stream, then 40 times behind a 4 KiB HtoD copy, each waited for), "lateshape" (shape_k
 * with 30 grids of 64 to 1920 blocks 20 times each, then 100000 times with 1920 blocks, then 100 times
 * with 100000 blocks: a shape new to the kernel late in the run, past its words for the draw of holds; each
 * launch waited for), "pastwords" (shape_k with 30 grids of 64 to 1920 blocks in turn, 10 rounds, each
 * launch waited for: 6 shapes past the kernel's 24 words for the draw), "manypast" (the same with 1000
 * grids of 64 to 64000 blocks, 3 rounds), "twogrids" (mix_k with 1200 blocks 8 times, then with 1 block 8 times, 200 rounds,
 * each launch waited for), "growing" (growing()), "memset2d" (after_memset2d launched 5 times, each behind lead and a 2D memset of 64
 * rows of 64 bytes, 128 bytes apart), "htodbeside" (5 rounds: near_k on one stream as a 4 MiB HtoD copy
 * begins on another, then far_k once the copy has ended; each round waited for), "htodbesidesmall" (the
 * same with 64 KiB copies), "htodbesidefirst" (as htodbeside after one launch of far_k on near_k's stream,
 * waited for: libkprof meets that stream first, so reads its pairs before the copies'), "htodbesidemany"
 * (65 copies of 4 MiB back to back on one stream, near_k on another as the first begins, far_k after the
 * last: the copies' stream met first), "htodbesidedeep" (17 copies, near_k as the 17th begins, its stream
 * met first), "htodbesidegraph" (as htodbeside with a one-node graph of graph_k for near_k, 5 rounds, then
 * 5 rounds of the graph with no copy), "graphthen" (a one-node graph of graph_k launched twice, then short_k),
 * "failfirst" (fail_k's first launch fails, then 5 succeed), "twos" (pair_k 400 times in twos, each two waited for, then a 200 us
 * nap: the first of two on an idle stream, the second on a stream still busy with the first), "params"
 * (kernels with C++ names, so that libkprof can count their parameters: busy_k(Blob) behind lead 5 times
 * back to back, then idle_k(Blob) 10 times on an idle stream, each waited for), "paced" (idle_k 400 times
 * on an idle stream, each waited for, then a 50 us nap: an eager decode loop's host time between
 * kernels), "roundrobin" (idle_k on 8 streams in turn, 100 rounds, each launch waited for, then a 50 us
 * nap), "filling" (kernels of 8 and 4 streams at once, some filling the device: filling()), "fillprio" (the
 * same on 2 streams of different priorities: fillprio()), "fill64" and "fill100" (fillmany()), "jitter" (idle_k 400 times, each waited for, then naps of 200 and 10 us in turn, and one of 20 ms
 * after the 200th), "stall" (40 rounds, each waited for, then a 200 us nap: lead_k, then behind it stall_k in odd
 * rounds, plain_k in even ones; FAKEGPU_LAUNCH_SLEEP_US=stall_k=us makes stall_k's launch call take that long
 * before its kernel is queued, as a thread descheduled or waiting on a driver lock inside the call). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <cuda.h>
#include "drvprog.h"


static CUmodule mod;

static CUfunction fn(const char *name)
{
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, name));
    return f;
}

static void launch(CUfunction f, CUstream s)
{
    CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
}

static void nothing(void *data)
{
    (void)data;
}

static int preds(CUstream s, CUstream other)
{
    CUdeviceptr d, d2;
    void *h;
    CUevent e;
    CK(cuMemAlloc(&d, 4096));
    CK(cuMemAlloc(&d2, 4096));
    CK(cuMemAllocHost(&h, 4096));
    CK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    CUfunction lead = fn("lead"), k = fn("after_kernel"), htod = fn("after_htod"), dtoh = fn("after_dtoh"),
               dtod = fn("after_dtod"), ms = fn("after_memset"), wait = fn("after_wait"), hf = fn("after_hostfn");
    for (int i = 0; i < 5; i++) {
        launch(lead, s);
        launch(k, s);
        CK(cuMemcpyHtoDAsync(d, h, 4096, s));
        launch(htod, s);
        CK(cuMemcpyDtoHAsync(h, d, 4096, s));
        launch(dtoh, s);
        CK(cuMemcpyDtoDAsync(d2, d, 4096, s));
        launch(dtod, s);
        CK(cuMemsetD8Async(d, 0, 4096, s));
        launch(ms, s);
        launch(lead, other);
        CK(cuEventRecord(e, other));
        CK(cuStreamWaitEvent(s, e, 0));
        launch(wait, s);
        CK(cuLaunchHostFunc(s, nothing, NULL));
        launch(hf, s);
    }
    CK(cuCtxSynchronize());
    return 0;
}

static int memset2d(CUstream s)
{
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 128 * 64));
    CUfunction lead = fn("lead"), after = fn("after_memset2d");
    for (int i = 0; i < 5; i++) {
        launch(lead, s);
        CK(cuMemsetD2D8Async(d, 128, (unsigned char)i, 64, 64, s));
        launch(after, s);
    }
    CK(cuCtxSynchronize());
    CK(cuMemFree(d));
    return 0;
}

static int lazy(CUstream s)
{
    /* Three kernels, each launched three times: their first launches load them. */
    const char *names[] = { "lazy_a", "lazy_b", "lazy_c" };
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            launch(fn(names[k]), s);
    CK(cuCtxSynchronize());
    return 0;
}

static int back_to_back(CUstream s, const char *name)
{
    CUfunction f = fn(name);
    launch(f, s);
    CK(cuCtxSynchronize());
    usleep(300000); /* libkprof's harvester reads that launch: the kernel's length is known from here on */
    for (int i = 0; i < 20; i++)
        launch(f, s);
    CK(cuCtxSynchronize());
    return 0;
}

/* A kernel node's parameters: function `name`, one block of 32 threads, no arguments. */
static CUDA_KERNEL_NODE_PARAMS one_block(const char *name)
{
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = fn(name);
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 32;
    kp.blockDimY = kp.blockDimZ = 1;
    return kp;
}

static int cond(CUstream s)
{
    CUgraph g, body;
    CUgraphNode kn, cn;
    CUgraphConditionalHandle handle;
    CUcontext ctx;
    CK(cuCtxGetCurrent(&ctx));
    CK(cuGraphCreate(&g, 0));
    CUDA_KERNEL_NODE_PARAMS kp = one_block("node_plain");
    CK(cuGraphAddKernelNode(&kn, g, NULL, 0, &kp));
    CK(cuGraphConditionalHandleCreate(&handle, g, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
    CUgraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    cp.conditional.handle = handle;
    cp.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
    cp.conditional.size = 1;
    cp.conditional.ctx = ctx;
    CK(cuGraphAddNode(&cn, g, &kn, NULL, 1, &cp));
    body = cp.conditional.phGraph_out[0]; /* the driver's array of the node's body graphs */
    kp.func = fn("node_in_body");
    CUgraphNode bn;
    CK(cuGraphAddKernelNode(&bn, body, NULL, 0, &kp));
    CUgraphExec exec;
    CK(cuGraphInstantiate(&exec, g, 0));
    for (int i = 0; i < 4; i++)
        CK(cuGraphLaunch(exec, s));
    CK(cuCtxSynchronize());
    return 0;
}

static int idle(CUstream s)
{
    CUfunction f = fn("idle_k");
    for (int i = 0; i < 10; i++) {
        launch(f, s);
        CK(cuStreamSynchronize(s));
    }
    if (cuLaunchKernel(fn("bad_k"), 0, 1, 1, 32, 1, 1, 0, s, NULL, NULL) == CUDA_SUCCESS)
        return 1;
    CK(cuStreamSynchronize(s));
    launch(f, s);
    CK(cuStreamSynchronize(s));
    return 0;
}

/* "paced": idle_k launched 400 times, each waited for, then a 50 us nap (on the virtual host clock as
 * well), in which libkprof's harvesting thread may read its pair; "jitter" (jitter set): naps of 200 us
 * and 10 us in turn, 20 ms after the 200th, host times between launches that vary as a program's steps do. */
static int paced(CUstream s, int jitter)
{
    CUfunction f = fn("idle_k");
    for (int i = 0; i < 400; i++) {
        launch(f, s);
        CK(cuStreamSynchronize(s));
        long ns = !jitter ? 50000 : i == 199 ? 20000000 : i % 2 ? 10000 : 200000;
        struct timespec nap = { ns / 1000000000, ns % 1000000000 };
        nanosleep(&nap, NULL);
    }
    return 0;
}

/* "decode": an eager decode loop's pace, 2000 steps of dk0 to dk7 (grids of 8 to 64 blocks) launched
 * back to back with host time between them, the step waited for at its end (a token read back): the
 * stream now idle at a launch, now still busy with the one before.  The naps after each launch are drawn
 * between PREDS_NAPS_NS="MIN/MAX" ns (default 1000/4000; the same draws each run); PREDS_STEPS steps
 * (default 2000). */
static int decode(CUstream s)
{
    const char *e = getenv("PREDS_NAPS_NS");
    unsigned long lo = 1000, hi = 4000;
    if (e && (sscanf(e, "%lu/%lu", &lo, &hi) != 2 || hi < lo))
        lo = 1000, hi = 4000;
    CUfunction f[8];
    char name[8];
    for (int j = 0; j < 8; j++) {
        snprintf(name, sizeof name, "dk%d", j);
        f[j] = fn(name);
    }
    const char *st = getenv("PREDS_STEPS");
    int steps = st && atoi(st) > 0 ? atoi(st) : 2000;
    unsigned seed = 1;
    for (int step = 0; step < steps; step++) {
        for (int j = 0; j < 8; j++) {
            CK(cuLaunchKernel(f[j], 8 * (j + 1), 1, 1, 32, 1, 1, 0, s, NULL, NULL));
            struct timespec nap = { 0, (long)(lo + (unsigned long)rand_r(&seed) % (hi - lo + 1)) };
            nanosleep(&nap, NULL);
        }
        CK(cuStreamSynchronize(s));
    }
    return 0;
}

/* "roundrobin": idle_k on 8 streams in turn, 100 rounds, each launch waited for, then a 50 us nap: each
 * stream idle at its launches, its last pair read meanwhile. */
static int roundrobin(void)
{
    CUfunction f = fn("idle_k");
    CUstream ss[8];
    for (int i = 0; i < 8; i++)
        CK(cuStreamCreate(&ss[i], CU_STREAM_NON_BLOCKING));
    for (int r = 0; r < 100; r++)
        for (int i = 0; i < 8; i++) {
            launch(f, ss[i]);
            CK(cuStreamSynchronize(ss[i]));
            struct timespec nap = { 0, 50000 };
            nanosleep(&nap, NULL);
        }
    return 0;
}

/* "filling": kernels of several streams at once, as the accuracy suite's concurrent_streams launches them
 * (FAKEGPU_SM_SHARING): small_k (one block) on 8 streams in turn, 40 rounds, side by side; fill_k (264
 * blocks of 1024 threads: the fake's 132 SMs full) on 4 streams in turn, 40 rounds, one at a time; long_k
 * (one block) on the first stream while the other 7 launch small_k 20 times each beside it.  A context
 * synchronisation after each part. */
static int filling(void)
{
    CUfunction small = fn("small_k"), fill = fn("fill_k"), lng = fn("long_k");
    CUstream ss[8];
    for (int i = 0; i < 8; i++)
        CK(cuStreamCreate(&ss[i], CU_STREAM_NON_BLOCKING));
    for (int r = 0; r < 40; r++)
        for (int i = 0; i < 8; i++)
            launch(small, ss[i]);
    CK(cuCtxSynchronize());
    for (int r = 0; r < 40; r++)
        for (int i = 0; i < 4; i++)
            CK(cuLaunchKernel(fill, 264, 1, 1, 1024, 1, 1, 0, ss[i], NULL, NULL));
    CK(cuCtxSynchronize());
    launch(lng, ss[0]);
    for (int r = 0; r < 20; r++)
        for (int i = 1; i < 8; i++)
            launch(small, ss[i]);
    CK(cuCtxSynchronize());
    return 0;
}

/* "fill64", "fill100": fill_k on 64 streams in turn, 40 rounds, and on 100 streams, 10 rounds: chains of
 * 63 and 99 kernels of other streams to wait for (FAKEGPU_SM_SHARING). */
static int fillmany(int n, int rounds)
{
    CUfunction fill = fn("fill_k");
    CUstream ss[100];
    for (int i = 0; i < n; i++)
        CK(cuStreamCreate(&ss[i], CU_STREAM_NON_BLOCKING));
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++)
            CK(cuLaunchKernel(fill, 264, 1, 1, 1024, 1, 1, 0, ss[i], NULL, NULL));
    CK(cuCtxSynchronize());
    return 0;
}

/* "fillprio": fill_k on 2 streams in turn, 40 rounds, the second of higher priority (-1): its kernels take
 * the SMs as the other's free them (FAKEGPU_SM_SHARING), and wait for none. */
static int fillprio(void)
{
    CUfunction fill = fn("fill_k");
    CUstream ss[2];
    CK(cuStreamCreateWithPriority(&ss[0], CU_STREAM_NON_BLOCKING, 0));
    CK(cuStreamCreateWithPriority(&ss[1], CU_STREAM_NON_BLOCKING, -1));
    for (int r = 0; r < 40; r++)
        for (int i = 0; i < 2; i++)
            CK(cuLaunchKernel(fill, 264, 1, 1, 1024, 1, 1, 0, ss[i], NULL, NULL));
    CK(cuCtxSynchronize());
    return 0;
}

/* "params": busy_k(Blob) and idle_k(Blob), as their mangled names say (one parameter each, its size the
 * fake's FAKEGPU_PARAM_BYTES). */
static int params(CUstream s)
{
    CUfunction lead = fn("lead"), busy = fn("_Z6busy_k4Blob"), idle = fn("_Z6idle_k4Blob");
    for (int i = 0; i < 5; i++) {
        launch(lead, s);
        launch(busy, s);
    }
    CK(cuCtxSynchronize());
    for (int i = 0; i < 10; i++) {
        launch(idle, s);
        CK(cuStreamSynchronize(s));
    }
    return 0;
}

/* "twos": pair_k launched 400 times in twos, each two waited for, then a 200 us nap: the first of two
 * finds its stream idle, the second finds it busy with the first's kernel (when that outlasts a launch
 * call). */
static int twos(CUstream s)
{
    CUfunction f = fn("pair_k");
    for (int i = 0; i < 200; i++) {
        launch(f, s);
        launch(f, s);
        CK(cuStreamSynchronize(s));
        /* lets libkprof's harvesting thread read the pairs (and learn the kernel's mean); on the virtual
         * host clock (tests/fake/hostclock.c) 200 us pass as well */
        struct timespec nap = { 0, 200000 };
        nanosleep(&nap, NULL);
    }
    return 0;
}

static int stall(CUstream s)
{
    CUfunction lead = fn("lead_k"), stalled = fn("stall_k"), plain = fn("plain_k");
    for (int i = 0; i < 40; i++) {
        launch(lead, s);
        launch(i % 2 ? stalled : plain, s);
        CK(cuStreamSynchronize(s));
        struct timespec nap = { 0, 200000 };
        nanosleep(&nap, NULL);
    }
    return 0;
}

static int shapes(CUstream s)
{
    CUfunction f = fn("shape_k"), g = fn("copy_k");
    for (int i = 0; i < 80; i++) {
        CK(cuLaunchKernel(f, i % 2 ? 4096 : 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
    static char host[4096];
    CUdeviceptr d;
    CK(cuMemAlloc(&d, sizeof host));
    for (int i = 0; i < 20; i++) {
        CK(cuMemcpyHtoDAsync(d, host, sizeof host, s));
        launch(g, s);
        CK(cuStreamSynchronize(s));
    }
    CK(cuMemFree(d));
    return 0;
}

/* f launched `shapes` grids of 64 to shapes x 64 blocks in turn, 20 rounds, each launch waited for. */
static void rounds_of_shapes(CUfunction f, unsigned shapes, CUstream s)
{
    for (int round = 0; round < 20; round++)
        for (unsigned g = 1; g <= shapes; g++) {
            CK(cuLaunchKernel(f, g * 64, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
            CK(cuStreamSynchronize(s));
        }
}

static int manyshapes(CUstream s)
{
    rounds_of_shapes(fn("shape_k"), 12, s);
    return 0;
}

/* "twogrids": mix_k launched 8 times with 1200 blocks, then 8 times with 1 block, 200 rounds, each launch
 * waited for. */
static int twogrids(CUstream s)
{
    CUfunction f = fn("mix_k");
    for (int round = 0; round < 200; round++)
        for (int i = 0; i < 16; i++) {
            CK(cuLaunchKernel(f, i < 8 ? 1200 : 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
            CK(cuStreamSynchronize(s));
        }
    return 0;
}

/* "growing": grow_k on an idle stream, 600 rounds of a launch with 8 blocks and one with a grid that grows
 * by 64 blocks every 40 rounds (15 shapes, as an eager decode loop's kernels over its growing cache), each
 * launch waited for, then a 50 us nap. */
static int growing(CUstream s)
{
    CUfunction f = fn("grow_k");
    for (int round = 0; round < 600; round++)
        for (int i = 0; i < 2; i++) {
            CK(cuLaunchKernel(f, i ? 64 * (1 + round / 40) : 8, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
            CK(cuStreamSynchronize(s));
            struct timespec nap = { 0, 50000 };
            nanosleep(&nap, NULL);
        }
    return 0;
}

/* "pastwords": shape_k with 30 grids of 64 to 1920 blocks in turn, 10 rounds, each launch waited for:
 * the last 6 shapes past the kernel's 24 words for the draw of holds.  "manypast": 1000 grids of 64 to
 * 64000 blocks in turn, 3 rounds. */
static int pastwords(CUstream s, unsigned shapes, int rounds)
{
    CUfunction f = fn("shape_k");
    for (int round = 0; round < rounds; round++)
        for (unsigned g = 1; g <= shapes; g++) {
            CK(cuLaunchKernel(f, g * 64, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
            CK(cuStreamSynchronize(s));
        }
    return 0;
}

static int lateshape(CUstream s)
{
    CUfunction f = fn("shape_k");
    rounds_of_shapes(f, 30, s);
    for (int i = 0; i < 100100; i++) {
        CK(cuLaunchKernel(f, i < 100000 ? 1920 : 100000, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
    return 0;
}

static int idlecopy(CUstream s)
{
    CUfunction f = fn("copy_k");
    static char host[4096];
    CUdeviceptr d;
    CK(cuMemAlloc(&d, sizeof host));
    for (int i = 0; i < 48; i++) {
        if (i >= 8)
            CK(cuMemcpyHtoDAsync(d, host, sizeof host, s));
        CK(cuLaunchKernel(f, 4096, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
        CK(cuStreamSynchronize(s));
    }
    CK(cuMemFree(d));
    return 0;
}

static int legacy(void)
{
    CUfunction f = fn("legacy_k");
    CUstream blocking;
    CK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 5; i++) {
            launch(f, NULL);
            CK(cuStreamSynchronize(NULL));
        }
        if (round == 0) {
            launch(fn("blocking_k"), blocking);
            CK(cuStreamSynchronize(blocking));
        }
    }
    return 0;
}

/* One launch of kernel name on stream s, after waiting ms milliseconds, then a synchronize of s. */
struct late {
    CUcontext ctx;
    const char *name;
    CUstream s;
    unsigned ms;
    const char *before; /* launched on s just before name, or NULL */
};

static void *late_launch(void *arg)
{
    struct late *l = arg;
    CK(cuCtxSetCurrent(l->ctx));
    usleep(l->ms * 1000u);
    if (l->before)
        launch(fn(l->before), l->s);
    launch(fn(l->name), l->s);
    CK(cuStreamSynchronize(l->s));
    return NULL;
}

/* Each pair of launches races: the first launch's kernel name contains "slow" (its launch takes host time
 * under FAKEGPU_LAUNCH_SLEEP_US), the second is launched by another thread meanwhile on a stream that
 * synchronises with the first's (the legacy default stream and a blocking stream). */
static int mixed(void)
{
    CUstream blocking;
    CUcontext ctx;
    CK(cuCtxGetCurrent(&ctx));
    /* A non-blocking stream first, destroyed: the blocking one may get its handle (a real driver's
     * handles are reused memory; FAKEGPU_REUSE_STREAM_HANDLE=1 on the fake). */
    CUstream gone;
    CK(cuStreamCreate(&gone, CU_STREAM_NON_BLOCKING));
    launch(fn("nb_k"), gone);
    CK(cuStreamSynchronize(gone));
    CK(cuStreamDestroy(gone));
    CK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    if (blocking == gone)
        printf("preds mixed: stream handle reused\n");
    launch(fn("leg_k"), NULL); /* both streams timed once: libkprof knows they synchronise */
    launch(fn("blk_k"), blocking);
    CK(cuCtxSynchronize());
    struct late race[3] = { { ctx, "bslow_k", blocking, 0, NULL }, { ctx, "lslow_k", NULL, 0, NULL },
                            { ctx, "bslow_k", blocking, 0, "blong_k" } };
    struct late other[3] = { { ctx, "leg_k", NULL, 20, NULL }, { ctx, "blk_k", blocking, 20, NULL },
                             { ctx, "leg_k", NULL, 20, NULL } };
    for (int i = 0; i < 3; i++) {
        pthread_t a, b;
        pthread_create(&a, NULL, late_launch, &race[i]);
        pthread_create(&b, NULL, late_launch, &other[i]);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        CK(cuCtxSynchronize());
    }
    return 0;
}

static int apimix(CUstream s)
{
    for (int i = 0; i < 21; i++)
        launch(fn(i % 4 == 3 ? "slow_k" : "fast_k"), s);
    CK(cuCtxSynchronize());
    return 0;
}

static int marks(CUstream s)
{
    CUfunction f = fn("mark_k");
    CUevent e;
    CK(cuEventCreate(&e, 0));
    for (int i = 0; i < 10; i++) {
        launch(f, s);
        CK(cuEventRecord(e, s));
    }
    CK(cuCtxSynchronize());
    return 0;
}

/* long_k on `other`, then beside_k 5 times on s (each waited for) while long_k may still run, then
 * beside_k 3 times more once `other` has been waited for. */
static int beside(CUstream s, CUstream other)
{
    CUfunction l = fn("long_k"), b = fn("beside_k");
    launch(l, other);
    for (int i = 0; i < 5; i++) {
        launch(b, s);
        CK(cuStreamSynchronize(s));
    }
    CK(cuStreamSynchronize(other));
    for (int i = 0; i < 3; i++) {
        launch(b, s);
        CK(cuStreamSynchronize(s));
    }
    return 0;
}

static int reload(CUstream s)
{
    CUfunction a = fn("reloaded_a");
    launch(a, s);
    launch(a, s);
    CK(cuCtxSynchronize());
    CK(cuModuleUnload(mod));
    CK(cuModuleLoadData(&mod, "another fake module"));
    CUfunction b = fn("reloaded_b");
    for (int i = 0; i < 3; i++)
        launch(b, s);
    CK(cuCtxSynchronize());
    if (a == b)
        printf("preds reload: handle reused\n");
    return 0;
}

static int htodbeside(CUstream s, CUstream other, size_t bytes, int first)
{
    static char host[4 << 20];
    CUdeviceptr d;
    CUevent mark, before, after;
    CUfunction near = fn("near_k"), far = fn("far_k");
    CK(cuMemAlloc(&d, bytes));
    CK(cuEventCreate(&mark, CU_EVENT_DISABLE_TIMING));
    CK(cuEventCreate(&before, CU_EVENT_DISABLE_TIMING));
    CK(cuEventCreate(&after, CU_EVENT_DISABLE_TIMING));
    if (first) {
        launch(far, s);
        CK(cuCtxSynchronize());
    }
    for (int i = 0; i < 5; i++) {
        CK(cuEventRecord(mark, s)); /* the copy begins no earlier than s's work so far */
        CK(cuStreamWaitEvent(other, mark, 0));
        CK(cuEventRecord(before, other));
        CK(cuMemcpyHtoDAsync(d, host, bytes, other));
        CK(cuEventRecord(after, other));
        CK(cuStreamWaitEvent(s, before, 0));
        launch(near, s);
        CK(cuStreamWaitEvent(s, after, 0));
        launch(far, s);
        CK(cuCtxSynchronize());
    }
    CK(cuMemFree(d));
    return 0;
}

/* n copies of 4 MiB on other, near_k on s as copy k begins, far_k once the last has ended; s's queue made
 * first (sfirst) or the copies' (a small copy first). */
static int htodbesidemany(CUstream s, CUstream other, int n, int k, int sfirst)
{
    static char host[4 << 20];
    CUdeviceptr d;
    CUevent mark, before, after;
    CUfunction near = fn("near_k"), far = fn("far_k");
    CK(cuMemAlloc(&d, sizeof host));
    CK(cuEventCreate(&mark, CU_EVENT_DISABLE_TIMING));
    CK(cuEventCreate(&before, CU_EVENT_DISABLE_TIMING));
    CK(cuEventCreate(&after, CU_EVENT_DISABLE_TIMING));
    if (sfirst)
        launch(far, s);
    else
        CK(cuMemcpyHtoDAsync(d, host, 4096, other));
    CK(cuCtxSynchronize());
    CK(cuEventRecord(mark, s));
    CK(cuStreamWaitEvent(other, mark, 0));
    for (int i = 0; i < n; i++) {
        if (i == k)
            CK(cuEventRecord(before, other));
        CK(cuMemcpyHtoDAsync(d, host, sizeof host, other));
        if (i == k) {
            CK(cuStreamWaitEvent(s, before, 0));
            launch(near, s);
        }
    }
    CK(cuEventRecord(after, other));
    CK(cuStreamWaitEvent(s, after, 0));
    launch(far, s);
    CK(cuCtxSynchronize());
    CK(cuMemFree(d));
    return 0;
}

/* An executable graph of one node, kernel `name` with one block. */
static CUgraphExec one_node_graph(const char *name)
{
    CUgraph g;
    CUgraphNode kn;
    CUgraphExec exec;
    CUDA_KERNEL_NODE_PARAMS kp = one_block(name);
    CK(cuGraphCreate(&g, 0));
    CK(cuGraphAddKernelNode(&kn, g, NULL, 0, &kp));
    CK(cuGraphInstantiate(&exec, g, 0));
    return exec;
}

/* A one-node graph of graph_k on s as a 4 MiB copy begins on other, 5 rounds, then 5 with no copy. */
static int htodbesidegraph(CUstream s, CUstream other)
{
    static char host[4 << 20];
    CUdeviceptr d;
    CUevent mark, before;
    CUgraphExec exec = one_node_graph("graph_k");
    CK(cuMemAlloc(&d, sizeof host));
    CK(cuEventCreate(&mark, CU_EVENT_DISABLE_TIMING));
    CK(cuEventCreate(&before, CU_EVENT_DISABLE_TIMING));
    for (int i = 0; i < 10; i++) {
        CK(cuEventRecord(mark, s));
        CK(cuStreamWaitEvent(other, mark, 0));
        CK(cuEventRecord(before, other));
        if (i < 5)
            CK(cuMemcpyHtoDAsync(d, host, sizeof host, other));
        CK(cuStreamWaitEvent(s, before, 0));
        CK(cuGraphLaunch(exec, s));
        CK(cuCtxSynchronize());
    }
    CK(cuMemFree(d));
    return 0;
}

/* "graphthen": a one-node graph of graph_k launched twice on s, then short_k once, then a synchronize (under
 * KPROF_SAMPLE=N the second graph launch goes untimed: short_k must not start at the first one's stop). */
static int graphthen(CUstream s)
{
    CUgraphExec exec = one_node_graph("graph_k");
    CK(cuGraphLaunch(exec, s));
    CK(cuGraphLaunch(exec, s));
    launch(fn("short_k"), s);
    CK(cuCtxSynchronize());
    return 0;
}

/* "failfirst": fail_k's first launch fails (a block of 2048 threads), then 5 launches of 64 blocks of 128
 * succeed, then a synchronize. */
static int failfirst(CUstream s)
{
    CUfunction f = fn("fail_k");
    if (cuLaunchKernel(f, 64, 1, 1, 2048, 1, 1, 0, s, NULL, NULL) == CUDA_SUCCESS)
        return 1;
    for (int i = 0; i < 5; i++)
        CK(cuLaunchKernel(f, 64, 1, 1, 128, 1, 1, 0, s, NULL, NULL));
    CK(cuCtxSynchronize());
    return 0;
}

/* "crossdestroy": a stream of this context destroyed while another device's context is current (as CUDA
 * allows), then a stream made here again (FAKEGPU_REUSE_STREAM_HANDLE=1 gives it the same handle) and a
 * kernel launched on each.  FAKEGPU_DEVICES=2. */
static int crossdestroy(CUcontext ctx)
{
    CUfunction f = fn("cross_k");
    CUdevice dev1;
    CUcontext other;
    CUstream a, b;
    CK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    launch(f, a);
    CK(cuStreamSynchronize(a));
    CK(cuDeviceGet(&dev1, 1));
    CK(cuDevicePrimaryCtxRetain(&other, dev1));
    if (!getenv("PREDS_SAME_CONTEXT")) /* the same destruction with this context current, for comparison */
        CK(cuCtxSetCurrent(other));
    CK(cuStreamDestroy(a));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    launch(f, b);
    CK(cuStreamSynchronize(b));
    printf("preds crossdestroy: the second stream %s the first's handle\n", a == b ? "has" : "has not");
    return 0;
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUstream s, other;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoadData(&mod, "fake module"));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    const char *mode = argc > 1 ? argv[1] : "preds";
    int rc = !strcmp(mode, "lazy") ? lazy(s)
             : !strcmp(mode, "short") || !strcmp(mode, "long") ? back_to_back(s, mode)
             : !strcmp(mode, "cond") ? cond(s)
             : !strcmp(mode, "reload") ? reload(s)
             : !strcmp(mode, "idle") ? idle(s)
             : !strcmp(mode, "legacy") ? legacy()
             : !strcmp(mode, "marks") ? marks(s)
             : !strcmp(mode, "mixed") ? mixed()
             : !strcmp(mode, "apimix") ? apimix(s)
             : !strcmp(mode, "beside") ? beside(s, other)
             : !strcmp(mode, "shapes") ? shapes(s)
             : !strcmp(mode, "twos") ? twos(s)
             : !strcmp(mode, "stall") ? stall(s)
             : !strcmp(mode, "params") ? params(s)
             : !strcmp(mode, "paced") ? paced(s, 0)
             : !strcmp(mode, "roundrobin") ? roundrobin()
             : !strcmp(mode, "filling") ? filling()
             : !strcmp(mode, "fillprio") ? fillprio()
             : !strcmp(mode, "fill64") ? fillmany(64, 40)
             : !strcmp(mode, "fill100") ? fillmany(100, 10)
             : !strcmp(mode, "decode") ? decode(s)
             : !strcmp(mode, "jitter") ? paced(s, 1)
             : !strcmp(mode, "manyshapes") ? manyshapes(s)
             : !strcmp(mode, "twogrids") ? twogrids(s)
             : !strcmp(mode, "growing") ? growing(s)
             : !strcmp(mode, "idlecopy") ? idlecopy(s)
             : !strcmp(mode, "lateshape") ? lateshape(s)
             : !strcmp(mode, "pastwords") ? pastwords(s, 30, 10)
             : !strcmp(mode, "manypast") ? pastwords(s, 1000, 3)
             : !strcmp(mode, "memset2d") ? memset2d(s)
             : !strcmp(mode, "htodbeside") ? htodbeside(s, other, 4 << 20, 0)
             : !strcmp(mode, "htodbesidesmall") ? htodbeside(s, other, 1 << 16, 0)
             : !strcmp(mode, "htodbesidefirst") ? htodbeside(s, other, 4 << 20, 1)
             : !strcmp(mode, "htodbesidemany") ? htodbesidemany(s, other, 65, 0, 0)
             : !strcmp(mode, "htodbesidedeep") ? htodbesidemany(s, other, 17, 16, 1)
             : !strcmp(mode, "htodbesidegraph") ? htodbesidegraph(s, other)
             : !strcmp(mode, "crossdestroy") ? crossdestroy(ctx)
             : !strcmp(mode, "graphthen") ? graphthen(s)
             : !strcmp(mode, "failfirst") ? failfirst(s)
                                     : preds(s, other);
    printf("preds %s: ok\n", mode);
    return rc;
}
