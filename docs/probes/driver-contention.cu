// driver-contention.cu: does another thread's driver call cost a launching thread time?  (No libkprof.)
// One thread launches an empty kernel and records one event after it (libkprof's one-event timing, the
// floor: `kbench launch --record`), N times, on one stream; a second thread meanwhile does one of:
//   none     nothing (the thread is not started)
//   cpu      spins on the CPU without a driver call
//   elapsed  cuEventElapsedTime on two completed events, back to back (a harvester that never sleeps)
//   query    cuEventQuery on a completed event, back to back
//   paced    bursts of 24 cuEventElapsedTime every 100 us (libkprof's harvester at its release pace)
// and prints, per mode, the launching thread's us a launch and the second thread's calls and ns a call.
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
            for (const char *m : {"none", "cpu", "elapsed", "query", "paced"}) modes.push_back(m);
    }
    CK(cudaFree(0));
    cudaStream_t s, side;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    // Completed events for the second thread (recorded on its own stream, waited for).
    const int K = 256;
    std::vector<cudaEvent_t> done(K), rec(64);
    for (auto &e : done) { CK(cudaEventCreate(&e)); CK(cudaEventRecord(e, side)); }
    for (auto &e : rec) CK(cudaEventCreate(&e));
    CK(cudaStreamSynchronize(side));
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    for (int w = 0; w < 1000; w++) { empty<<<1, 1, 0, s>>>(); CK(cudaEventRecord(rec[w % 64], s)); }
    CK(cudaStreamSynchronize(s));
    printf("mode      us_per_launch  helper_calls  ns_per_helper_call\n");
    for (const auto &mode : modes) {
        std::atomic<int> stop{0};
        std::atomic<long> calls{0};
        std::atomic<double> busy_us{0.0};
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
            CK(cudaEventRecord(rec[i % 64], s));
        }
        double t1 = now_us();
        stop = 1;
        if (helper.joinable()) helper.join();
        CK(cudaStreamSynchronize(s));
        long c = calls.load();
        printf("%-8s  %13.3f  %12ld  %18.1f\n", mode.c_str(), (t1 - t0) / (double)n, c,
               c ? busy_us.load() * 1000.0 / (double)c : 0.0);
        fflush(stdout);
    }
    return 0;
}
