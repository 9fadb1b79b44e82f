// probe_holds.cu: what holding a stream until a launch is queued does to an event pair (docs/accuracy.md,
// "Holds"): the app's own pair around a one-block spin kernel, by predecessor, with no hold (libkprof's
// idle-stream correction), with a one-thread kernel spinning on a word of pinned memory ("gatek") and with
// a cuStreamWaitValue32 on that word ("waitv"), the word written once the stop event is queued; then a
// 4096-block elementwise kernel the same three ways (compare CUPTI's means of ew<1..3>), and the costs:
// host time of the hold call, a copy/kernel pipeline's throughput, launch+sync latency, empty launches.
// Build: nvcc -O2 -gencode arch=compute_90,code=sm_90 -o probe_holds probe_holds.cu -lcuda; run on a GPU,
// once plain and once under CUDA_INJECTION64_PATH=tests/gpu/libkprof-cupti.so for CUPTI's means.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <time.h>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>
#define CK(x) do { auto e = (x); if (e) { printf("%s:%d err %d\n", __FILE__, __LINE__, (int)e); exit(1); } } while (0)
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
template <int C> __global__ void spin(unsigned long long ns, unsigned long long *out) {
  unsigned long long t0 = gt(); while (gt() - t0 < ns) {}
  if (threadIdx.x == 0 && out) { out[0] = t0; out[1] = gt(); }
}
template <int C> __global__ void ew(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 1.0001f + 1.0f; }
__global__ void gatek(volatile unsigned *flag, unsigned seq, unsigned long long timeout) {
  unsigned long long t0 = gt(); while ((int)(*flag - seq) < 0) { if (gt() - t0 > timeout) break; }
}
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static unsigned long long *hout, *dout; static unsigned *hflag, seqno; static unsigned *dflagk; static CUdeviceptr dflag;
static void CUDART_CB hostfn(void *a) { long us = (long)a; if (us) { double t = now_us(); while (now_us() - t < us) {} } }
enum Pred { P_NONE, P_KERNEL, P_HTOD, P_DTOH, P_MEMSET, P_DTOD, P_HOSTFN, P_N };
static const char *pname[] = {"idle", "kernel 50us", "HtoD 1MiB", "DtoH 1MiB", "memset 1MiB", "DtoD 1MiB", "HtoD+hostfn"};
static const char *gname[] = {"plain", "gatek", "waitv"};
static std::vector<double> gcost;
// gate mode g: 0 none, 1 kernel, 2 wait value.  Returns the seq to release (0: none).
static unsigned gate(int g, cudaStream_t s) {
  if (!g) return 0; unsigned sq = ++seqno; double t = now_us();
  if (g == 1) gatek<<<1, 1, 0, s>>>(dflagk, sq, 200000);
  else CK(cuStreamWaitValue32((CUstream)s, dflag, sq, CU_STREAM_WAIT_VALUE_GEQ));
  gcost.push_back(now_us() - t);
  return sq;
}
static void release(unsigned sq) { if (sq) __atomic_store_n(hflag, sq, __ATOMIC_RELEASE); }
static void stats(const char *name, std::vector<double> &d) {
  std::sort(d.begin(), d.end()); size_t n = d.size(); double s = 0; for (double x : d) s += x;
  printf("%-40s pair-span med %+6.2f p10 %+6.2f p90 %+6.2f mean %+6.2f n=%zu\n", name, d[n/2], d[n/10], d[9*n/10], s / n, n);
}
template <int C> static void run(Pred p, int g, cudaStream_t s, void *h, float *d, void *d2) {
  cudaEvent_t e1, e2; CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2));
  std::vector<double> dd;
  for (int i = 0; i < 44; i++) {
    CK(cudaDeviceSynchronize()); usleep(100);
    switch (p) {
    case P_KERNEL: spin<99><<<1, 32, 0, s>>>(50000, nullptr); break;
    case P_HTOD: CK(cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, s)); break;
    case P_DTOH: CK(cudaMemcpyAsync(h, d, 1 << 20, cudaMemcpyDeviceToHost, s)); break;
    case P_MEMSET: CK(cudaMemsetAsync(d, 0, 1 << 20, s)); break;
    case P_DTOD: CK(cudaMemcpyAsync(d2, d, 1 << 20, cudaMemcpyDeviceToDevice, s)); break;
    case P_HOSTFN: CK(cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, s)); CK(cudaLaunchHostFunc(s, hostfn, (void *)0)); break;
    default: break;
    }
    unsigned sq = gate(g, s);
    double t1 = now_us();
    CK(cudaEventRecord(e1, s));
    spin<C><<<1, 32, 0, s>>>(2000, dout);
    double lag = 0; int idle = cudaEventQuery(e1) == cudaSuccess;
    if (!g && idle) lag = now_us() - t1;
    if (g && idle) printf("  gate did not hold (%s %s)\n", gname[g], pname[p]);
    CK(cudaEventRecord(e2, s));
    release(sq);
    CK(cudaStreamSynchronize(s));
    float ms; CK(cudaEventElapsedTime(&ms, e1, e2));
    if (i >= 4) dd.push_back(ms * 1000.0 - lag - (hout[1] - hout[0]) / 1000.0);
  }
  char name[128]; snprintf(name, sizeof name, "%s %s", gname[g], pname[p]); stats(name, dd);
}
// PyTorch-like: 1 M-float elementwise kernel (4096 blocks), idle stream, host gap 10 us; mean pair per mode
template <int C> static void ewrun(int g, cudaStream_t s, float *x) {
  cudaEvent_t e1, e2; CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2)); double sum = 0; int n = 0;
  for (int i = 0; i < 200; i++) {
    double t0 = now_us(); while (now_us() - t0 < 10) {}
    unsigned sq = gate(g, s); double t1 = now_us();
    CK(cudaEventRecord(e1, s)); ew<C><<<4096, 256, 0, s>>>(x, 1 << 20);
    double lag = 0; if (!g && cudaEventQuery(e1) == cudaSuccess) lag = now_us() - t1;
    CK(cudaEventRecord(e2, s)); release(sq); CK(cudaEventSynchronize(e2));
    float ms; CK(cudaEventElapsedTime(&ms, e1, e2)); sum += ms * 1000.0 - lag; n++;
  }
  printf("EW<%d> %s: mean pair(-lag) %.3f us (compare CUPTI mean of ew<%d>, hand-off not taken off)\n", C, gname[g], sum / n, C);
}
int main() {
  CK(cudaFree(0));
  CK(cudaHostAlloc(&hout, 64, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer(&dout, hout, 0));
  CK(cudaHostAlloc(&hflag, 64, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer(&dflagk, hflag, 0)); dflag = (CUdeviceptr)dflagk;
  int v = 0; CUdevice dev; CK(cuCtxGetDevice(&dev)); CK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, dev)); printf("wait value NOR %d\n", v);
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void *h, *d2; float *d; CK(cudaMallocHost(&h, 1 << 20)); CK(cudaMalloc(&d, 1 << 22)); CK(cudaMalloc(&d2, 1 << 20));
  for (int w = 0; w < 20; w++) { spin<0><<<1,32,0,s>>>(1000, dout); release(gate(1, s)); release(gate(2, s)); }
  CK(cudaDeviceSynchronize()); gcost.clear();
  run<1>(P_NONE, 0, s, h, d, d2); run<2>(P_NONE, 1, s, h, d, d2); run<3>(P_NONE, 2, s, h, d, d2);
  run<4>(P_KERNEL, 0, s, h, d, d2); run<5>(P_KERNEL, 1, s, h, d, d2); run<6>(P_KERNEL, 2, s, h, d, d2);
  run<7>(P_HTOD, 0, s, h, d, d2); run<8>(P_HTOD, 1, s, h, d, d2); run<9>(P_HTOD, 2, s, h, d, d2);
  run<10>(P_DTOH, 0, s, h, d, d2); run<11>(P_DTOH, 1, s, h, d, d2); run<12>(P_DTOH, 2, s, h, d, d2);
  run<13>(P_MEMSET, 0, s, h, d, d2); run<14>(P_MEMSET, 1, s, h, d, d2); run<15>(P_MEMSET, 2, s, h, d, d2);
  run<16>(P_DTOD, 0, s, h, d, d2); run<17>(P_DTOD, 1, s, h, d, d2); run<18>(P_DTOD, 2, s, h, d, d2);
  run<19>(P_HOSTFN, 0, s, h, d, d2); run<20>(P_HOSTFN, 1, s, h, d, d2); run<21>(P_HOSTFN, 2, s, h, d, d2);
  ewrun<1>(0, s, d); ewrun<2>(1, s, d); ewrun<3>(2, s, d);
  for (int r = 0; r < 2; r++) for (int g = 0; g < 3; g++) { // plain ew, to read CUPTI's mean without events
    for (int i = 0; i < 200; i++) { ew<10><<<4096, 256, 0, s>>>(d, 1 << 20); CK(cudaStreamSynchronize(s)); }
  }
  for (int g = 1; g < 3; g++) { gcost.clear(); for (int i = 0; i < 2000; i++) release(gate(g, s)); CK(cudaStreamSynchronize(s));
    std::sort(gcost.begin(), gcost.end()); printf("GATE CALL %s host cost med %.2f p90 %.2f us\n", gname[g], gcost[1000], gcost[1800]); }
  for (int rep = 0; rep < 2; rep++) for (int g = 0; g < 3; g++) {
    CK(cudaDeviceSynchronize()); double t0 = now_us();
    for (int i = 0; i < 2000; i++) {
      CK(cudaMemcpyAsync(d, h, 1 << 16, cudaMemcpyHostToDevice, s));
      unsigned sq = gate(g, s); spin<0><<<1, 32, 0, s>>>(2000, nullptr); release(sq);
      CK(cudaMemcpyAsync(h, d, 1 << 16, cudaMemcpyDeviceToHost, s));
    }
    CK(cudaDeviceSynchronize()); printf("THROUGHPUT pipeline %s: %.2f us/iter\n", gname[g], (now_us() - t0) / 2000);
  }
  for (int rep = 0; rep < 2; rep++) for (int g = 0; g < 3; g++) {
    CK(cudaDeviceSynchronize()); double t0 = now_us();
    for (int i = 0; i < 2000; i++) { unsigned sq = gate(g, s); spin<0><<<1, 32, 0, s>>>(2000, nullptr); release(sq); CK(cudaStreamSynchronize(s)); }
    printf("LATENCY launch+sync %s: %.2f us/iter\n", gname[g], (now_us() - t0) / 2000);
  }
  for (int rep = 0; rep < 2; rep++) for (int g = 0; g < 3; g++) {
    CK(cudaDeviceSynchronize()); double t0 = now_us();
    for (int i = 0; i < 20000; i++) { unsigned sq = gate(g, s); spin<0><<<1, 32, 0, s>>>(0, nullptr); release(sq); }
    CK(cudaDeviceSynchronize()); printf("EMPTY LOOP %s: %.2f us/launch\n", gname[g], (now_us() - t0) / 20000);
  }
  return 0;
}
