"""cupy_rawkernel: a cupy.RawKernel (NVRTC-compiled at run time, launched with cuLaunchKernel) launched 50
times, a templated kernel of a cupy.RawModule launched 20 times, and CuPy's own elementwise kernels."""
import sys

import cupy as cp

SOURCE = r"""
__device__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
extern "C" __global__ void cupy_spin(unsigned long long ns, unsigned int *count) {
    unsigned long long t0 = gt();
    while (gt() - t0 < ns) {}
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(count, 1u);
}
template <typename T> __global__ void cupy_scale(T *x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""
count = cp.zeros(2, dtype=cp.uint32)
spin = cp.RawKernel(SOURCE, "cupy_spin")
for _ in range(50):
    spin((1,), (32,), (cp.uint64(15000), count))
mod = cp.RawModule(code=SOURCE, name_expressions=["cupy_scale<float>"])
scale = mod.get_function("cupy_scale<float>")
n = 1 << 20
x = cp.ones(n, dtype=cp.float32)
for _ in range(20):
    scale((n // 256,), (256,), (x, cp.float32(1.5), cp.int32(n)))
z = x * 2.0 + 1.0  # CuPy elementwise kernels
total = float(z.sum())
cp.cuda.Device().synchronize()
want = n * (2.0 * 1.5 ** 20 + 1.0)
ok = int(count[0]) == 50 and abs(total - want) <= 1e-4 * want
print("cupy_rawkernel: %d spins, sum %.6g (want %.6g): %s" % (int(count[0]), total, want, "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
