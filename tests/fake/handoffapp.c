/* handoffapp.c: times kernels with event pairs on one stream behind each kind of predecessor, lazily loaded
 * kernels, libkprof's kprof_calibrate kernel and conditional graph nodes, against the fake driver, and prints
 * one "label value" line each (ns) for fake-handoff.sh to compare. Exit status 1 when a call fails. */
#include <cuda.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CK(call) check((call), #call, __LINE__)

static void check(CUresult rc, const char *what, int line)
{
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "handoffapp:%d: %s answered %d\n", line, what, (int)rc);
        failures++;
    }
}

static CUstream s;
static CUevent a, b;

/* GPU time between two event records around whatever launch() puts on s, in ns. */
static long long pair(void (*launch)(void *), void *arg)
{
    float ms = 0;

    CK(cuEventRecord(a, s));
    launch(arg);
    CK(cuEventRecord(b, s));
    CK(cuEventSynchronize(b));
    CK(cuEventElapsedTime(&ms, a, b));
    return llround((double)ms * 1e6);
}

static void launch_fn(void *f)
{
    CK(cuLaunchKernel((CUfunction)f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
}

static void launch_graph(void *x)
{
    CK(cuGraphLaunch((CUgraphExec)x, s));
}

static unsigned long long calib_ns = 5000;
static CUdeviceptr calib_out;

static void launch_calib(void *f)
{
    void *params[] = { &calib_ns, &calib_out };

    CK(cuLaunchKernel((CUfunction)f, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
}

static void print(const char *label, long long v)
{
    printf("%s %lld\n", label, v);
}

/* A graph with one conditional node of type t (size bodies, default value v), each body one kernel. */
static CUgraphExec cond_graph(CUmodule mod, CUgraphConditionalNodeType t, unsigned size, unsigned v, CUgraph *out)
{
    CUgraph gr;
    CUgraphConditionalHandle h;
    CUgraphNodeParams p;
    CUgraphNode node, kn;
    CUgraphExec x = NULL;

    CK(cuGraphCreate(&gr, 0));
    CK(cuGraphConditionalHandleCreate(&h, gr, NULL, v, CU_GRAPH_COND_ASSIGN_DEFAULT));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = h;
    p.conditional.type = t;
    p.conditional.size = size;
    CK(cuGraphAddNode(&node, gr, NULL, NULL, 0, &p));
    for (unsigned i = 0; i < size && p.conditional.phGraph_out; i++) {
        char name[32];
        CUfunction f;
        CUDA_KERNEL_NODE_PARAMS kp;

        snprintf(name, sizeof name, "body%u_kernel", i);
        CK(cuModuleGetFunction(&f, mod, name));
        memset(&kp, 0, sizeof kp);
        kp.func = f;
        kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
        kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
        CK(cuGraphAddKernelNode(&kn, p.conditional.phGraph_out[i], NULL, 0, &kp));
    }
    CK(cuGraphInstantiate(&x, gr, 0));
    *out = gr;
    return x;
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx, ctx2;
    CUmodule mod;
    CUfunction k, lazy, preloaded, calib, libfn;
    CUlibrary lib;
    CUkernel kern;
    CUfunctionLoadingState st;
    CUdeviceptr d;
    CUevent e;
    CUgraph gr, clone, cgr;
    CUgraphNode node, found;
    CUgraphNodeType type;
    CUgraphExec x;
    size_t n = 0;
    unsigned long long out[2], start1;
    char host[64], host2[64];

    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuEventCreate(&a, 0));
    CK(cuEventCreate(&b, 0));
    CK(cuEventCreate(&e, 0));
    CK(cuModuleLoadData(&mod, "image"));
    CK(cuModuleGetFunction(&k, mod, "app_kernel"));
    CK(cuMemAlloc(&d, 64));
    memset(host, 1, sizeof host);

    /* The first launch loads app_kernel; from then on, a synchronized stream is idle. */
    print("first-launch", pair(launch_fn, k));
    print("idle", pair(launch_fn, k));

    launch_fn(k);
    print("behind-kernel", pair(launch_fn, k));
    CK(cuMemcpyHtoDAsync(d, host, sizeof host, s));
    print("behind-htod", pair(launch_fn, k));
    CK(cuMemcpyDtoHAsync(host2, d, sizeof host2, s));
    print("behind-dtoh", pair(launch_fn, k));
    CK(cuMemcpyDtoDAsync(d + 32, d, 32, s));
    print("behind-dtod", pair(launch_fn, k));
    CK(cuMemcpyAsync((CUdeviceptr)host2, (CUdeviceptr)host, sizeof host, s)); /* HtoH counts as dtod */
    print("behind-htoh", pair(launch_fn, k));
    CK(cuMemsetD8Async(d, 0, 64, s));
    print("behind-memset", pair(launch_fn, k));
    CK(cuEventRecord(e, s));
    CK(cuStreamWaitEvent(s, e, 0));
    print("behind-wait", pair(launch_fn, k));

    /* An event recorded after the work and seen complete makes the stream idle; one recorded before does not. */
    launch_fn(k);
    CK(cuEventRecord(e, s));
    CK(cuEventQuery(e));
    print("after-query", pair(launch_fn, k));
    CK(cuEventRecord(e, s));
    launch_fn(k);
    CK(cuEventQuery(e));
    print("query-before-work", pair(launch_fn, k));
    launch_fn(k);
    CK(cuStreamQuery(s));
    print("after-stream-query", pair(launch_fn, k));
    launch_fn(k);
    CK(cuStreamSynchronize(s));
    print("after-stream-sync", pair(launch_fn, k));
    launch_fn(k);
    CK(cuCtxSynchronize());
    print("after-ctx-sync", pair(launch_fn, k));

    /* Lazy loading: per function and context, until launched or cuFuncLoad. */
    CK(cuModuleGetFunction(&lazy, mod, "lazy_kernel"));
    CK(cuFuncIsLoaded(&st, lazy));
    print("lazy-loaded-before", st);
    print("lazy-first", pair(launch_fn, lazy));
    CK(cuFuncIsLoaded(&st, lazy));
    print("lazy-loaded-after", st);
    print("lazy-second", pair(launch_fn, lazy));
    CK(cuModuleGetFunction(&preloaded, mod, "preloaded_kernel"));
    CK(cuFuncLoad(preloaded));
    CK(cuFuncIsLoaded(&st, preloaded));
    print("preloaded-loaded", st);
    print("preloaded-first", pair(launch_fn, preloaded));
    CK(cuLibraryLoadData(&lib, "image", NULL, NULL, 0, NULL, NULL, 0));
    CK(cuLibraryGetKernel(&kern, lib, "lib_kernel"));
    CK(cuKernelGetFunction(&libfn, kern));
    CK(cuFuncIsLoaded(&st, libfn));
    print("lib-loaded-before", st);
    print("lib-first", pair(launch_fn, libfn));
    CK(cuFuncIsLoaded(&st, (CUfunction)kern));
    print("lib-loaded-after", st);
    CK(cuLibraryUnload(lib));
    CK(cuCtxCreate(&ctx2, NULL, 0, dev));
    CK(cuFuncIsLoaded(&st, lazy));
    print("lazy-loaded-other-ctx", st);
    CK(cuCtxDestroy(ctx2));
    CK(cuCtxSetCurrent(ctx));

    /* kprof_calibrate: ns long, writes its start and start + ns - C0 to out. */
    CK(cuModuleGetFunction(&calib, mod, "kprof_calibrate"));
    CK(cuMemAlloc(&calib_out, sizeof out));
    CK(cuFuncLoad(calib));
    print("calib-idle", pair(launch_calib, calib));
    CK(cuMemcpyDtoH(out, calib_out, sizeof out));
    print("calib-span", (long long)(out[1] - out[0]));
    start1 = out[0];
    CK(cuMemsetD8Async(d, 0, 64, s));
    print("calib-behind-memset", pair(launch_calib, calib));
    CK(cuMemcpyDtoHAsync(out, calib_out, sizeof out, s));
    CK(cuStreamSynchronize(s));
    print("calib-span2", (long long)(out[1] - out[0]));
    print("calib-start-advanced", out[0] > start1);

    /* Graphs: a launch counts as kernel for what follows; conditional nodes run their bodies. */
    x = cond_graph(mod, CU_GRAPH_COND_TYPE_IF, 1, 1, &gr);
    print("if-true", pair(launch_graph, x));
    launch_graph(x);
    print("behind-graph", pair(launch_fn, k));
    CK(cuGraphGetNodes(gr, NULL, &n));
    print("if-nodes", (long long)n);
    n = 1;
    CK(cuGraphGetNodes(gr, &node, &n));
    CK(cuGraphNodeGetType(node, &type));
    print("if-node-type", type);
    CK(cuGraphClone(&clone, gr));
    CK(cuGraphNodeFindInClone(&found, node, clone));
    CK(cuGraphNodeGetType(found, &type));
    print("clone-node-type", type);
    print("clone-node-differs", found != node);
    print("find-in-non-clone", cuGraphNodeFindInClone(&found, node, gr));
    CK(cuGraphExecDestroy(x));
    CK(cuGraphDestroy(clone));
    CK(cuGraphDestroy(gr));
    CK(cuStreamSynchronize(s));

    x = cond_graph(mod, CU_GRAPH_COND_TYPE_IF, 2, 0, &cgr); /* else branch: body 1 */
    print("if-false-else", pair(launch_graph, x));
    CK(cuGraphExecDestroy(x));
    CK(cuGraphDestroy(cgr));
    x = cond_graph(mod, CU_GRAPH_COND_TYPE_IF, 1, 0, &cgr);
    print("if-false", pair(launch_graph, x));
    CK(cuGraphExecDestroy(x));
    CK(cuGraphDestroy(cgr));
    x = cond_graph(mod, CU_GRAPH_COND_TYPE_WHILE, 1, 1, &cgr);
    print("while", pair(launch_graph, x));
    CK(cuGraphExecDestroy(x));
    CK(cuGraphDestroy(cgr));
    x = cond_graph(mod, CU_GRAPH_COND_TYPE_SWITCH, 3, 2, &cgr);
    print("switch-2", pair(launch_graph, x));
    CK(cuGraphExecDestroy(x));
    CK(cuGraphDestroy(cgr));
    x = cond_graph(mod, CU_GRAPH_COND_TYPE_SWITCH, 3, 7, &cgr);
    print("switch-none", pair(launch_graph, x));
    CK(cuGraphExecDestroy(x));
    CK(cuGraphDestroy(cgr));

    CK(cuMemFree(calib_out));
    CK(cuMemFree(d));
    CK(cuModuleUnload(mod));
    CK(cuEventDestroy(a));
    CK(cuEventDestroy(b));
    CK(cuEventDestroy(e));
    CK(cuStreamDestroy(s));
    CK(cuDevicePrimaryCtxRelease(dev));
    return failures ? 1 : 0;
}
