// nvrtc: kernels compiled at run time with NVRTC, loaded with cuModuleLoadData, launched with cuLaunchKernel.
// A template instance found by its name expression and an extern "C" kernel, 40 launches each, in the
// primary context cudart created.
#include <cstring>
#include <string>
#include <vector>
#include <cuda.h>
#include <nvrtc.h>
#include "common.cuh"

#define CU(x)                                                                                              \
    do {                                                                                                   \
        CUresult r_ = (x);                                                                                 \
        if (r_ != CUDA_SUCCESS) {                                                                          \
            fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__, __LINE__, #x, (int)r_);                  \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)
#define NV(x)                                                                                              \
    do {                                                                                                   \
        nvrtcResult r_ = (x);                                                                              \
        if (r_ != NVRTC_SUCCESS) {                                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, nvrtcGetErrorString(r_));           \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static const char *source = R"(
__device__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
template <int N> __global__ void nvrtc_spin(unsigned long long ns, unsigned int *count) {
    unsigned long long t0 = gt();
    while (gt() - t0 < ns) {}
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(count, N);
}
extern "C" __global__ void nvrtc_saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

int main()
{
    int dev = 0, major, minor;
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    unsigned int *count;
    float *x, *y;
    const int n = 1 << 20;
    CK(cudaMalloc(&count, sizeof *count));
    CK(cudaMemset(count, 0, sizeof *count));
    CK(cudaMalloc(&x, n * sizeof *x));
    CK(cudaMalloc(&y, n * sizeof *y));
    std::vector<float> h(n, 1.0f);
    CK(cudaMemcpy(x, h.data(), n * sizeof *x, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, h.data(), n * sizeof *y, cudaMemcpyHostToDevice));

    nvrtcProgram prog;
    NV(nvrtcCreateProgram(&prog, source, "nvrtc_kernels.cu", 0, nullptr, nullptr));
    NV(nvrtcAddNameExpression(prog, "nvrtc_spin<3>"));
    std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
    const char *opts[] = {arch.c_str(), "-std=c++17"};
    nvrtcResult rc = nvrtcCompileProgram(prog, 2, opts);
    if (rc != NVRTC_SUCCESS) {
        size_t len;
        nvrtcGetProgramLogSize(prog, &len);
        std::string log(len, '\0');
        nvrtcGetProgramLog(prog, &log[0]);
        fprintf(stderr, "nvrtc: %s\n%s\n", nvrtcGetErrorString(rc), log.c_str());
        return 1;
    }
    const char *lowered;
    NV(nvrtcGetLoweredName(prog, "nvrtc_spin<3>", &lowered));
    std::string spin_name = lowered; // valid only while prog lives
    size_t size;
    NV(nvrtcGetCUBINSize(prog, &size));
    std::vector<char> cubin(size);
    NV(nvrtcGetCUBIN(prog, cubin.data()));
    NV(nvrtcDestroyProgram(&prog));

    CUmodule mod;
    CUfunction fspin, fsaxpy;
    CU(cuModuleLoadData(&mod, cubin.data()));
    CU(cuModuleGetFunction(&fspin, mod, spin_name.c_str()));
    CU(cuModuleGetFunction(&fsaxpy, mod, "nvrtc_saxpy"));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    unsigned long long ns = 12000;
    float a = 2.0f;
    int nn = n;
    void *spin_args[] = {&ns, &count};
    void *saxpy_args[] = {&a, &x, &y, &nn};
    for (int i = 0; i < 40; i++) {
        CU(cuLaunchKernel(fspin, 1, 1, 1, 32, 1, 1, 0, s, spin_args, nullptr));
        CU(cuLaunchKernel(fsaxpy, n / 256, 1, 1, 256, 1, 1, 0, s, saxpy_args, nullptr));
        if (i % 8 == 7)
            CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    unsigned got;
    CK(cudaMemcpy(&got, count, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h.data(), y, n * sizeof *y, cudaMemcpyDeviceToHost));
    EXPECT(got == 3 * 40);
    EXPECT(h[0] == 81.0f && h[n - 1] == 81.0f); // 1 + 40 * 2 * 1
    CU(cuModuleUnload(mod));
    printf("nvrtc: ok (%s)\n", spin_name.c_str());
    return 0;
}
