// probe_costs.cu: the host time per launch of the driver calls libkprof adds, on the launching thread:
// 100,000 (argv[1]) empty launches on one non-blocking stream with nothing, one event record after each,
// a pair of records, a pair and a query of the start, and the same with a second thread that queries and
// reads the completed pairs every 100 us as libkprof's harvester does; three interleaved rounds, one line
// per round and case.  Measurements behind docs/performance.md ("Driver calls on the launching thread").
// Build: nvcc -O2 -gencode arch=compute_90,code=sm_90 -o probe_costs probe_costs.cu -lcuda -lpthread; run on
// a GPU without libkprof.
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <atomic>
__global__ void empty() {}
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
#define RING 2048
static CUevent st[RING], sp[RING];
static std::atomic<long> issued{0}, harvested{0};
static std::atomic<int> stop_h{0};
static CUcontext ctx;
static void *harvester(void *) {
    cuCtxSetCurrent(ctx);
    while (!stop_h.load()) {
        long h = harvested.load(), i = issued.load();
        while (h < i) {
            if (cuEventQuery(sp[h % RING]) != CUDA_SUCCESS) break;
            float ms; cuEventElapsedTime(&ms, st[h % RING], sp[h % RING]);
            h++;
        }
        harvested.store(h);
        struct timespec ts = {0, 100000}; nanosleep(&ts, NULL);
    }
    return NULL;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    cudaFree(0); cuCtxGetCurrent(&ctx);
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int i = 0; i < RING; i++) { cuEventCreate(&st[i], CU_EVENT_DEFAULT); cuEventCreate(&sp[i], CU_EVENT_DEFAULT); }
    const char *names[] = {"launch", "launch+1rec", "2rec", "2rec+query", "2rec+query+4clock", "2rec+harv", "2rec+query+harv", "1rec+harv"};
    for (int round = 0; round < 3; round++)
    for (int m = 0; m < 8; m++) {
        int harv = m >= 5; pthread_t th;
        issued = 0; harvested = 0; stop_h = 0;
        if (harv) pthread_create(&th, NULL, harvester, NULL);
        cudaStreamSynchronize(s);
        double t0 = now_us();
        for (long i = 0; i < n; i++) {
            if (i % (RING / 2) == 0) { cudaStreamSynchronize(s); if (harv) while (harvested.load() < issued.load()) ; }
            CUevent a = st[i % RING], b = sp[i % RING];
            if (m >= 2 && m != 7) cuEventRecord(a, (CUstream)s);
            if (m == 4) now_us();
            empty<<<1, 1, 0, s>>>();
            if (m == 4) { now_us(); now_us(); }
            if (m == 3 || m == 4 || m == 6) cuEventQuery(a);
            if (m >= 1) cuEventRecord(b, (CUstream)s);
            if (m == 4) now_us();
            issued.store(i + 1);
        }
        cudaStreamSynchronize(s);
        double t1 = now_us();
        if (harv) { stop_h = 1; pthread_join(th, NULL); }
        printf("round %d %-20s %.3f us/launch\n", round, names[m], (t1 - t0) / n);
    }
    return 0;
}
