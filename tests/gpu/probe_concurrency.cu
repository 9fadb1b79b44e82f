// probe_concurrency.cu: where an event pair's excess comes from when other streams are busy, and what a
// graph's pair holds beyond its kernels (docs/accuracy.md, "Streams beside busy streams" and "Graphs").
// Part 1: the pipeline of tests/gpu/accuracy/pipeline.cuh (HtoD, host function, kernel, host function, DtoH)
// on 1 and on 8 threads with a stream each, and 8 threads without copies; around each 64-block kernel a hold
// (a one-thread kernel spinning on a pinned word, as libkprof's kprof_hold) or none, the app's own pair,
// and a one-thread "stamp" kernel after the stop.  Each block of the kernel records its first start and
// last end (%globaltimer), the hold its exit, the stamp its start: so the pair's excess over the kernel's
// span can be split into hold exit -> kernel start and kernel end -> next kernel start on the GPU's clock.
// Part 2: graphs: chains of 1, 2, 4 and 8 kernel nodes, an IF node and a WHILE node of 1 to 3 iterations;
// each node records its start and end, so the gaps between nodes are read off directly, beside the pair.
// Build: nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o probe_concurrency probe_concurrency.cu
// Run once plain and once under CUDA_INJECTION64_PATH=tests/gpu/libkprof-cupti.so (CUPTI's means of the
// tagged kernels: compare with the spans printed plain).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <thread>
#include <algorithm>
#include <atomic>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>
#define CK(x) do { auto e = (x); if (e) { printf("%s:%d err %d\n", __FILE__, __LINE__, (int)e); exit(1); } } while (0)
typedef unsigned long long u64;
__device__ __forceinline__ u64 gt() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
struct Rec { u64 kstart, kend, gate_exit, stamp; };
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }

template <int C> __global__ void bump(float *x, size_t n, u64 ns, Rec *r) {
  u64 t0 = gt();
  if (threadIdx.x == 0) atomicMin(&r->kstart, t0);
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) x[i] += 1.0f;
  while (gt() - t0 < ns) {}
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&r->kend, gt());
}
__global__ void gatek(volatile unsigned *flag, unsigned seq, u64 timeout, Rec *r) {
  u64 t0 = gt(); while ((int)(*flag - seq) < 0) { if (gt() - t0 > timeout) break; }
  if (r) r->gate_exit = gt();
}
__global__ void stampk(Rec *r) { r->stamp = gt(); }
__global__ void initrec(Rec *r, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { r[i].kstart = ~0ull; r[i].kend = 0; r[i].gate_exit = 0; r[i].stamp = 0; } }
static void CUDART_CB host_cb(void *) {}

struct Sample { double pair, lag, span, g2k, k2s; int held; };
static void report(const char *name, std::vector<Sample> &v) {
  auto pr = [&](const char *what, std::vector<double> d) {
    if (d.empty()) return;
    std::sort(d.begin(), d.end()); size_t n = d.size(); double s = 0; for (double x : d) s += x;
    printf("  %-34s med %+7.2f p10 %+7.2f p90 %+7.2f mean %+7.2f n=%zu\n", what, d[n / 2], d[n / 10], d[9 * n / 10], s / n, n);
  };
  std::vector<double> a, b, c, d, e, f;
  for (auto &x : v) { a.push_back(x.pair - x.span); b.push_back(x.pair - x.lag - x.span); c.push_back(x.g2k); d.push_back(x.k2s); e.push_back(x.span); f.push_back(x.g2k + x.k2s); }
  printf("%s\n", name);
  pr("span (us)", e); pr("pair - span", a); pr("pair - idle lag - span", b);
  if (v[0].held) { pr("hold exit -> kernel start", c); pr("kernel end -> stamp start", d); pr("both (stamp - hold - span)", f); }
}

static unsigned *hflag; static unsigned *dflag; static unsigned seqno; // hflag[slot]: one word per thread
// One worker: iters rounds; copies on or off; held or not.  Tag C names the kernel for CUPTI.
template <int C> static void worker(int slot, int iters, bool copies, bool held, std::vector<Sample> *out) {
  unsigned myseq = 0;
  const size_t n = (size_t)1 << 18;
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *h, *d; Rec *rec, *hrec;
  CK(cudaMallocHost(&h, n * sizeof *h)); CK(cudaMalloc(&d, n * sizeof *d));
  CK(cudaMalloc(&rec, iters * sizeof *rec)); hrec = (Rec *)malloc(iters * sizeof *hrec);
  initrec<<<(iters + 127) / 128, 128, 0, s>>>(rec, iters);
  std::vector<cudaEvent_t> e1(iters), e2(iters); std::vector<double> lag(iters, 0.0);
  for (int i = 0; i < iters; i++) { CK(cudaEventCreate(&e1[i])); CK(cudaEventCreate(&e2[i])); }
  CK(cudaStreamSynchronize(s));
  for (int it = 0; it < iters; it++) {
    if (copies) { CK(cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, s)); CK(cudaLaunchHostFunc(s, host_cb, nullptr)); }
    unsigned sq = 0;
    if (held) { sq = ++myseq; gatek<<<1, 1, 0, s>>>(dflag + slot, sq, 20000000ull, rec + it); }
    double t1 = now_us();
    CK(cudaEventRecord(e1[it], s));
    bump<C><<<64, 256, 0, s>>>(d, n, 20000, rec + it);
    if (!held && cudaEventQuery(e1[it]) == cudaSuccess) lag[it] = now_us() - t1;
    CK(cudaEventRecord(e2[it], s));
    stampk<<<1, 1, 0, s>>>(rec + it);
    if (held) __atomic_store_n(hflag + slot, sq, __ATOMIC_RELEASE);
    if (copies) { CK(cudaLaunchHostFunc(s, host_cb, nullptr)); CK(cudaMemcpyAsync(h, d, n * sizeof *h, cudaMemcpyDeviceToHost, s)); }
    if (it % 10 == 9) CK(cudaStreamSynchronize(s));
  }
  CK(cudaStreamSynchronize(s));
  CK(cudaMemcpy(hrec, rec, iters * sizeof *rec, cudaMemcpyDeviceToHost));
  for (int it = 2; it < iters; it++) {
    float ms; CK(cudaEventElapsedTime(&ms, e1[it], e2[it]));
    Rec &r = hrec[it];
    out->push_back({ms * 1000.0, lag[it], (r.kend - r.kstart) / 1000.0, held ? ((double)r.kstart - (double)r.gate_exit) / 1000.0 : 0.0,
                    ((double)r.stamp - (double)r.kend) / 1000.0, held});
  }
  CK(cudaFreeHost(h)); CK(cudaFree(d)); CK(cudaFree(rec)); free(hrec); CK(cudaStreamDestroy(s));
}
// The observer: libkprof's calibration pattern (hold, start event, a 2 us one-block kernel recording its
// span, stop event, release) on a stream of its own, again and again while `running`: does its pair's
// excess over the span grow with the other streams' work as much as theirs does?
__global__ void obsk(u64 ns, u64 *rec) { u64 t0 = gt(); while (gt() - t0 < ns) {} if (threadIdx.x == 0) { rec[0] = t0; rec[1] = gt(); } }
static std::atomic<int> running{0};
static void observer(std::vector<double> *out) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  u64 *drec, h[2]; CK(cudaMalloc(&drec, 16)); cudaEvent_t e1, e2; CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2));
  unsigned sq = 0; const int slot = 63; hflag[slot] = 0;
  while (running.load()) {
    ++sq; gatek<<<1, 1, 0, s>>>(dflag + slot, sq, 20000000ull, nullptr);
    CK(cudaEventRecord(e1, s)); obsk<<<1, 32, 0, s>>>(2000, drec); CK(cudaEventRecord(e2, s));
    __atomic_store_n(hflag + slot, sq, __ATOMIC_RELEASE); CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(h, drec, 16, cudaMemcpyDeviceToHost));
    float ms; CK(cudaEventElapsedTime(&ms, e1, e2)); out->push_back(ms * 1000.0 - (h[1] - h[0]) / 1000.0);
    double t0 = now_us(); while (now_us() - t0 < 30) {}
  }
  CK(cudaStreamDestroy(s)); CK(cudaFree(drec));
}
static void obs_report(const char *name, std::vector<double> d) {
  if (d.size() < 3) { printf("  observer %s: %zu samples\n", name, d.size()); return; }
  std::sort(d.begin(), d.end()); size_t n = d.size(); double s = 0; for (double x : d) s += x;
  printf("  OBSERVER %-25s pair - span med %+7.2f p10 %+7.2f p90 %+7.2f mean %+7.2f n=%zu\n", name, d[n / 2], d[n / 10], d[9 * n / 10], s / n, n);
}
template <int C> static void config(const char *name, int threads, int iters, bool copies, bool held, bool obs = false) {
  std::vector<std::vector<Sample>> per(threads); std::vector<std::thread> t;
  std::vector<double> od; std::thread ot; if (obs) { running = 1; ot = std::thread(observer, &od); }
  for (int i = 0; i < threads; i++) { hflag[1 + i] = 0; t.emplace_back(worker<C>, 1 + i, iters, copies, held, &per[i]); }
  for (auto &x : t) x.join();
  if (obs) { running = 0; ot.join(); }
  std::vector<Sample> all; for (auto &v : per) all.insert(all.end(), v.begin(), v.end());
  char buf[160]; snprintf(buf, sizeof buf, "CONC bump<%d> %s (%s)", C, name, held ? "held" : "not held");
  report(buf, all);
  if (obs) obs_report(name, od);
}

// ---- graphs ----
template <int C> __global__ void gspin(u64 ns, u64 *rec) { u64 t0 = gt(); while (gt() - t0 < ns) {} if (threadIdx.x == 0) { rec[0] = t0; rec[1] = gt(); } }
__global__ void gset(cudaGraphConditionalHandle hif, cudaGraphConditionalHandle hw, unsigned *state, u64 *rec) {
  u64 t0 = gt(); unsigned iters = state[2], ifval = state[3];
  cudaGraphSetConditional(hif, ifval); state[0] = iters; cudaGraphSetConditional(hw, iters > 0);
  rec[0] = t0; rec[1] = gt();
}
__global__ void gwhile(cudaGraphConditionalHandle hw, unsigned *state, u64 ns, u64 *rec) {
  u64 t0 = gt(); while (gt() - t0 < ns) {}
  unsigned k = --state[0]; rec[2 * k] = t0; rec[2 * k + 1] = gt();
  if (k == 0) cudaGraphSetConditional(hw, 0);
}
static cudaGraphNode_t addk(cudaGraph_t g, cudaGraphNode_t dep, void *f, void **args) {
  cudaKernelNodeParams p = {}; p.func = f; p.gridDim = dim3(1); p.blockDim = dim3(32); p.kernelParams = args;
  cudaGraphNode_t nn; CK(cudaGraphAddKernelNode(&nn, g, dep ? &dep : nullptr, dep ? 1 : 0, &p)); return nn;
}
static cudaGraphNode_t addc(cudaGraph_t g, cudaGraphNode_t dep, cudaGraphConditionalHandle h, cudaGraphConditionalNodeType ty, cudaGraph_t *body) {
  cudaGraphNodeParams p = {}; p.type = cudaGraphNodeTypeConditional; p.conditional.handle = h; p.conditional.type = ty; p.conditional.size = 1;
  cudaGraphNode_t nn; CK(cudaGraphAddNode(&nn, g, &dep, nullptr, 1, &p)); *body = p.conditional.phGraph_out[0]; return nn;
}
static void gstats(const char *what, std::vector<double> d) {
  std::sort(d.begin(), d.end()); size_t n = d.size(); double s = 0; for (double x : d) s += x;
  printf("  %-44s med %7.2f p10 %7.2f p90 %7.2f mean %7.2f n=%zu\n", what, d[n / 2], d[n / 10], d[9 * n / 10], s / n, n);
}
// Chain of `nodes` kernels of 5 us; replays 30 times, each held, paired; prints pair - sum of spans and gaps.
template <int C> static void chain(int nodes, cudaStream_t s) {
  u64 *rec, hrec[16]; CK(cudaMalloc(&rec, 2 * 8 * sizeof *rec));
  cudaGraph_t g; CK(cudaGraphCreate(&g, 0)); cudaGraphNode_t prev = nullptr;
  u64 ns = 5000; std::vector<u64 *> recs(nodes); std::vector<void *> args(2 * nodes);
  for (int i = 0; i < nodes; i++) { recs[i] = rec + 2 * i; args[2 * i] = &ns; args[2 * i + 1] = &recs[i]; prev = addk(g, prev, (void *)gspin<C>, &args[2 * i]); }
  cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
  cudaEvent_t e1, e2; CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2));
  std::vector<double> pm, gap, first, last;
  for (int r = 0; r < 32; r++) {
    unsigned sq = ++seqno; gatek<<<1, 1, 0, s>>>(dflag, sq, 20000000ull, nullptr);
    CK(cudaEventRecord(e1, s)); CK(cudaGraphLaunch(ex, s)); CK(cudaEventRecord(e2, s));
    __atomic_store_n(hflag, sq, __ATOMIC_RELEASE); CK(cudaStreamSynchronize(s));
    if (r < 2) continue;
    CK(cudaMemcpy(hrec, rec, sizeof hrec, cudaMemcpyDeviceToHost));
    float ms; CK(cudaEventElapsedTime(&ms, e1, e2)); double sum = 0;
    for (int i = 0; i < nodes; i++) sum += (hrec[2 * i + 1] - hrec[2 * i]) / 1000.0;
    for (int i = 1; i < nodes; i++) gap.push_back(((double)hrec[2 * i] - (double)hrec[2 * i - 1]) / 1000.0);
    pm.push_back(ms * 1000.0 - sum);
  }
  char b[96]; snprintf(b, sizeof b, "GRAPH chain of %d (gspin<%d>): pair - sum(spans)", nodes, C); gstats(b, pm);
  if (nodes > 1) gstats("  gap kernel end -> next kernel start", gap);
  CK(cudaGraphExecDestroy(ex)); CK(cudaGraphDestroy(g)); CK(cudaFree(rec));
}
// set -> IF(body: 1 kernel) -> WHILE(body: 1 kernel, k iterations) -> last kernel.
static void conditional(cudaStream_t s) {
  u64 *drec, rec[64]; CK(cudaMalloc(&drec, sizeof rec)); unsigned *state; CK(cudaMalloc(&state, 16));
  cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle hif, hw; CK(cudaGraphConditionalHandleCreate(&hif, g, 0, 0)); CK(cudaGraphConditionalHandleCreate(&hw, g, 0, 0));
  u64 ns = 5000;
  u64 *rset = rec, *rif = rec + 2, *rw = rec + 4, *rlast = rec + 40;
  u64 *dset = drec, *dif = drec + 2, *dw = drec + 4, *dlast = drec + 40;
  void *aset[] = {&hif, &hw, &state, &dset}; void *aif[] = {&ns, &dif}; void *aw[] = {&hw, &state, &ns, &dw}; void *alast[] = {&ns, &dlast};
  cudaGraphNode_t n = addk(g, nullptr, (void *)gset, aset); cudaGraph_t bif, bw;
  n = addc(g, n, hif, cudaGraphCondTypeIf, &bif); addk(bif, nullptr, (void *)gspin<20>, aif);
  n = addc(g, n, hw, cudaGraphCondTypeWhile, &bw); addk(bw, nullptr, (void *)gwhile, aw);
  cudaGraphNode_t setnode; size_t nn = 0; CK(cudaGraphGetRootNodes(g, &setnode, &(nn = 1)));
  addk(g, n, (void *)gspin<21>, alast);
  cudaEvent_t e1, e2; CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2));
  for (unsigned iv = 0; iv < 2; iv++) for (unsigned k = 0; k <= 3; k++) {
    unsigned hs[4] = {0, 0, k, iv}; CK(cudaMemcpy(state, hs, sizeof hs, cudaMemcpyHostToDevice));
    cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
    std::vector<double> pm, g_set_if, g_if_w, g_w_w, g_w_last, g_set_last;
    for (int r = 0; r < 22; r++) {
      CK(cudaMemset(drec, 0, sizeof rec));
      unsigned sq = ++seqno; gatek<<<1, 1, 0, s>>>(dflag, sq, 20000000ull, nullptr);
      CK(cudaEventRecord(e1, s)); CK(cudaGraphLaunch(ex, s)); CK(cudaEventRecord(e2, s));
      __atomic_store_n(hflag, sq, __ATOMIC_RELEASE); CK(cudaStreamSynchronize(s));
      if (r < 2) continue;
      CK(cudaMemcpy(rec, drec, sizeof rec, cudaMemcpyDeviceToHost));
      float ms; CK(cudaEventElapsedTime(&ms, e1, e2));
      double sum = (rset[1] - rset[0]) / 1000.0 + (rlast[1] - rlast[0]) / 1000.0;
      if (iv) sum += (rif[1] - rif[0]) / 1000.0;
      for (unsigned i = 0; i < k; i++) sum += (rw[2 * i + 1] - rw[2 * i]) / 1000.0;
      pm.push_back(ms * 1000.0 - sum);
      // WHILE records go in reverse order (k-1 first)
      u64 wfirst = k ? rw[2 * (k - 1)] : 0, wlast_end = k ? rw[1] : 0;
      u64 before_w = iv ? rif[1] : rset[1];
      if (iv) g_set_if.push_back(((double)rif[0] - (double)rset[1]) / 1000.0);
      if (k) { g_if_w.push_back(((double)wfirst - (double)before_w) / 1000.0); g_w_last.push_back(((double)rlast[0] - (double)wlast_end) / 1000.0); }
      for (unsigned i = 1; i < k; i++) g_w_w.push_back(((double)rw[2 * (k - 1 - i)] - (double)rw[2 * (k - i) + 1]) / 1000.0);
      if (!k) g_set_last.push_back(((double)rlast[0] - (double)before_w) / 1000.0);
    }
    printf("GRAPH conditional IF=%u WHILE iterations=%u\n", iv, k);
    gstats("pair - sum(spans)", pm);
    if (iv) gstats("gap set end -> IF body start", g_set_if);
    if (k) { gstats("gap before WHILE -> first body start", g_if_w); gstats("gap last body end -> last kernel start", g_w_last); }
    if (k > 1) gstats("gap body end -> next body start", g_w_w);
    if (!k) gstats("gap (IF end or set) -> last kernel (WHILE 0)", g_set_last);
    CK(cudaGraphExecDestroy(ex));
  }
}

int main() {
  CK(cudaFree(0));
  CK(cudaHostAlloc(&hflag, 64 * sizeof *hflag, cudaHostAllocMapped)); for (int i = 0; i < 64; i++) hflag[i] = 0; CK(cudaHostGetDevicePointer(&dflag, hflag, 0));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Rec *wrec; CK(cudaMalloc(&wrec, sizeof *wrec));
  for (int i = 0; i < 20; i++) { unsigned sq = ++seqno; gatek<<<1, 1, 0, s>>>(dflag, sq, 20000000ull, nullptr); __atomic_store_n(hflag, sq, __ATOMIC_RELEASE); stampk<<<1, 1, 0, s>>>(wrec); }
  CK(cudaDeviceSynchronize());
  chain<1>(1, s); chain<2>(2, s); chain<3>(4, s); chain<4>(8, s);
  conditional(s);
  { std::vector<double> od; running = 1; std::thread ot(observer, &od); usleep(30000); running = 0; ot.join(); obs_report("alone", od); }
  for (int rep = 0; rep < 2; rep++) {
    config<1>("1 thread, pipeline +obs", 1, 60, true, true, true); config<3>("8 threads, pipeline +obs", 8, 30, true, true, true);
    config<5>("8 threads, kernels only +obs", 8, 30, false, true, true); config<7>("32 threads, kernels only +obs", 32, 20, false, true, true);
    config<3>("8 threads, pipeline x3 +obs", 8, 90, true, true, true);
    config<2>("8 threads, pipeline not held +obs", 8, 30, true, false, true);
  }
  { std::vector<double> od; running = 1; std::thread ot(observer, &od); usleep(30000); running = 0; ot.join(); obs_report("alone, after", od); }
  for (int rep = 0; rep < 1; rep++) {
    config<0>("1 thread, pipeline", 1, 60, true, false); config<1>("1 thread, pipeline", 1, 60, true, true);
    config<2>("8 threads, pipeline", 8, 30, true, false); config<3>("8 threads, pipeline", 8, 30, true, true);
    config<4>("8 threads, kernels only", 8, 30, false, false); config<5>("8 threads, kernels only", 8, 30, false, true);
    config<6>("32 threads, kernels only", 32, 20, false, false); config<7>("32 threads, kernels only", 32, 20, false, true);
  }
  printf("probe_concurrency: done\n");
  return 0;
}
