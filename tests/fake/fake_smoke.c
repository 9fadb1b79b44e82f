/* fake_smoke.c: drives the fake CUDA stack the way an nvcc -cudart shared program does, and checks what it answers. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_private.h"

static int failures;

static dim3 dim3_make(unsigned x)
{
    dim3 d = { x, 1, 1 };

    return d;
}

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "fake_smoke.c:%d: check failed: %s\n", __LINE__, #cond); \
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED); \
        } \
    } while (0)
#define OK(call) CHECK((call) == cudaSuccess)

/* Durations the script configures: FAKEGPU_KERNEL_NS=add=5000,default=1000 */
#define ADD_NS 5000
#define OTHER_NS 1000

/* ------------------------------------------------------------------ what nvcc would generate */

static const char fatbin_image[] = "not really a fatbin";
static void **fatbin_handle;
static int device_scale; /* a __device__ int */

/* Host stubs: nvcc emits one per kernel; here they only need distinct addresses. */
static void add_stub(float *a, float *b, int n) { (void)a; (void)b; (void)n; }
static void scale_stub(float *a) { (void)a; }

static void unregister_binary(void)
{
    __cudaUnregisterFatBinary(fatbin_handle);
}

__attribute__((constructor)) static void register_binary(void)
{
    fatbin_handle = __cudaRegisterFatBinary((void *)fatbin_image);
    __cudaRegisterFunction(fatbin_handle, (const char *)add_stub, (char *)"_Z3addPfS_i", "_Z3addPfS_i", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(fatbin_handle, (const char *)scale_stub, (char *)"_Z5scalePf", "_Z5scalePf", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterVar(fatbin_handle, (char *)&device_scale, (char *)"device_scale", "device_scale", 0,
                      sizeof device_scale, 0, 0);
    __cudaRegisterFatBinaryEnd(fatbin_handle);
    atexit(unregister_binary);
}

/* The body nvcc generates for add<<<grid, block, 0, stream>>>(a, b, n). */
static cudaError_t launch_add(dim3 grid, dim3 block, cudaStream_t stream, float *a, float *b, int n, int ptsz)
{
    /* nvcc's stub keeps the handle in a function-local static set once; threads race to set it, so this
     * test (run under ThreadSanitizer too) looks it up into a local every time. */
    cudaKernel_t handle = NULL;
    void *args[] = { &a, &b, &n };
    dim3 g, bl;
    size_t shmem;
    cudaStream_t s;

    if (__cudaPushCallConfiguration(grid, block, 0, stream))
        return cudaErrorMissingConfiguration;
    __cudaGetKernel(&handle, (const void *)add_stub);
    if (__cudaPopCallConfiguration(&g, &bl, &shmem, &s) != cudaSuccess)
        return cudaErrorMissingConfiguration;
    return ptsz ? __cudaLaunchKernel_ptsz(handle, g, bl, args, shmem, s) : __cudaLaunchKernel(handle, g, bl, args, shmem, s);
}

static float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = -1;

    OK(cudaEventSynchronize(b));
    OK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

#define NEAR(ms, ns) (fabs((double)(ms) - (double)(ns) / 1e6) < 1e-6)

/* ------------------------------------------------------------------ modes */

/* Everything the truth file is checked against happens here; the script knows the expected totals. */
static void basic(void)
{
    enum { N = 1024 };
    float host[N], back[N], *a = NULL, *b = NULL, *pinned = NULL, *managed = NULL;
    cudaEvent_t e0, e1, nt;
    cudaStream_t s1, s2;
    struct cudaDeviceProp prop;
    struct cudaPointerAttributes pa;
    cudaKernel_t k = NULL;
    const char *name = NULL;
    int n = 0, v = 0, x = 42, y = 0;
    size_t fr = 0, tot = 0;
    float ms;
    void *pfn = NULL;
    enum cudaDriverEntryPointQueryResult qs;
    struct timespec t0, t1;

    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        fprintf(stderr, "no fake GPU: run with LD_LIBRARY_PATH=<build>/tests/fake/lib\n");
        failures++;
        return;
    }
    CHECK(n == 1);
    OK(cudaGetDeviceProperties(&prop, 0));
    CHECK(strcmp(prop.name, "Fake GPU") == 0 && prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024);
    OK(cudaRuntimeGetVersion(&v));
    CHECK(v == 13000);
    OK(cudaDriverGetVersion(&v));
    CHECK(v == 13000);

    /* The first context costs host time (FAKEGPU_CTX_INIT_MS). */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    OK(cudaFree(0));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >=
          (getenv("FAKEGPU_CTX_INIT_MS") ? atol(getenv("FAKEGPU_CTX_INIT_MS")) : 20));

    /* Copies move bytes: 2 x 4096 B HtoD, 1 x 4096 B DtoH, 1 x 4096 DtoD. */
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    OK(cudaMalloc((void **)&a, sizeof host));
    OK(cudaMalloc((void **)&b, sizeof host));
    CHECK(((uintptr_t)a & 255) == 0);
    OK(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice));
    OK(cudaMemcpy(back, b, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(memcmp(host, back, sizeof host) == 0);
    OK(cudaMemcpy(a, host, sizeof host, cudaMemcpyDefault)); /* resolves to HtoD */

    /* Memset: 1 x 4096 B. */
    OK(cudaMemset(b, 0, sizeof host));
    OK(cudaMemcpy(back, b, 16, cudaMemcpyDeviceToHost)); /* DtoH 16 B */
    CHECK(back[0] == 0.0f && back[3] == 0.0f);

    /* Event timing on the virtual clock. */
    OK(cudaEventCreate(&e0));
    OK(cudaEventCreate(&e1));
    OK(cudaEventRecord(e0, 0));
    OK(launch_add(dim3_make(4), dim3_make(256), 0, a, b, N, 0));
    OK(cudaEventRecord(e1, 0));
    CHECK(NEAR(elapsed(e0, e1), ADD_NS));
    OK(cudaEventRecord(e0, 0));
    OK(cudaMemcpy(a, host, 1000, cudaMemcpyHostToDevice)); /* 1000 B at 1 ns/B */
    OK(cudaEventRecord(e1, 0));
    CHECK(NEAR(elapsed(e0, e1), 1000));

    /* Launch paths: cudaLaunchKernel with a stub and with a kernel handle, ExC, cooperative. */
    OK(__cudaGetKernel(&k, (const void *)scale_stub));
    OK(cudaFuncGetName(&name, (const void *)scale_stub));
    CHECK(name && strcmp(name, "_Z5scalePf") == 0);
    OK(cudaFuncGetName(&name, (const void *)k));
    CHECK(name && strcmp(name, "_Z5scalePf") == 0);
    {
        void *args[] = { &a };
        cudaLaunchConfig_t cfg = { 0 };

        OK(cudaLaunchKernel((const void *)scale_stub, dim3_make(1), dim3_make(32), args, 0, 0));
        OK(cudaLaunchKernel((const void *)k, dim3_make(1), dim3_make(32), args, 0, 0));
        cfg.gridDim = dim3_make(2);
        cfg.blockDim = dim3_make(64);
        OK(cudaLaunchKernelExC(&cfg, (const void *)scale_stub, args));
        OK(cudaLaunchCooperativeKernel((const void *)scale_stub, dim3_make(1), dim3_make(32), args, 0, 0));
        /* scale: 4 launches, 4000 ns */
    }

    /* Streams: a blocking stream is waited for by the legacy stream, a non-blocking one is not. */
    OK(cudaStreamCreate(&s1));
    OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    OK(cudaEventRecord(e0, 0));
    OK(launch_add(dim3_make(1), dim3_make(1), s1, a, b, N, 0));
    OK(launch_add(dim3_make(1), dim3_make(1), s2, a, b, N, 0));
    OK(launch_add(dim3_make(1), dim3_make(1), s2, a, b, N, 0));
    OK(cudaEventRecord(e1, 0)); /* waits for s1 only */
    CHECK(NEAR(elapsed(e0, e1), ADD_NS));
    OK(cudaEventRecord(e1, s2));
    CHECK(NEAR(elapsed(e0, e1), 2 * ADD_NS)); /* s2 started when it was created and ignored s1 */
    {
        enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;

        OK(cudaStreamIsCapturing(s1, &st));
        CHECK(st == cudaStreamCaptureStatusNone);
    }
    /* add: 1 + 3 = 4 launches so far, plus one per-thread below = 5 */
    OK(cudaEventRecord(e0, 0));
    OK(launch_add(dim3_make(1), dim3_make(1), 0, a, b, N, 1)); /* per-thread default stream */
    OK(cudaEventRecord(e1, 0));                                 /* legacy waits for it */
    CHECK(NEAR(elapsed(e0, e1), ADD_NS));
    OK(cudaStreamSynchronize(s1));
    OK(cudaStreamSynchronize_ptsz(0));
    OK(cudaStreamDestroy(s1));
    OK(cudaStreamDestroy(s2));

    /* Events that cannot time. */
    OK(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
    OK(cudaEventRecord(nt, 0));
    CHECK(cudaEventElapsedTime(&ms, e0, nt) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    OK(cudaEventDestroy(nt));

    /* Error semantics: returned, kept until cudaGetLastError, peek does not clear. */
    CHECK(launch_add(dim3_make(0), dim3_make(32), 0, a, b, N, 0) == cudaErrorInvalidConfiguration);
    CHECK(launch_add(dim3_make(1), dim3_make(2048), 0, a, b, N, 0) == cudaErrorInvalidConfiguration);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaSuccess);
    {
        void *big = NULL;

        CHECK(cudaMalloc(&big, (size_t)1 << 40) == cudaErrorMemoryAllocation);
        CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
    }
    CHECK(cudaMemcpy(NULL, host, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaFuncGetName(&name, (const void *)&x) == cudaErrorInvalidDeviceFunction);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);
    (void)cudaGetLastError();

    /* Pointer kinds: pinned and managed allocations (1 x 4096 host, 1 x 4096 managed). */
    OK(cudaMallocHost((void **)&pinned, sizeof host));
    OK(cudaMallocManaged((void **)&managed, sizeof host, cudaMemAttachGlobal));
    OK(cudaPointerGetAttributes(&pa, a));
    CHECK(pa.type == cudaMemoryTypeDevice && pa.device == 0);
    OK(cudaPointerGetAttributes(&pa, pinned));
    CHECK(pa.type == cudaMemoryTypeHost);
    OK(cudaPointerGetAttributes(&pa, managed));
    CHECK(pa.type == cudaMemoryTypeManaged);
    OK(cudaPointerGetAttributes(&pa, host));
    CHECK(pa.type == cudaMemoryTypeUnregistered);
    OK(cudaMemGetInfo(&fr, &tot));
    CHECK(tot == (size_t)1 << 30 && fr == tot - 3 * sizeof host);
    OK(cudaFreeHost(pinned));
    OK(cudaFree(managed));

    /* Symbols: HtoD 4 B then DtoH 4 B. */
    OK(cudaMemcpyToSymbol(&device_scale, &x, sizeof x, 0, cudaMemcpyHostToDevice));
    OK(cudaMemcpyFromSymbol(&y, &device_scale, sizeof y, 0, cudaMemcpyDeviceToHost));
    CHECK(y == 42);
    CHECK(cudaMemcpyToSymbol(&x, &y, sizeof x, 0, cudaMemcpyHostToDevice) == cudaErrorInvalidSymbol);
    (void)cudaGetLastError();

    /* Driver entry points through the runtime. */
    OK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &pfn, 12000, cudaEnableDefault, &qs));
    CHECK(pfn && qs == cudaDriverEntryPointSuccess);
    OK(cudaGetDriverEntryPointByVersion("cuNoSuchThing", &pfn, 12000, cudaEnableDefault, &qs));
    CHECK(!pfn && qs == cudaDriverEntryPointSymbolNotFound);

    /* Reset destroys the context's events; the runtime then makes a fresh context on demand. */
    OK(cudaDeviceSynchronize());
    OK(cudaFree(a));
    OK(cudaFree(b));
    OK(cudaDeviceReset());
    CHECK(cudaEventQuery(e0) == cudaErrorContextIsDestroyed);
    CHECK(cudaEventDestroy(e0) == cudaErrorContextIsDestroyed);
    CHECK(cudaEventDestroy(e1) == cudaErrorContextIsDestroyed);
    (void)cudaGetLastError();
    OK(cudaMalloc((void **)&a, 256)); /* device alloc #3: 256 B */
    OK(cudaFree(a));
    printf("basic: %s\n", failures ? "FAILED" : "ok");
}

/* FAKEGPU_EVENT_PENDING_QUERIES=2: two NOT_READY answers, then complete, together with everything
 * recorded before it on the same stream; other streams stay pending. */
static void pending(void)
{
    cudaEvent_t a, b, c;
    cudaStream_t s;
    float ms;

    OK(cudaStreamCreate(&s));
    OK(cudaEventCreate(&a));
    OK(cudaEventCreate(&b));
    OK(cudaEventCreate(&c));
    OK(cudaEventRecord(c, s));
    OK(cudaEventRecord(a, 0));
    OK(cudaEventRecord(b, 0));
    CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorNotReady);
    CHECK(cudaEventQuery(b) == cudaErrorNotReady);
    CHECK(cudaEventQuery(b) == cudaErrorNotReady);
    CHECK(cudaEventQuery(b) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess); /* NOT_READY is not an error */
    CHECK(cudaEventQuery(a) == cudaSuccess);  /* recorded before b on the same stream */
    OK(cudaEventElapsedTime(&ms, a, b));
    CHECK(cudaEventQuery(c) == cudaErrorNotReady); /* another stream */
    OK(cudaStreamSynchronize(s));
    CHECK(cudaEventQuery(c) == cudaSuccess);
    OK(cudaEventRecord(a, 0)); /* re-recording makes it pending again */
    CHECK(cudaEventQuery(a) == cudaErrorNotReady);
    OK(cudaDeviceSynchronize());
    CHECK(cudaEventQuery(a) == cudaSuccess);
    printf("pending: %s\n", failures ? "FAILED" : "ok");
}

/* FAKEGPU_HANG=1: nothing completes, and nothing blocks. */
static void hang(void)
{
    cudaEvent_t a, b;
    float ms;

    OK(cudaEventCreate(&a));
    OK(cudaEventCreate(&b));
    OK(cudaEventRecord(a, 0));
    OK(launch_add(dim3_make(1), dim3_make(1), 0, NULL, NULL, 0, 0));
    OK(cudaEventRecord(b, 0));
    for (int i = 0; i < 100; i++)
        CHECK(cudaEventQuery(b) == cudaErrorNotReady);
    OK(cudaEventSynchronize(b));
    OK(cudaStreamSynchronize(0));
    OK(cudaDeviceSynchronize());
    CHECK(cudaEventQuery(b) == cudaErrorNotReady);
    CHECK(cudaStreamQuery(0) == cudaErrorNotReady);
    CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorNotReady);
    printf("hang: %s\n", failures ? "FAILED" : "ok");
}

/* Exit order: a handler registered before the runtime's first call runs after its teardown, one
 * registered after runs before it. The script checks both lines. */
static cudaEvent_t exit_event;

static void early_handler(void)
{
    printf("early handler: %s\n", cudaGetErrorName(cudaEventQuery(exit_event)));
}

static void late_handler(void)
{
    printf("late handler: %s\n", cudaGetErrorName(cudaEventQuery(exit_event)));
    fflush(stdout);
}

static void teardown(void)
{
    atexit(early_handler);
    OK(cudaEventCreate(&exit_event));
    OK(cudaEventRecord(exit_event, 0));
    atexit(late_handler);
    printf("teardown: %s\n", failures ? "FAILED" : "ok");
    fflush(stdout);
}

/* Threads launching on their per-thread default streams while one polls events (for TSan). */
static void *worker(void *arg)
{
    cudaEvent_t a, b;
    float ms;

    (void)arg;
    OK(cudaEventCreate(&a));
    OK(cudaEventCreate(&b));
    for (int i = 0; i < 200; i++) {
        OK(cudaEventRecord_ptsz(a, 0));
        OK(launch_add(dim3_make(1), dim3_make(64), 0, NULL, NULL, 0, 1));
        OK(cudaEventRecord_ptsz(b, 0));
        OK(cudaEventSynchronize(b));
        OK(cudaEventElapsedTime(&ms, a, b));
        CHECK(NEAR(ms, ADD_NS));
    }
    OK(cudaEventDestroy(a));
    OK(cudaEventDestroy(b));
    return NULL;
}

static void threads(void)
{
    pthread_t t[4];

    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("threads: %s\n", failures ? "FAILED" : "ok");
}

/* Each name on stdin (the driver's exports) must be what cuGetProcAddress_v2 hands out for its
 * base name at some version and flag; plus the mappings that cudart relies on. */
static void procs(void)
{
    static const int versions[] = { 2000, 2020, 3020, 4000, 5050, 6000, 7000, 9000, 9020, 10000, 10010,
                                    11000, 11010, 11020, 11030, 11040, 11060, 12000, 12020, 12030, 12040,
                                    12050, 12080, 13000 };
    PFN_cuGetProcAddress_v12000 gpa;
    CUdriverProcAddressQueryResult st;
    char line[256];
    void *h, *p, *want;
    int unreachable = 0;

    h = dlopen("libcuda.so.1", RTLD_NOW);
    CHECK(h != NULL);
    if (!h)
        return;
    gpa = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
    CHECK(gpa != NULL);
    if (!gpa)
        return;
#define MAPS(base, ver, flags, exported) \
    CHECK(gpa(base, &p, ver, flags, NULL) == CUDA_SUCCESS && p == dlsym(h, exported))
    MAPS("cuMemAlloc", 3020, 0, "cuMemAlloc_v2");
    MAPS("cuLaunchKernel", 4000, 0, "cuLaunchKernel");
    MAPS("cuLaunchKernel", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuLaunchKernel_ptsz");
    MAPS("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2");
    MAPS("cuEventElapsedTime", 12000, 0, "cuEventElapsedTime");
    MAPS("cuGetProcAddress", 11030, 0, "cuGetProcAddress");
    MAPS("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
    MAPS("cuMemcpyHtoD", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpyHtoD_v2_ptds");
    MAPS("cuCtxCreate", 12050, 0, "cuCtxCreate_v4");
#undef MAPS
    CHECK(gpa("cuNoSuchThing", &p, 13000, 0, &st) == CUDA_ERROR_NOT_FOUND && !p &&
          st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    CHECK(gpa("cuLibraryLoadData", &p, 11000, 0, &st) == CUDA_ERROR_NOT_FOUND &&
          st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);

    while (fgets(line, sizeof line, stdin)) {
        char base[256];
        size_t len;
        int found = 0;

        line[strcspn(line, "\n")] = '\0';
        if (!*line || !(want = dlsym(h, line)))
            continue;
        strcpy(base, line);
        len = strlen(base);
        if (len > 5 && (!strcmp(base + len - 5, "_ptsz") || !strcmp(base + len - 5, "_ptds")))
            base[len -= 5] = '\0';
        if (len > 3 && base[len - 3] == '_' && base[len - 2] == 'v' && base[len - 1] >= '0' && base[len - 1] <= '9')
            base[len - 3] = '\0';
        for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !found; i++)
            for (int flags = 0; flags <= 2 && !found; flags += 2)
                found = gpa(base, &p, versions[i], (cuuint64_t)flags, NULL) == CUDA_SUCCESS && p == want;
        if (!found) {
            fprintf(stderr, "not reachable through cuGetProcAddress_v2: %s (base %s)\n", line, base);
            unreachable++;
        }
    }
    CHECK(unreachable == 0);
    printf("procs: %s\n", failures ? "FAILED" : "ok");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";

    if (!strcmp(mode, "basic"))
        basic();
    else if (!strcmp(mode, "pending"))
        pending();
    else if (!strcmp(mode, "hang"))
        hang();
    else if (!strcmp(mode, "teardown"))
        teardown();
    else if (!strcmp(mode, "threads"))
        threads();
    else if (!strcmp(mode, "procs"))
        procs();
    else {
        fprintf(stderr, "usage: %s basic|pending|hang|teardown|threads|procs\n", argv[0]);
        return 2;
    }
    return failures ? 1 : 0;
}
