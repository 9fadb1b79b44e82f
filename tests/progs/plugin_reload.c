/* plugin_reload.c: loads a plugin linking libcudart with RTLD_LOCAL, calls it, unloads it (and with it
 * libcudart), then loads copies of both from another directory, at another address (the old one is
 * reserved so that the copy cannot land there), and calls the copy.
 * Usage: plugin_reload PLUGIN COPYDIR, where COPYDIR holds copies of libcudart.so.13 and libplugin.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

struct range { uintptr_t lo, hi; };

/* The address range of the loaded libcudart, if any. */
static int find_cudart(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct range *r = data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libcudart.so"))
        return 0;
    r->lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            if (a < r->lo)
                r->lo = a;
            if (a + info->dlpi_phdr[i].p_memsz > r->hi)
                r->hi = a + info->dlpi_phdr[i].p_memsz;
        }
    return 1;
}

static int run_plugin(const char *path, struct range *where)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "plugin_reload: %s\n", dlerror());
        return -1;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "plugin_run");
    memset(where, 0, sizeof *where);
    dl_iterate_phdr(find_cudart, where);
    int r = run ? run() : -1;
    if (dlclose(h) != 0)
        fprintf(stderr, "plugin_reload: dlclose: %s\n", dlerror());
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: plugin_reload PLUGIN COPYDIR\n");
        return 2;
    }
    struct range first, now = { 0, 0 }, second;
    int r1 = run_plugin(argv[1], &first);
    dl_iterate_phdr(find_cudart, &now);
    if (!first.hi || now.hi) {
        fprintf(stderr, "plugin_reload: libcudart was %s loaded, and %s unloaded\n", first.hi ? "" : "not",
                now.hi ? "not" : "");
        return 2;
    }
    /* The unloaded runtime released its primary context (its teardown ran at dlclose), which stays
     * current on this thread, destroyed: the program lets the next runtime start afresh. */
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int (*set_current)(void *) = drv ? (int (*)(void *))dlsym(drv, "cuCtxSetCurrent") : NULL;
    if (!set_current || set_current(NULL) != 0) {
        fprintf(stderr, "plugin_reload: cannot clear the current context\n");
        return 2;
    }
    /* Keep the old address range from being reused: the copy must load elsewhere. */
    size_t len = ((first.hi - first.lo) + 4095) & ~(size_t)4095;
    void *hole = mmap((void *)(first.lo & ~(uintptr_t)4095), len, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (hole == MAP_FAILED)
        perror("plugin_reload: mmap (the copy may load at the same address)");

    char rt[4096], plugin[4096];
    snprintf(rt, sizeof rt, "%s/libcudart.so.13", argv[2]);
    snprintf(plugin, sizeof plugin, "%s/libplugin.so", argv[2]);
    /* The copy's runtime first: the plugin copy's NEEDED libcudart.so.13 then resolves to it by soname. */
    void *hrt = dlopen(rt, RTLD_NOW | RTLD_LOCAL);
    if (!hrt) {
        fprintf(stderr, "plugin_reload: %s\n", dlerror());
        return 2;
    }
    int r2 = run_plugin(plugin, &second);
    if (second.lo == first.lo) {
        fprintf(stderr, "plugin_reload: the copy of libcudart loaded at the same address\n");
        return 2;
    }
    printf("plugin_reload: plugin_run returned %d, then %d from the copy at another address\n", r1, r2);
    dlclose(hrt);
    return r1 || r2;
}
