// probe_handoff.cu: what an event pair holds around a one-block spin kernel (thread 0 reads %globaltimer),
// by predecessor, with two events and with one shared; first launches with and without loading the kernel
// first; back-to-back launches with and without one-event timing.  Measurements behind docs/accuracy.md.
// Build: nvcc -O2 -gencode arch=compute_90,code=sm_90 -o probe_handoff probe_handoff.cu -lcuda; run on a GPU,
// once plain and once under CUDA_INJECTION64_PATH=tests/gpu/libkprof-cupti.so for CUPTI's means.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <thread>
#include <time.h>
#include <cuda.h>
#include <cuda_runtime.h>
#define CK(x) do { auto e = (x); if (e) { printf("%s:%d err %d\n", __FILE__, __LINE__, (int)e); exit(1); } } while (0)
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
template <int C> __global__ void spin(unsigned long long ns, unsigned long long *out) {
  unsigned long long t0 = gt(); while (gt() - t0 < ns) {}
  if (threadIdx.x == 0 && blockIdx.x == 0 && out) { out[0] = t0; out[1] = gt(); }
}
__global__ void busy(unsigned long long ns) { unsigned long long t0 = gt(); while (gt() - t0 < ns) {} }
template <int C> __global__ void lazyk(unsigned long long ns, unsigned long long *out) {
  unsigned long long t0 = gt(); while (gt() - t0 < ns) {}
  if (out) { out[0] = t0; out[1] = gt(); }
}
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static unsigned long long *dout, *hout;
static double span() { CK(cudaMemcpy(hout, dout, 16, cudaMemcpyDeviceToHost)); return (hout[1] - hout[0]) / 1000.0; }
static void stats(const char *name, std::vector<double> &d, std::vector<double> &k) {
  std::sort(d.begin(), d.end()); std::sort(k.begin(), k.end()); size_t n = d.size();
  printf("%-44s pair-inkernel med %+6.2f p10 %+6.2f p90 %+6.2f mean %+6.2f | inkernel %8.2f (n=%zu)\n", name, d[n/2], d[n/10], d[9*n/10],
    [&]{double s=0; for(double x: d) s+=x; return s/n;}(), k[n/2], n);
}
enum Pred { P_NONE, P_KERNEL, P_SHORTK, P_HTOD, P_DTOH, P_MEMSET, P_DTOD, P_WAIT, P_N };
static const char *pname[] = {"idle", "kernel 50us", "kernel 3us", "HtoD 1MiB pinned", "DtoH 1MiB pinned", "memset 1MiB", "DtoD 1MiB", "event wait"};
template <int C> void calib(Pred p, int shared, unsigned long long ns, CUstream s, CUstream other, void *h, void *d, void *d2) {
  CUevent e0, ep, e1, e2, ew; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&ep, 0)); CK(cuEventCreate(&e1, 0)); CK(cuEventCreate(&e2, 0)); CK(cuEventCreate(&ew, CU_EVENT_DISABLE_TIMING));
  std::vector<double> dd, kk, raw;
  for (int i = 0; i < 42; i++) {
    CK(cuCtxSynchronize());
    double lag = 0;
    CK(cuEventRecord(e0, s));
    switch (p) {
    case P_NONE: break;
    case P_KERNEL: busy<<<1, 32, 0, (cudaStream_t)s>>>(50000); break;
    case P_SHORTK: busy<<<1, 32, 0, (cudaStream_t)s>>>(3000); break;
    case P_HTOD: CK(cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, (cudaStream_t)s)); break;
    case P_DTOH: CK(cudaMemcpyAsync(h, d, 1 << 20, cudaMemcpyDeviceToHost, (cudaStream_t)s)); break;
    case P_MEMSET: CK(cudaMemsetAsync(d, 0, 1 << 20, (cudaStream_t)s)); break;
    case P_DTOD: CK(cudaMemcpyAsync(d2, d, 1 << 20, cudaMemcpyDeviceToDevice, (cudaStream_t)s)); break;
    case P_WAIT: busy<<<1, 32, 0, (cudaStream_t)other>>>(30000); CK(cuEventRecord(ew, other)); CK(cuStreamWaitEvent(s, ew, 0)); break;
    default: break;
    }
    CUevent start = ep;
    if (p == P_NONE) { start = e1; }
    if (p != P_NONE) CK(cuEventRecord(ep, s));
    double t1 = now_us();
    if (!shared || p == P_NONE) { CK(cuEventRecord(e1, s)); start = e1; }
    double t1b = now_us();
    spin<C><<<1, 32, 0, (cudaStream_t)s>>>(ns, dout);
    double t2 = now_us();
    if (p == P_NONE && cuEventQuery(e1) == CUDA_SUCCESS) lag = t2 - t1b;
    CK(cuEventRecord(e2, s));
    CK(cuStreamSynchronize(s));
    float ms; CK(cuEventElapsedTime(&ms, start, e2));
    double sp = span();
    if (i >= 2) { dd.push_back(ms * 1000.0 - lag - sp); kk.push_back(sp); raw.push_back(ms * 1000.0 - sp); }
  }
  char name[128]; snprintf(name, sizeof name, "%s %s spin %.0fus", shared ? "SHARED" : "PAIR  ", pname[p], ns / 1000.0);
  stats(name, dd, kk);
  if (p == P_NONE) { char n2[160]; snprintf(n2, sizeof n2, "  (idle, no lag correction)"); std::vector<double> k2 = kk; stats(n2, raw, k2); }
}
// Back-to-back launches with one-event timing as libkprof does it: query previous stop; share if pending.
template <int C> void b2b(unsigned long long ns, CUstream s, int mode) {
  const int N = 200; std::vector<CUevent> ev(2 * N + 2); for (auto &ev_ : ev) CK(cuEventCreate(&ev_, 0));
  std::vector<CUevent> st(N), sp(N); std::vector<double> lag(N, 0); int nshared = 0;
  CK(cuCtxSynchronize());
  CUevent prev = nullptr; int k = 0;
  for (int i = 0; i < N; i++) {
    CUevent a = nullptr; double t1 = 0;
    if (mode == 1 && prev && cuEventQuery(prev) == CUDA_ERROR_NOT_READY) { a = prev; nshared++; }
    else { a = ev[k++]; CK(cuEventRecord(a, s)); }
    t1 = now_us();
    spin<C><<<1, 32, 0, (cudaStream_t)s>>>(ns, nullptr);
    double t2 = now_us();
    if (a != prev && cuEventQuery(a) == CUDA_SUCCESS) lag[i] = t2 - t1;
    CUevent b = ev[k++]; CK(cuEventRecord(b, s)); st[i] = a; sp[i] = b; prev = b;
  }
  CK(cuCtxSynchronize());
  std::vector<double> d;
  for (int i = 2; i < N; i++) { float ms; CK(cuEventElapsedTime(&ms, st[i], sp[i])); d.push_back(ms * 1000.0 - lag[i]); }
  std::sort(d.begin(), d.end()); double s_ = 0; for (double x : d) s_ += x;
  printf("B2B %s spin %.0fus: (pair - lag) med %.2f p10 %.2f p90 %.2f mean %.2f; shared %d/%d\n", mode ? "one-event" : "pairs    ", ns / 1000.0, d[d.size()/2], d[d.size()/10], d[9*d.size()/10], s_ / d.size(), nshared, N);
}
template <int C> void first_launch(CUstream s, int preload, const char *what) {
  CUevent a, b; CK(cuEventCreate(&a, 0)); CK(cuEventCreate(&b, 0));
  CK(cuCtxSynchronize());
  double tl0 = now_us();
  if (preload) {
    cudaKernel_t k; CK(cudaGetKernel(&k, (const void *)lazyk<C>));
    CUfunction f; CK(cuKernelGetFunction(&f, (CUkernel)k));
    CUfunctionLoadingState st; CK(cuFuncIsLoaded(&st, f));
    if (st != CU_FUNCTION_LOADING_STATE_LOADED) CK(cuFuncLoad(f));
  }
  double tl1 = now_us();
  CK(cuEventRecord(a, s));
  double t1 = now_us();
  lazyk<C><<<1, 1, 0, (cudaStream_t)s>>>(2000, dout);
  double t2 = now_us();
  int idle = cuEventQuery(a) == CUDA_SUCCESS;
  CK(cuEventRecord(b, s)); CK(cuStreamSynchronize(s));
  float ms; CK(cuEventElapsedTime(&ms, a, b));
  double sp = span();
  printf("FIRST %-28s preload %d (%.1f us): launch call %.1f us, pair %.2f, idle-at-return %d, pair-lag-inkernel %.2f, inkernel %.2f\n", what, preload, tl1 - tl0, t2 - t1, ms * 1000, idle, ms * 1000 - (idle ? (t2 - t1) : 0) - sp, sp);
}
int main(int argc, char **argv) {
  CK(cudaFree(0));
  CK(cudaMalloc(&dout, 16)); CK(cudaMallocHost(&hout, 16));
  // A. handles
  cudaFunction_t f; cudaKernel_t k;
  CK(cudaGetFuncBySymbol(&f, (const void *)spin<0>)); CK(cudaGetKernel(&k, (const void *)spin<0>));
  CUfunctionLoadingState st = (CUfunctionLoadingState)-1; CUfunction fk = nullptr; const char *nm = nullptr;
  printf("HANDLES func %p kernel %p\n", (void *)f, (void *)k);
  printf("cuFuncIsLoaded(func) rc %d state %d\n", (int)cuFuncIsLoaded(&st, (CUfunction)f), (int)st);
  st = (CUfunctionLoadingState)-1;
  printf("cuFuncIsLoaded((CUfunction)kernel) rc %d state %d\n", (int)cuFuncIsLoaded(&st, (CUfunction)k), (int)st);
  printf("cuKernelGetFunction(kernel) rc %d -> %p\n", (int)cuKernelGetFunction(&fk, (CUkernel)k), (void *)fk);
  printf("cuKernelGetFunction((CUkernel)func) rc %d\n", (int)cuKernelGetFunction(&fk, (CUkernel)f));
  printf("cuFuncGetName((CUfunction)kernel) rc %d %s\n", (int)cuFuncGetName(&nm, (CUfunction)k), nm ? nm : "-");
  nm = nullptr; printf("cuKernelGetName((CUkernel)func) rc %d %s\n", (int)cuKernelGetName(&nm, (CUkernel)f), nm ? nm : "-");
  CUmodule mod = nullptr; printf("cuFuncGetModule((CUfunction)kernel) rc %d\n", (int)cuFuncGetModule(&mod, (CUfunction)k));
  CUlibrary lib = nullptr; printf("cuKernelGetLibrary((CUkernel)func) rc %d\n", (int)cuKernelGetLibrary(&lib, (CUkernel)f));
  int v = 0; printf("cuFuncGetAttribute(NUM_REGS, (CUfunction)kernel) rc %d\n", (int)cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, (CUfunction)k));
  cudaKernel_t k3; CK(cudaGetKernel(&k3, (const void *)lazyk<3>)); st = (CUfunctionLoadingState)-1;
  printf("lazyk<3> before launch: cuFuncIsLoaded((CUfunction)kernel) rc %d state %d\n", (int)cuFuncIsLoaded(&st, (CUfunction)k3), (int)st);
  CK(cuKernelGetFunction(&fk, (CUkernel)k3)); st = (CUfunctionLoadingState)-1;
  printf("lazyk<3> after cuKernelGetFunction: cuFuncIsLoaded(fn) rc %d state %d\n", (int)cuFuncIsLoaded(&st, fk), (int)st);
  CUstream s, other; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); CK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
  // B. first launches
  first_launch<10>(s, 0, "main thread"); first_launch<11>(s, 0, "main thread"); first_launch<12>(s, 1, "main thread");
  first_launch<13>(s, 1, "main thread"); first_launch<10>(s, 0, "second launch");
  std::thread([&] { CK(cuCtxSetCurrent([]{CUcontext c; cuDevicePrimaryCtxRetain(&c, 0); return c;}())); first_launch<14>(s, 0, "new thread"); first_launch<15>(s, 1, "new thread"); first_launch<14>(s, 0, "new thread second"); }).join();
  // C. calibration matrix
  void *h, *d, *d2; CK(cudaMallocHost(&h, 1 << 20)); CK(cudaMalloc(&d, 1 << 20)); CK(cudaMalloc(&d2, 1 << 20));
  for (unsigned long long ns : {2000ull, 20000ull}) for (int sh = 0; sh < 2; sh++) {
    calib<0>(P_NONE, sh, ns, s, other, h, d, d2); calib<1>(P_KERNEL, sh, ns, s, other, h, d, d2); calib<2>(P_SHORTK, sh, ns, s, other, h, d, d2);
    calib<3>(P_HTOD, sh, ns, s, other, h, d, d2); calib<4>(P_DTOH, sh, ns, s, other, h, d, d2); calib<5>(P_MEMSET, sh, ns, s, other, h, d, d2);
    calib<6>(P_DTOD, sh, ns, s, other, h, d, d2); calib<7>(P_WAIT, sh, ns, s, other, h, d, d2);
  }
  // D. back to back
  for (unsigned long long ns : {1000ull, 2000ull, 5000ull, 20000ull}) { b2b<20>(ns, s, 0); b2b<21>(ns, s, 1); }
  // E. the same spin kernels, plain, for c0 against CUPTI: 100 launches each of spin<30> 2us and spin<31> 20us, idle, in-kernel span
  std::vector<double> a1, a2;
  for (int i = 0; i < 100; i++) { spin<30><<<1,32,0,(cudaStream_t)s>>>(2000, dout); CK(cuStreamSynchronize(s)); a1.push_back(span()); }
  for (int i = 0; i < 100; i++) { spin<31><<<1,32,0,(cudaStream_t)s>>>(20000, dout); CK(cuStreamSynchronize(s)); a2.push_back(span()); }
  double m1 = 0, m2 = 0; for (double x : a1) m1 += x; for (double x : a2) m2 += x;
  printf("C0 inkernel mean spin<30> 2us %.3f us, spin<31> 20us %.3f us (compare CUPTI means)\n", m1 / 100, m2 / 100);
  return 0;
}
