/* driver.c: loads the CUDA driver functions libkprof calls itself and the real functions behind its
 * driver wrappers, straight from libcuda.so.1, and maps a driver function's address to its wrapper. */
#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>
#include "cuda_api.h"
#include "log.h"
#include "kprof_config.h"
#include "driver.h"
#include "dlsym_next.h"

struct kprof_driver kprof_drv;

const char *const kprof_dh_names[KPROF_DH_COUNT] = {
#define KPROF_DRIVER_WRAPPED(name, cls) #name,
#include "api.def"
};
void *kprof_dh_real[KPROF_DH_COUNT];

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static int driver_ok;
/* KPROF_DRIVER_* (driver.h), stored once driver_load has run; why it failed, written before. */
static int driver_state;
static char driver_why[256];

static void driver_load(void)
{
    /* The app's cudart dlopens the same library, so this adds no second copy; RTLD_LOCAL keeps
     * libkprof's lookup from changing anyone's symbol resolution. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        /* No driver: the program's own CUDA calls fail as they would without libkprof; nothing to say
         * unless asked. */
        const char *why = dlerror();
        snprintf(driver_why, sizeof driver_why, "%s", why ? why : "libcuda.so.1 not found");
        __atomic_store_n(&driver_state, KPROF_DRIVER_MISSING, __ATOMIC_RELEASE);
        kprof_info("cannot load the CUDA driver (%s); passing every call through", driver_why);
        return;
    }
    /* An explicit handle finds libcuda's own definitions, never libkprof's exported wrappers.  The
     * functions behind the wrappers are what the next dlsym hands out: another dlsym interposer preloaded
     * after libkprof may answer with its own wrapper, which libkprof's then calls. */
    for (int i = 0; i < KPROF_DH_COUNT; i++)
        kprof_dh_real[i] = kprof_next_dlsym(h, kprof_dh_names[i]);
#define KPROF_DRIVER_USED_IF_PRESENT(name)                                                \
    kprof_drv.name = (__typeof__(kprof_drv.name))kprof_real_dlsym(h, #name);
#define KPROF_DRIVER_USED(name)                                                           \
    kprof_drv.name = (__typeof__(kprof_drv.name))kprof_real_dlsym(h, #name);              \
    if (!kprof_drv.name) {                                                                \
        kprof_warn("the CUDA driver lacks %s; passing every call through", #name);       \
        snprintf(driver_why, sizeof driver_why, "libcuda.so.1 lacks %s", #name);          \
        __atomic_store_n(&driver_state, KPROF_DRIVER_MISSING, __ATOMIC_RELEASE);          \
        return;                                                                           \
    }
#include "api.def"
    driver_ok = 1;
    __atomic_store_n(&driver_state, KPROF_DRIVER_LOADED, __ATOMIC_RELEASE);
    __atomic_store_n(&kprof_driver_loaded, 1, __ATOMIC_RELEASE);
}

int kprof_driver_state(const char **why)
{
    int st = __atomic_load_n(&driver_state, __ATOMIC_ACQUIRE);
    if (why)
        *why = st == KPROF_DRIVER_MISSING ? driver_why : NULL;
    return st;
}

int kprof_driver_loaded;

int kprof_driver_ready_slow(void)
{
    pthread_once(&driver_once, driver_load);
    return driver_ok;
}

void *kprof_dh_real_get_slow(int index)
{
    pthread_once(&driver_once, driver_load);
    return kprof_dh_real[index];
}

const void *kprof_driver_wrapper_for(const void *real)
{
    if (!real || !kprof_driver_ready() || kprof_config.disabled)
        return NULL;
    for (int i = 0; i < KPROF_DH_COUNT; i++)
        if (kprof_dh_real[i] == real)
            return kprof_dh_wrapper[i];
    return NULL;
}

unsigned int kprof_memory_type(CUdeviceptr p)
{
    /* cuPointerGetAttributes answers 0 with success for memory CUDA does not know (pageable host memory),
     * where cuPointerGetAttribute fails: libkprof's query never shows up as an error. */
    unsigned int type = 0;
    CUpointer_attribute attr = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    void *data = &type;
    if (!p || kprof_drv.cuPointerGetAttributes(1, &attr, &data, p) != CUDA_SUCCESS)
        return 0;
    return type;
}

enum kprof_host_mem kprof_host_mem_of(const void *p)
{
    return kprof_memory_type((CUdeviceptr)(uintptr_t)p) == CU_MEMORYTYPE_HOST ? KPROF_HOST_PINNED : KPROF_HOST_PAGEABLE;
}

enum kprof_host_mem kprof_copy_host_mem(enum kprof_dir dir, const void *dst, const void *src)
{
    switch (dir) {
    case KPROF_HTOD:
    case KPROF_HTOH: return kprof_host_mem_of(src);
    case KPROF_DTOH: return kprof_host_mem_of(dst);
    default: return KPROF_HOST_NONE;
    }
}
