/* driver.c: loads the CUDA driver functions libkprof itself calls, straight from libcuda.so.1. */
#include <dlfcn.h>
#include <pthread.h>
#include "kprof.h"

struct kprof_driver kprof_drv;

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static int driver_ok;

static void driver_load(void)
{
    /* The app's cudart dlopens the same library, so this adds no second copy; RTLD_LOCAL keeps
     * libkprof's lookup from changing anyone's symbol resolution. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        kprof_warn("cannot load the CUDA driver (libcuda.so.1: %s); passing every call through", dlerror());
        return;
    }
#define KPROF_DRV(name)                                                                   \
    kprof_drv.name = (__typeof__(kprof_drv.name))dlsym(h, #name);                         \
    if (!kprof_drv.name) {                                                                \
        kprof_warn("the CUDA driver lacks %s; passing every call through", #name);       \
        return;                                                                           \
    }
#include "api.def"
    driver_ok = 1;
}

int kprof_driver_ready(void)
{
    pthread_once(&driver_once, driver_load);
    return driver_ok;
}
