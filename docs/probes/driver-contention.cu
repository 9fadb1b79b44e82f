// driver-contention.cu: does another thread's driver call cost a launching thread time?  (No libkprof.)
// One thread launches an empty kernel and records one event after it (libkprof's one-event timing, the
// floor: `kbench launch --record`), N times, on one stream; a second thread meanwhile does one of:
//   none     nothing (the thread is not started)
//   cpu      spins on the CPU without a driver call
//   elapsed  cuEventElapsedTime on two completed events, back to back (a harvester that never sleeps)
//   query    cuEventQuery on a completed event, back to back
//   paced    bursts of 24 cuEventElapsedTime every 100 us (libkprof's harvester at its release pace)
// and, like libkprof's harvester, on the launching thread's own events some way behind its newest record
// (bursts of 24 pairs, 100 us apart; the launch loop records into a ring of 8192 events):
//   fresh    cuEventElapsedTime on each pair, nothing else
//   fquery   cuEventQuery on the burst's newest event first, then cuEventElapsedTime on each pair
//   fsync    cuEventSynchronize on the burst's newest event first, then cuEventElapsedTime on each pair
//   ftwice   cuEventElapsedTime on each pair twice (is a second read of the same events cheaper?)
// and prints, per mode, the launching thread's us a launch, the second thread's calls and ns a call
// (for the fresh modes: the elapsed-time calls, the first call of each burst apart, and the reads that
// were not ready).
// Build: nvcc -O2 -o driver-contention docs/probes/driver-contention.cu -lcuda
// Run:   ./driver-contention [N] [MODE ...]   (default N 200000, every mode, each mode twice in turn)
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void empty() {}

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    std::vector<std::string> modes;
    for (int i = 2; i < argc; i++) modes.push_back(argv[i]);
    if (modes.empty()) {
        for (int r = 0; r < 2; r++)
            for (const char *m : {"none", "cpu", "elapsed", "query", "paced", "fresh", "fquery", "fsync", "ftwice"})
                modes.push_back(m);
    }
    CK(cudaFree(0));
    cudaStream_t s, side;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    // Completed events for the second thread (recorded on its own stream, waited for).
    const int K = 256;
    const long R = 8192;
    std::vector<cudaEvent_t> done(K), rec(R);
    for (auto &e : done) { CK(cudaEventCreate(&e)); CK(cudaEventRecord(e, side)); }
    for (auto &e : rec) CK(cudaEventCreate(&e));
    CK(cudaStreamSynchronize(side));
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    for (long w = 0; w < R; w++) { empty<<<1, 1, 0, s>>>(); CK(cudaEventRecord(rec[w], s)); }
    CK(cudaStreamSynchronize(s));
    printf("mode      us_per_launch  helper_calls  ns_per_helper_call  first_calls  ns_per_first_call  not_ready\n");
    for (const auto &mode : modes) {
        std::atomic<int> stop{0};
        std::atomic<long> calls{0};
        std::atomic<double> busy_us{0.0}, first_us{0.0};
        std::atomic<long> published{-1}, firsts{0}, unready{0};
        std::thread helper;
        if (mode != "none") {
            helper = std::thread([&, mode] {
                cuCtxSetCurrent(ctx);
                long c = 0;
                double busy = 0.0;
                volatile unsigned long sink = 0;
                while (!stop.load(std::memory_order_relaxed)) {
                    if (mode == "cpu") {
                        for (int i = 0; i < 1000; i++) sink = sink + i;
                        continue;
                    }
                    if (mode[0] == 'f') { // the launching thread's own events, behind its newest
                        static thread_local long j = -1;
                        static thread_local double fus = 0.0;
                        static thread_local long nf = 0, nu = 0;
                        long newest = published.load(std::memory_order_acquire);
                        if (j < 0 || newest - j > R / 2) j = newest - 64; // (re)start some way behind
                        if (j >= 0 && j + 24 <= newest - 16) {
                            double t0 = now_us();
                            CUevent last = (CUevent)rec[(j + 24) % R];
                            CUresult r = CUDA_SUCCESS;
                            if (mode == "fquery") r = cuEventQuery(last);
                            if (mode == "fsync") r = cuEventSynchronize(last);
                            double t1 = now_us();
                            if (mode == "fquery" || mode == "fsync") { fus += t1 - t0; nf++; }
                            if (r == CUDA_SUCCESS) {
                                for (int i = 0; i < 24; i++, c++) {
                                    float ms;
                                    CUevent a = (CUevent)rec[(j + i) % R], b = (CUevent)rec[(j + i + 1) % R];
                                    if (cuEventElapsedTime(&ms, a, b) != CUDA_SUCCESS) nu++;
                                    if (mode == "ftwice") { cuEventElapsedTime(&ms, a, b); c++; }
                                }
                                busy += now_us() - t1;
                                j += 24;
                            }
                        }
                        first_us = fus; firsts = nf; unready = nu;
                        std::this_thread::sleep_for(std::chrono::microseconds(100));
                        continue;
                    }
                    int burst = mode == "paced" ? 24 : 64;
                    double t0 = now_us();
                    for (int i = 0; i < burst; i++, c++) {
                        float ms;
                        if (mode == "query")
                            cuEventQuery((CUevent)done[c % K]);
                        else
                            cuEventElapsedTime((float *)&ms, (CUevent)done[c % K], (CUevent)done[(c + 1) % K]);
                    }
                    busy += now_us() - t0;
                    if (mode == "paced") std::this_thread::sleep_for(std::chrono::microseconds(100));
                }
                calls = c;
                busy_us = busy;
            });
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        double t0 = now_us();
        for (long i = 0; i < n; i++) {
            empty<<<1, 1, 0, s>>>();
            CK(cudaEventRecord(rec[i % R], s));
            published.store(i, std::memory_order_release);
        }
        double t1 = now_us();
        stop = 1;
        if (helper.joinable()) helper.join();
        CK(cudaStreamSynchronize(s));
        long c = calls.load();
        long f = firsts.load();
        printf("%-8s  %13.3f  %12ld  %18.1f  %11ld  %17.1f  %9ld\n", mode.c_str(), (t1 - t0) / (double)n, c,
               c ? busy_us.load() * 1000.0 / (double)c : 0.0, f, f ? first_us.load() * 1000.0 / (double)f : 0.0,
               unready.load());
        fflush(stdout);
    }
    return 0;
}
