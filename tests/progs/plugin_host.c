/* plugin_host.c: loads progs/libplugin.so with RTLD_LOCAL (it links no CUDA library itself) and calls it. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "./libplugin.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "plugin_host: %s\n", dlerror());
        return 2;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "plugin_run");
    int r1 = run(), r2 = run();
    printf("plugin_host: plugin_run returned %d and %d\n", r1, r2);
    return r1 || r2;
}
