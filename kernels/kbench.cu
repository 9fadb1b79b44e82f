// kbench.cu: libkprof's benchmark program.  Each mode times its own region (launch loop, copy loop) with
// the host clock, including the final synchronize, and prints it; the script tests/gpu/run-bench.sh runs
// it without libkprof, with it, and under a CUPTI tracer, and prints ratios.
//   kbench launch [--n N] [--streams S] [--record [--untimed-events]] [--kernels K] [--by-function]
//                                           S host threads, one stream each, N empty launches in all;
//                                           --record: each launch followed by one cudaEventRecord on its
//                                           stream (a ring of 64 timing events a thread), the floor of a
//                                           profiler timing every launch with one event (run without it);
//                                           --untimed-events: the ring's events made with
//                                           cudaEventDisableTiming (no timestamp: what such a record costs);
//                                           --kernels K (1 to 256): K distinct empty kernels launched in
//                                           turn (cudaLaunchKernel by host function, as PyTorch's eager
//                                           ops come), where a model's step has tens to hundreds;
//                                           --by-function: one kernel launched that way too, not by
//                                           <<<>>> (nvcc 13's stub calls __cudaLaunchKernel)
//   kbench copy --bytes B [--n N] [--pinned|--pageable]
//   kbench spin --us U [--n N] [--idle|--busy|--behind] [--record [--untimed-events]]
//                                           kernels that spin about U us, the stream idle or
//                                           busy; --behind: each followed by an empty kernel queued behind it,
//                                           then a synchronize (the empty kernel's queue time is about U us,
//                                           whatever the host's launch rate); --record as for launch: with
//                                           --busy (the GPU's pace, not the host's) the GPU's own cost of an
//                                           event between back-to-back kernels
//   kbench scale [--n N]                    N empty launches; prints resident memory before and after
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void empty_kernel() {}

// --kernels K: distinct empty kernels, one per instance.
template <int I> __global__ void empty_kernel_n() {}
typedef void (*kernel_fn)();
template <int... I> static std::vector<kernel_fn> kernels_of(std::integer_sequence<int, I...>)
{
    return { (kernel_fn)empty_kernel_n<I>... };
}
#define MAX_KERNELS 256

__global__ void spin_kernel(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
}

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static long rss_kib()
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

static long arg_long(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return atol(argv[i + 1]);
    return dflt;
}

static bool has(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], name))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: kbench launch [--n N] [--streams S] [--record [--untimed-events]] [--kernels K] [--by-function]\n"
        "       kbench copy --bytes B [--n N] [--pinned|--pageable]\n"
        "       kbench spin --us U [--n N] [--idle|--busy|--behind] [--record [--untimed-events]]\n"
        "       kbench scale [--n N]\n"
        "libkprof's benchmark program: each mode times its own region with the host clock and prints it\n"
        "(kbench.cu's opening comment says what each mode does; tests/gpu/run-bench.sh runs them).\n";
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *mode = argv[1];
    const bool record = has(argc, argv, "--record");
    const unsigned event_flags = has(argc, argv, "--untimed-events") ? cudaEventDisableTiming : cudaEventDefault;
    const char *record_word = !record ? "" : event_flags ? " record-untimed" : " record";
    CK(cudaFree(0));
    if (!strcmp(mode, "launch") || !strcmp(mode, "scale")) {
        long n = arg_long(argc, argv, "--n", !strcmp(mode, "scale") ? 10000000 : 200000);
        int streams = (int)arg_long(argc, argv, "--streams", 1);
        long nkernels = arg_long(argc, argv, "--kernels", 1);
        if (nkernels < 1 || nkernels > MAX_KERNELS) {
            fprintf(stderr, "kbench: --kernels must be 1 to %d\n", MAX_KERNELS);
            return 2;
        }
        std::vector<kernel_fn> many = kernels_of(std::make_integer_sequence<int, MAX_KERNELS>{});
        for (int i = 0; i < 1000; i++)
            empty_kernel<<<1, 1>>>();
        CK(cudaDeviceSynchronize());
        long rss0 = rss_kib();
        std::vector<cudaStream_t> s(streams);
        for (auto &x : s)
            CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
        const bool stub = nkernels == 1 && !has(argc, argv, "--by-function");
        if (nkernels == 1)
            many[0] = empty_kernel;
        std::vector<std::vector<cudaEvent_t>> ev(streams, std::vector<cudaEvent_t>(record ? 64 : 0));
        for (auto &ring : ev)
            for (auto &e : ring)
                CK(cudaEventCreateWithFlags(&e, event_flags));
        double t0 = now_us();
        std::vector<std::thread> th;
        for (int k = 0; k < streams; k++)
            th.emplace_back([&, k] {
                for (long i = 0; i < n / streams; i++) {
                    if (stub)
                        empty_kernel<<<1, 1, 0, s[k]>>>();
                    else
                        cudaLaunchKernel((const void *)many[i % nkernels], dim3(1), dim3(1), nullptr, 0, s[k]);
                    if (record)
                        cudaEventRecord(ev[k][i & 63], s[k]);
                }
                CK(cudaStreamSynchronize(s[k]));
            });
        for (auto &x : th)
            x.join();
        double t1 = now_us();
        CK(cudaGetLastError());
        for (auto &ring : ev)
            for (auto &e : ring)
                CK(cudaEventDestroy(e));
        printf("kbench: %s%s n=%ld streams=%d kernels=%ld region_us=%.1f per_launch_us=%.3f rss_before_kib=%ld rss_after_kib=%ld\n",
               mode, record_word, n, streams, nkernels, t1 - t0, (t1 - t0) / (double)n, rss0, rss_kib());
    } else if (!strcmp(mode, "copy")) {
        size_t bytes = (size_t)arg_long(argc, argv, "--bytes", 4096);
        long n = arg_long(argc, argv, "--n", 10000);
        bool pinned = has(argc, argv, "--pinned");
        void *h, *d;
        if (pinned)
            CK(cudaMallocHost(&h, bytes));
        else
            h = malloc(bytes);
        memset(h, 1, bytes);
        CK(cudaMalloc(&d, bytes));
        CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
        double t0 = now_us();
        for (long i = 0; i < n; i++)
            CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize());
        double t1 = now_us();
        printf("kbench: copy bytes=%zu n=%ld %s region_us=%.1f per_copy_us=%.3f\n", bytes, n,
               pinned ? "pinned" : "pageable", t1 - t0, (t1 - t0) / (double)n);
    } else if (!strcmp(mode, "spin")) {
        double us = (double)arg_long(argc, argv, "--us", 20);
        long n = arg_long(argc, argv, "--n", 200);
        bool idle = !has(argc, argv, "--busy");
        bool behind = has(argc, argv, "--behind");
        int khz = 0;
        CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
        long long cycles = (long long)(us * (double)khz / 1000.0);
        std::vector<cudaEvent_t> ring(record ? 64 : 0);
        for (auto &e : ring)
            CK(cudaEventCreateWithFlags(&e, event_flags));
        spin_kernel<<<1, 32>>>(cycles);
        CK(cudaDeviceSynchronize());
        double t0 = now_us();
        for (long i = 0; i < n; i++) {
            spin_kernel<<<1, 32>>>(cycles);
            if (record)
                cudaEventRecord(ring[i & 63], 0);
            if (behind)
                empty_kernel<<<1, 1>>>();
            if (idle)
                CK(cudaStreamSynchronize(0));
        }
        CK(cudaDeviceSynchronize());
        double t1 = now_us();
        CK(cudaGetLastError());
        for (auto &e : ring)
            CK(cudaEventDestroy(e));
        printf("kbench: spin%s us=%.0f n=%ld %s cycles=%lld region_us=%.1f per_kernel_us=%.3f\n", record_word, us, n,
               behind ? "behind" : idle ? "idle" : "busy", cycles, t1 - t0, (t1 - t0) / (double)n);
    } else {
        fprintf(stderr, "kbench: unknown mode %s\n%s", mode, usage);
        return 2;
    }
    /* For the exit time (libkprof's drain and report run after main): the wall clock as main ends. */
    fflush(stdout);
    printf("kbench: main_end_ns=%lld\n", (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::system_clock::now().time_since_epoch()).count());
    return 0;
}
