/* cuda_probe.c: a program that is not linked with CUDA and asks "is CUDA here?" the usual ways:
 * dlsym(RTLD_DEFAULT) of driver and runtime names, before any CUDA library is loaded, after
 * dlopen(argv[1]) (the driver, RTLD_GLOBAL) and after dlopen(argv[2]) (the runtime, RTLD_GLOBAL).
 * Prints one line per lookup on stdout ("found", or "missing" and whether dlerror says why), then on
 * its last line what a weak reference to cuInit was bound to at load time and, if bound, whether
 * calling it (before the driver was loaded) returned an error. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

extern int cuInit(unsigned int flags) __attribute__((weak));

static void probe(const char *stage)
{
    static const char *const names[] = { "cuInit", "cuGetProcAddress_v2", "cuLaunchKernel", "cudaMalloc",
                                         "cudaLaunchKernel", "__cudaRegisterFatBinary" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        dlerror();
        void *p = dlsym(RTLD_DEFAULT, names[i]);
        const char *err = p ? NULL : dlerror();
        printf("%s: %s %s%s\n", stage, names[i], p ? "found" : "missing",
               p ? "" : err ? " (dlerror set)" : " (no dlerror)");
    }
}

int main(int argc, char **argv)
{
    const char *weak = !cuInit           ? "weak cuInit: unbound"
                       : cuInit(0) != 0 ? "weak cuInit: bound, returns an error"
                                        : "weak cuInit: bound, returns success";
    probe("nothing loaded");
    if (argc > 1 && !dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "cuda_probe: %s\n", dlerror());
        return 1;
    }
    probe("driver loaded");
    if (argc > 2 && !dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "cuda_probe: %s\n", dlerror());
        return 1;
    }
    probe("runtime loaded");
    puts(weak);
    return 0;
}
