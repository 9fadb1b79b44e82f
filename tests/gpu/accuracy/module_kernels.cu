// module_kernels.cu: the kernels module_load loads, embedded by build.sh as PTX and as a cubin.
// Not a program of its own.
__device__ __forceinline__ unsigned long long globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#define SPIN_KERNEL(NAME)                                                                                  \
    extern "C" __global__ void NAME(unsigned long long ns, unsigned int *count)                            \
    {                                                                                                      \
        unsigned long long t0 = globaltimer();                                                             \
        while (globaltimer() - t0 < ns) {                                                                  \
        }                                                                                                  \
        if (threadIdx.x == 0 && blockIdx.x == 0)                                                           \
            atomicAdd(count, 1u);                                                                          \
    }

SPIN_KERNEL(mod_ptx_spin)     // launched from the PTX module with cuLaunchKernel
SPIN_KERNEL(mod_cubin_spin)   // launched from the cubin module with cuLaunchKernelEx
SPIN_KERNEL(mod_library_spin) // launched from cuLibraryLoadData's library with cuLaunchKernel
