/* secure_prog.c: run setuid root by an unprivileged user in the secure-execution test.  It dlopens
 * libkprof.so (argv[1]) as /etc/ld.so.preload would bring it in, then the fake driver (argv[2]) and
 * runtime (argv[3]) by path (ld.so ignores LD_LIBRARY_PATH in secure mode), and calls cudaMalloc and
 * cudaFree through libkprof's wrappers.  Prints "secure=S euid=E" (getauxval(AT_SECURE), geteuid()) and
 * each call's result on stdout; exits 1 if something could not be loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);

int main(int argc, char **argv)
{
    printf("secure=%lu euid=%ld\n", getauxval(AT_SECURE), (long)geteuid());
    if (argc < 4)
        return 1;
    void *kprof = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!kprof || !dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL) || !dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "secure_prog: %s\n", dlerror());
        return 1;
    }
    malloc_fn m = (malloc_fn)dlsym(kprof, "cudaMalloc");
    free_fn f = (free_fn)dlsym(kprof, "cudaFree");
    if (!m || !f)
        return 1;
    void *p = NULL;
    printf("cudaMalloc %d\n", m(&p, 4096));
    printf("cudaFree %d\n", f(p));
    return 0;
}
