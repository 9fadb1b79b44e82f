/* stats.c: aggregation: kernels (by mangled name), copies by direction, allocations, the host-side API
 * table and context creation; and the snapshot the report writers read. */
#include <dlfcn.h>
#include <math.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "histogram.h"
#include "log.h"
#include "kprof_config.h"
#include "driver.h"
#include "clock.h"
#include "resolve.h"
#include "fork.h"
#include "timing.h"
#include "kernels.h"
#include "kernel_name.h"
#include "stats.h"
#include "snapshot.h"

#define ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)


/* ---- names ----------------------------------------------------------------------------------- */

struct ptr_entry {
    const void *key;
    void *value;        /* a mangled name (owned), a host stub, or a struct kprof_kernel * */
    UT_hash_handle hh;
};

static struct {
    pthread_rwlock_t lock;          /* the three maps and the kernel table */
    struct ptr_entry *stub_names;   /* host stub -> mangled name */
    struct ptr_entry *handle_stubs; /* cudaKernel_t -> host stub */
    struct ptr_entry *launch_keys;  /* launch key (handle or stub) -> struct kprof_kernel */
    struct kprof_kernel *kernels;   /* by mangled name */
    size_t nkernels;
} names = { .lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP }; /* writers (new names) are rare */

/* Sets key -> value in *map (replacing); call with names.lock held for writing. */
static void ptr_map_set(struct ptr_entry **map, const void *key, void *value)
{
    struct ptr_entry *e;
    HASH_FIND_PTR(*map, &key, e);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e)
            return;
        e->key = key;
        HASH_ADD_PTR(*map, key, e);
    }
    e->value = value;
}

static void *ptr_map_get(struct ptr_entry *map, const void *key)
{
    struct ptr_entry *e;
    HASH_FIND_PTR(map, &key, e);
    return e ? e->value : NULL;
}

void kprof_names_register(const void *host_stub, const char *mangled)
{
    if (!host_stub || !mangled)
        return;
    char *copy = strdup(mangled);
    if (!copy)
        return;
    pthread_rwlock_wrlock(&names.lock);
    char *old = ptr_map_get(names.stub_names, host_stub);
    ptr_map_set(&names.stub_names, host_stub, copy);
    pthread_rwlock_unlock(&names.lock);
    free(old);
}

void kprof_names_bind(const void *kernel_handle, const void *host_stub)
{
    if (!kernel_handle || !host_stub || kernel_handle == host_stub)
        return;
    /* Host stubs look their kernel up once, but some programs ask on every launch: only new bindings
     * take the lock for writing. */
    pthread_rwlock_rdlock(&names.lock);
    int known = ptr_map_get(names.handle_stubs, kernel_handle) == host_stub;
    pthread_rwlock_unlock(&names.lock);
    if (known)
        return;
    pthread_rwlock_wrlock(&names.lock);
    ptr_map_set(&names.handle_stubs, kernel_handle, (void *)host_stub);
    pthread_rwlock_unlock(&names.lock);
}

/* The runtime's own name for key, asked without disturbing the app's last-error state: only when no
 * error is pending, and clearing the one the query itself may leave.  Returns a malloc'd copy or NULL. */
static char *name_from_runtime(const void *key)
{
    if (!KPROF_REAL_RT(cudaFuncGetName) || !kprof_rt_quiet_begin())
        return NULL;
    const char *n = NULL;
    cudaError_t r = kprof_rt.cudaFuncGetName(&n, key);
    kprof_rt_quiet_end(r);
    return r == cudaSuccess && n ? strdup(n) : NULL;
}

/* Finds or creates the kernel entry for a mangled name; call with names.lock held for writing.  Takes
 * ownership of the three strings' worth: `mangled_owned` and `demangled_owned` (NULL when demangling
 * failed), and uses `selected` (kprof_name_selected), both worked out before the lock was taken. */
static struct kprof_kernel *kernel_by_name(char *mangled_owned, char *demangled_owned, int selected)
{
    struct kprof_kernel *k;
    HASH_FIND_STR(names.kernels, mangled_owned, k);
    if (k) {
        free(mangled_owned);
        free(demangled_owned);
        return k;
    }
    k = calloc(1, sizeof *k);
    if (!k) {
        free(mangled_owned);
        free(demangled_owned);
        return NULL;
    }
    k->mangled = mangled_owned;
    k->min_ns = UINT64_MAX;
    k->selected = selected;
    if (kprof_config.names == KPROF_NAMES_MANGLED || !demangled_owned) {
        free(demangled_owned);
        k->name = strdup(k->mangled);
    } else {
        k->name = demangled_owned;
    }
    if (k->name && kprof_config.names == KPROF_NAMES_BASE)
        k->base = kprof_kernel_base_name(k->name); /* NULL when out of memory: the full name is shown */
    if (!k->name) {
        free(k->mangled);
        free(k);
        return NULL;
    }
    HASH_ADD_KEYPTR(hh, names.kernels, k->mangled, strlen(k->mangled), k);
    names.nkernels++;
    return k;
}

void kprof_kernel_captured(struct kprof_kernel *k)
{
    ATOMIC_ADD(&k->captured, 1);
}

struct kprof_kernel *kprof_kernel_shaped(struct kprof_kernel *k, const unsigned grid[3], const unsigned block[3])
{
    unsigned key[6] = { grid[0], grid[1], grid[2], block[0], block[1], block[2] };
    pthread_rwlock_rdlock(&names.lock);
    struct kprof_kernel *c;
    HASH_FIND(hh, k->shapes, key, sizeof key, c);
    pthread_rwlock_unlock(&names.lock);
    if (c)
        return c;
    pthread_rwlock_wrlock(&names.lock);
    HASH_FIND(hh, k->shapes, key, sizeof key, c);
    if (!c && (c = calloc(1, sizeof *c)) != NULL) {
        c->mangled = strdup(k->mangled);
        c->name = strdup(k->name);
        c->base = k->base ? strdup(k->base) : NULL;
        if (!c->mangled || !c->name) {
            free(c->base);
            free(c->mangled);
            free(c->name);
            free(c);
            c = NULL;
        } else {
            c->selected = k->selected;
            c->min_ns = UINT64_MAX;
            c->parent = k;
            memcpy(c->shape_key, key, sizeof key);
            memcpy(c->grid, grid, sizeof c->grid);
            memcpy(c->block, block, sizeof c->block);
            HASH_ADD(hh, k->shapes, shape_key, sizeof key, c);
            names.nkernels++;
        }
    }
    pthread_rwlock_unlock(&names.lock);
    return c ? c : k;
}

/* Bumped when a module or library is unloaded: a kernel handle (a CUfunction or CUkernel address) may then
 * come back for another kernel, so every launch key is looked up and named again. */
unsigned kprof_names_epoch;

void kprof_names_code_unloaded(void)
{
    pthread_rwlock_wrlock(&names.lock);
    struct ptr_entry *e, *tmp;
    HASH_ITER(hh, names.launch_keys, e, tmp) {
        HASH_DEL(names.launch_keys, e);
        free(e);
    }
    __atomic_add_fetch(&kprof_names_epoch, 1, __ATOMIC_RELAXED);
    pthread_rwlock_unlock(&names.lock);
}

__thread struct kprof_kernel_slot kprof_tls_kernels[KPROF_TLS_KERNELS] __attribute__((tls_model("initial-exec")));

/* How a launch key names its kernel. */
enum key_kind { KEY_RUNTIME, KEY_FUNCTION, KEY_KERNEL };

/* The driver's name for a function or kernel handle, copied; NULL if it has none.  The query that fits
 * the handle's kind is asked first (cuFuncGetName for a CUfunction, cuKernelGetName for a CUkernel), so
 * a handle of the kind it was given as never gets a failed call; a CUkernel passed as a CUfunction (which
 * cuLaunchKernel accepts) still gets its name from the second query. */
static char *driver_func_name(CUfunction f)
{
    const char *n = NULL;
    return kprof_drv.cuFuncGetName && kprof_drv.cuFuncGetName(&n, f) == CUDA_SUCCESS && n ? strdup(n) : NULL;
}

static char *driver_kernel_name(CUkernel k)
{
    const char *n = NULL;
    return kprof_drv.cuKernelGetName && kprof_drv.cuKernelGetName(&n, k) == CUDA_SUCCESS && n ? strdup(n) : NULL;
}

static char *name_from_driver(CUfunction f, int is_kernel)
{
    char *n = is_kernel ? driver_kernel_name((CUkernel)f) : driver_func_name(f);
    if (!n)
        n = is_kernel ? driver_func_name(f) : driver_kernel_name((CUkernel)f);
    return n;
}

/* Shared by both lookups: the TLS cache, then the launch-key map, then `namer` for a new key. */
static struct kprof_kernel *kernel_lookup(const void *key, enum key_kind kind)
{
    struct kprof_kernel_slot *slot = kprof_kernel_slot(key);
    unsigned epoch = __atomic_load_n(&kprof_names_epoch, __ATOMIC_RELAXED);
    if (slot->key == key && key && slot->epoch == epoch)
        return slot->k;

    pthread_rwlock_rdlock(&names.lock);
    struct kprof_kernel *k = ptr_map_get(names.launch_keys, key);
    const void *stub = ptr_map_get(names.handle_stubs, key);
    const char *reg = ptr_map_get(names.stub_names, stub ? stub : key);
    char *mangled = (!k && reg) ? strdup(reg) : NULL;
    pthread_rwlock_unlock(&names.lock);

    if (!k) {
        if (!mangled)
            mangled = kind == KEY_RUNTIME ? name_from_runtime(key) : name_from_driver((CUfunction)key, kind == KEY_KERNEL);
        if (!mangled) {
            char buf[64];
            snprintf(buf, sizeof buf, "<unknown kernel %p>", key);
            mangled = strdup(buf);
        }
        if (!mangled)
            return NULL;
        /* Demangling and the KPROF_INCLUDE/KPROF_EXCLUDE match can take a while on long names: done
         * before the lock is taken, so that other threads' launches never wait for them. */
        char *demangled = kprof_demangle(mangled);
        int selected = kprof_name_selected(demangled ? demangled : mangled);
        pthread_rwlock_wrlock(&names.lock);
        k = ptr_map_get(names.launch_keys, key);
        if (!k) {
            k = kernel_by_name(mangled, demangled, selected);
            if (k)
                ptr_map_set(&names.launch_keys, key, k);
        } else {
            free(mangled);
            free(demangled);
        }
        pthread_rwlock_unlock(&names.lock);
    }
    slot->key = key;
    slot->k = k;
    slot->epoch = epoch;
    return k;
}

struct kprof_kernel *kprof_kernel_for_slow(const void *key)
{
    return kernel_lookup(key, KEY_RUNTIME);
}

struct kprof_kernel *kprof_kernel_for_function_slow(CUfunction f)
{
    return kernel_lookup(f, KEY_FUNCTION);
}

struct kprof_kernel *kprof_kernel_for_kernel(CUkernel k)
{
    return kernel_lookup(k, KEY_KERNEL);
}

/* ---- GPU times ------------------------------------------------------------------------------- */

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kprof_copy copies[KPROF_DIR_COUNT][KPROF_HOST_COUNT];

/* KPROF_SAMPLE: k's untimed launches that succeeded (kprof_kernel_untimed_done): the numbers below k->seq
 * that were not timed (every sample-th, from 0, is), less those that failed or were captured.  A launch
 * in flight counts as if it succeeded (a fold takes it back later if it failed).  0 without sampling. */
static uint64_t kernel_untimed(const struct kprof_kernel *k)
{
    uint64_t n = (uint64_t)kprof_config.sample;
    if (n <= 1 || k->is_graph)
        return 0;
    uint64_t seq = __atomic_load_n(&k->seq, __ATOMIC_RELAXED);
    return seq - (seq + n - 1) / n - __atomic_load_n(&k->untimed_lost, __ATOMIC_RELAXED);
}

int kprof_kernel_count(struct kprof_kernel *k, dim3 grid, dim3 block)
{
    uint64_t before = ATOMIC_ADD(&k->calls, 1);
    kprof_kernel_shape(k, grid, block);
    return before == 0 && kernel_untimed(k) == 0; /* KPROF_SAMPLE: an untimed launch may have come first */
}

void kprof_kernel_add_time(struct kprof_kernel *k, uint64_t ns, int first)
{
    pthread_mutex_lock(&stats_lock);
    /* Atomic: kprof_kernel_mean_ns reads these without the lock (launching threads deciding on one-event
     * timing). */
    __atomic_store_n(&k->timed, k->timed + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&k->total_ns, k->total_ns + ns, __ATOMIC_RELAXED);
    if (first) {
        k->first_timed = 1;
        k->first_ns = ns;
    } else {
        k->steady_ns += ns;
        if (ns < k->min_ns)
            k->min_ns = ns;
        if (ns > k->max_ns)
            k->max_ns = ns;
        uint64_t n = k->timed - (uint64_t)k->first_timed;
        double d = (double)ns - k->mean_ns;
        k->mean_ns += d / (double)n;
        k->m2 += d * ((double)ns - k->mean_ns);
        kprof_hist_add(&k->hist, ns);
    }
    pthread_mutex_unlock(&stats_lock);
}

static struct kprof_copy memsets;
const char *const kprof_host_mem_names[KPROF_HOST_COUNT] = { "-", "pinned", "pageable" };

void kprof_copy_describe(const struct kprof_copy *c, enum kprof_dir *dir, enum kprof_host_mem *host)
{
    size_t i = (size_t)(c - &copies[0][0]);
    *dir = (enum kprof_dir)(i / KPROF_HOST_COUNT);
    *host = (enum kprof_host_mem)(i % KPROF_HOST_COUNT);
}

int kprof_copy_is_memset(const struct kprof_copy *c)
{
    return c == &memsets;
}

struct kprof_copy *kprof_memset_count(size_t bytes)
{
    ATOMIC_ADD(&memsets.count, 1);
    ATOMIC_ADD(&memsets.bytes, (uint64_t)bytes);
    return &memsets;
}

struct kprof_copy *kprof_copy_count(enum kprof_dir dir, enum kprof_host_mem host, size_t bytes)
{
    struct kprof_copy *c = &copies[dir][dir == KPROF_DTOD ? KPROF_HOST_NONE : host];
    ATOMIC_ADD(&c->count, 1);
    ATOMIC_ADD(&c->bytes, (uint64_t)bytes);
    return c;
}

void kprof_copy_add_time(struct kprof_copy *c, uint64_t ns, uint64_t bytes)
{
    pthread_mutex_lock(&stats_lock);
    c->timed++;
    c->timed_bytes += bytes;
    c->total_ns += ns;
    if (c->timed == 1 || ns < c->min_ns)
        c->min_ns = ns;
    if (ns > c->max_ns)
        c->max_ns = ns;
    double d = (double)ns - c->mean_ns;
    c->mean_ns += d / (double)c->timed;
    c->m2 += d * ((double)ns - c->mean_ns);
    kprof_hist_add(&c->hist, ns);
    pthread_mutex_unlock(&stats_lock);
}

double kprof_copy_instances_median(const struct kprof_copy *c)
{
    return kprof_hist_median(&c->hist, NULL);
}

double kprof_kernel_instances_median(const struct kprof_kernel *k)
{
    return kprof_hist_median(&k->hist, k->first_timed ? &k->first_ns : NULL);
}

uint64_t kprof_kernel_percentile(const struct kprof_kernel *k, double q)
{
    if (kprof_hist_count(&k->hist) > 0)
        return kprof_hist_percentile(&k->hist, q);
    return k->first_timed ? k->first_ns : 0;
}

/* ---- samples: devices' busy time and the trace ------------------------------------------------ */

/* The union of a device's kernel intervals, kept as up to BUSY_OPEN disjoint intervals sorted by start;
 * when full, the oldest is closed into busy_closed (pairs arrive nearly in time order, so nothing later
 * overlaps it).  Bounded memory however many kernels run. */
#define BUSY_OPEN 256
#define MAX_DEVICES 64
struct busy { uint64_t start, end; };
static struct device_acc {
    int used;
    uint64_t kernel_ns, kernels, busy_closed;
    struct busy open[BUSY_OPEN];
    int nopen;
} devices[MAX_DEVICES];

static void busy_add(struct device_acc *d, uint64_t start, uint64_t end)
{
    if (end <= start)
        return;
    /* Samples arrive nearly in time order, so the place is found from the newest end: j is one past the
     * last interval starting at or before `end`, [i, j) the ones it touches, merged with it. */
    int j = d->nopen;
    while (j > 0 && d->open[j - 1].start > end)
        j--;
    int i = j;
    while (i > 0 && d->open[i - 1].end >= start)
        i--;
    if (i < j) {
        if (d->open[i].start < start)
            start = d->open[i].start;
        if (d->open[j - 1].end > end)
            end = d->open[j - 1].end;
    }
    if (j == i && d->nopen == BUSY_OPEN) { /* full: close the oldest quarter at once (one move, not one each) */
        if (i == 0) { /* older than everything kept: count it closed */
            d->busy_closed += end - start;
            return;
        }
        int k = i < BUSY_OPEN / 4 ? i : BUSY_OPEN / 4;
        for (int c = 0; c < k; c++)
            d->busy_closed += d->open[c].end - d->open[c].start;
        memmove(&d->open[0], &d->open[k], (size_t)(d->nopen - k) * sizeof d->open[0]);
        d->nopen -= k;
        i -= k;
        j -= k;
    }
    memmove(&d->open[i + 1], &d->open[j], (size_t)(d->nopen - j) * sizeof d->open[0]);
    d->nopen -= j - i - 1;
    d->open[i].start = start;
    d->open[i].end = end;
}

/* Where each stream's last kernel ended on the timeline, by stream number (0: none yet).  A stream runs its
 * kernels one after another, but a start is read as float ms from a reference event and can land a few ns
 * (on a GPU, up to its event resolution) before the previous kernel's end: taken at face value, the two
 * would overlap and the union (busy) read less than the stream's own kernel time. */
static struct {
    uint64_t *end;
    size_t n;
} stream_ends;

/* The start of a kernel that began at start_ns on stream `index`, no earlier than the stream's last
 * kernel's end; records its end.  Under stats_lock. */
static uint64_t stream_ordered_start(unsigned index, uint64_t start_ns, uint64_t dur_ns)
{
    if (index >= stream_ends.n) {
        size_t n = (size_t)index + 16;
        uint64_t *a = realloc(stream_ends.end, n * sizeof *a);
        if (!a)
            return start_ns; /* no memory: the start as read */
        memset(a + stream_ends.n, 0, (n - stream_ends.n) * sizeof *a);
        stream_ends.end = a;
        stream_ends.n = n;
    }
    uint64_t *last = &stream_ends.end[index];
    if (start_ns < *last) /* the pairs of a stream are read in its order */
        start_ns = *last;
    if (start_ns + dur_ns > *last)
        *last = start_ns + dur_ns;
    return start_ns;
}

static struct {
    struct kprof_trace_event *ev;
    size_t n, cap;
    uint64_t dropped;
    struct kprof_stream_name *streams;
    size_t nstreams;
} trace;

void kprof_stream_named(unsigned index, int device, const char *name)
{
    pthread_mutex_lock(&stats_lock);
    if (index >= trace.nstreams) {
        size_t n = (size_t)index + 16;
        struct kprof_stream_name *a = realloc(trace.streams, n * sizeof *a);
        if (a) {
            memset(a + trace.nstreams, 0, (n - trace.nstreams) * sizeof *a);
            trace.streams = a;
            trace.nstreams = n;
        }
    }
    if (index < trace.nstreams) {
        free(trace.streams[index].name);
        trace.streams[index].name = strdup(name);
        trace.streams[index].device = device;
    }
    pthread_mutex_unlock(&stats_lock);
}

static void trace_add(const struct kprof_sample *s)
{
    if (trace.n == trace.cap) {
        if (trace.cap >= (size_t)kprof_config.trace_limit) {
            trace.dropped++;
            return;
        }
        size_t cap = trace.cap ? trace.cap * 2 : 4096;
        if (cap > (size_t)kprof_config.trace_limit)
            cap = (size_t)kprof_config.trace_limit;
        struct kprof_trace_event *e = realloc(trace.ev, cap * sizeof *e);
        if (!e) {
            trace.dropped++;
            return;
        }
        trace.ev = e;
        trace.cap = cap;
    }
    struct kprof_trace_event *e = &trace.ev[trace.n++];
    e->start_ns = s->start_ns;
    e->dur_ns = s->dur_ns;
    e->target = s->target;
    e->bytes = s->bytes;
    memcpy(e->grid, s->grid, sizeof e->grid);
    memcpy(e->block, s->block, sizeof e->block);
    e->device = s->device;
    e->stream_index = s->stream_index;
    e->kind = (unsigned char)s->kind;
    e->pred = s->pred;
    e->shared = s->shared;
    e->taken_ns = s->taken_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)s->taken_ns;
}

void kprof_sample_record(const struct kprof_sample *s)
{
    if (s->kind == KPROF_TARGET_COPY)
        kprof_copy_add_time(s->target, s->dur_ns, s->bytes);
    else
        kprof_kernel_add_time(s->target, s->dur_ns, s->kind == KPROF_TARGET_KERNEL_FIRST);
    /* A graph's time counts as kernel time on its device: its kernels are not timed one by one. */
    pthread_mutex_lock(&stats_lock);
    if (s->kind != KPROF_TARGET_COPY && s->device >= 0 && s->device < MAX_DEVICES) {
        struct device_acc *d = &devices[s->device];
        d->used = 1;
        d->kernel_ns += s->dur_ns;
        d->kernels++;
        if (s->has_time) {
            uint64_t start = stream_ordered_start(s->stream_index, s->start_ns, s->dur_ns);
            busy_add(d, start, start + s->dur_ns);
        }
    }
    if (kprof_config.trace && s->has_time)
        trace_add(s);
    pthread_mutex_unlock(&stats_lock);
}

/* ---- allocations ----------------------------------------------------------------------------- */

const char *const kprof_mem_names[KPROF_MEM_COUNT] = { "device", "pinned", "managed" };

/* Live allocations, so a free knows its size: memory in proportion to what the app holds, not to calls. */
struct alloc_entry {
    void *ptr;
    size_t bytes;
    UT_hash_handle hh;
};
static struct {
    pthread_mutex_t lock;
    struct alloc_entry *live[KPROF_MEM_COUNT];
    struct kprof_alloc_stat s[KPROF_MEM_COUNT];
} allocs = { .lock = PTHREAD_MUTEX_INITIALIZER };

void kprof_alloc_record(enum kprof_mem kind, void *ptr, size_t bytes, uint64_t host_ns)
{
    struct alloc_entry *e = calloc(1, sizeof *e);
    struct kprof_alloc_stat *s = &allocs.s[kind];
    pthread_mutex_lock(&allocs.lock);
    s->count++;
    s->bytes += bytes;
    s->host_ns += host_ns;
    if (e && ptr) {
        struct alloc_entry *old;
        HASH_FIND_PTR(allocs.live[kind], &ptr, old);
        if (old) { /* a pointer whose free libkprof missed: replace it */
            s->in_use -= old->bytes;
            HASH_DEL(allocs.live[kind], old);
            free(old);
        }
        e->ptr = ptr;
        e->bytes = bytes;
        HASH_ADD_PTR(allocs.live[kind], ptr, e);
        e = NULL;
        s->in_use += bytes;
        if (s->in_use > s->peak)
            s->peak = s->in_use;
    }
    pthread_mutex_unlock(&allocs.lock);
    free(e);
}

void kprof_free_record(enum kprof_mem kind, void *ptr, uint64_t host_ns)
{
    struct kprof_alloc_stat *s = &allocs.s[kind];
    pthread_mutex_lock(&allocs.lock);
    s->host_ns += host_ns;
    struct alloc_entry *e = NULL;
    if (ptr)
        HASH_FIND_PTR(allocs.live[kind], &ptr, e);
    if (e) {
        s->frees++;
        s->freed_bytes += e->bytes;
        s->in_use -= e->bytes;
        HASH_DEL(allocs.live[kind], e);
    }
    pthread_mutex_unlock(&allocs.lock);
    free(e);
}

void kprof_free_record_device(void *ptr, uint64_t host_ns)
{
    int managed = 0;
    pthread_mutex_lock(&allocs.lock);
    struct alloc_entry *e = NULL;
    if (ptr)
        HASH_FIND_PTR(allocs.live[KPROF_MEM_MANAGED], &ptr, e);
    managed = e != NULL;
    pthread_mutex_unlock(&allocs.lock);
    kprof_free_record(managed ? KPROF_MEM_MANAGED : KPROF_MEM_DEVICE, ptr, host_ns);
}

/* ---- host-side API table and context creation ------------------------------------------------ */

static struct kprof_api_stat api_stats[KPROF_API_COUNT]; /* min_ns holds the smallest time + 1 (0: none) */
/* Launches KPROF_SAMPLE left untimed (kprof_api_count, kprof_api_record_untimed): all of them, and of
 * them those whose host time was read (also in api_stats and the buckets) and that time. */
static struct { uint64_t calls, read, read_ns; } api_untimed[KPROF_API_COUNT];
static struct kprof_ctx_init ctx_inits[64];
static size_t nctx_inits;

/* Each API's host times, counted lock-free in log-linear buckets for its median: exact below 16 ns, then 8
 * buckets per power of two (each at most 1/8 of its lower bound wide, so the midpoint is within 1/16 =
 * 6.25% of any value in it) up to 2^41 ns (37 minutes; longer calls share the last bucket).  Kernels keep
 * 64 per power of two (histogram.h), but under a lock: an API call is counted by atomic adds only. */
#define API_SUB_BITS 3
#define API_BUCKETS (16 + (41 - 4) * (1 << API_SUB_BITS))
static uint64_t api_buckets[KPROF_API_COUNT][API_BUCKETS];

static unsigned api_bucket(uint64_t ns)
{
    if (ns < 16)
        return (unsigned)ns;
    unsigned g = 63u - (unsigned)__builtin_clzll(ns); /* 4 .. 63: ns in [2^g, 2^(g+1)) */
    unsigned i = 16 + (g - 4) * (1u << API_SUB_BITS) + (unsigned)((ns >> (g - API_SUB_BITS)) & ((1u << API_SUB_BITS) - 1));
    return i < API_BUCKETS ? i : API_BUCKETS - 1;
}

/* The midpoint of bucket i, in ns (the value itself below 16 ns). */
static uint64_t api_bucket_mid(unsigned i)
{
    if (i < 16)
        return i;
    unsigned g = 4 + (i - 16) / (1u << API_SUB_BITS), sub = (i - 16) % (1u << API_SUB_BITS);
    uint64_t width = (uint64_t)1 << (g - API_SUB_BITS);
    return ((uint64_t)((1u << API_SUB_BITS) + sub) << (g - API_SUB_BITS)) + width / 2;
}

/* The API's call of rank `rank` (1 .. n) among its n counted times, ns: min and max themselves for the
 * first and the last, else the bucket's midpoint clamped to [min, max]. */
static uint64_t api_at_rank(int api, uint64_t rank, uint64_t n, uint64_t min_ns, uint64_t max_ns)
{
    if (rank <= 1)
        return min_ns;
    if (rank >= n)
        return max_ns;
    uint64_t seen = 0;
    for (unsigned i = 0; i < API_BUCKETS; i++) {
        seen += __atomic_load_n(&api_buckets[api][i], __ATOMIC_RELAXED);
        if (seen >= rank) {
            uint64_t v = api_bucket_mid(i);
            return v < min_ns ? min_ns : v > max_ns ? max_ns : v;
        }
    }
    return max_ns;
}

/* The median of an API's counted times, ns: the nearest rank's, and into *mid nsys's (the mean of the two
 * middle calls for an even count).  Buckets read without a lock while calls go on, so the ranks are of
 * the counts read. */
static uint64_t api_median(int api, uint64_t min_ns, uint64_t max_ns, double *mid)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < API_BUCKETS; i++)
        n += __atomic_load_n(&api_buckets[api][i], __ATOMIC_RELAXED);
    *mid = 0.0;
    if (n == 0)
        return 0;
    uint64_t lo = api_at_rank(api, (n + 1) / 2, n, min_ns, max_ns);
    *mid = n % 2 ? (double)lo : ((double)lo + (double)api_at_rank(api, n / 2 + 1, n, min_ns, max_ns)) / 2.0;
    return lo;
}

/* Each API's spread, lock-free and with one atomic add per call: the first call's time as a shift K
 * (stored + 1; 0 until then) and the sum of the calls' (t - K)^2, from which, with the sum of t - K known
 * from the total and the count (total - n K), the variance is (S2 - S1^2 / n) / (n - 1); shifted, long
 * calls that vary little keep their digits (plain sums of t and t^2 would cancel).  The sum of squares is
 * an integer (exact) while |t - K| < 2^32 ns (4.3 s), wrapping at 2^64: each wrap, and each larger square,
 * goes to `big` (a compare-and-swap loop, rare). */
static struct { uint64_t shift, sq; double big; } api_spread[KPROF_API_COUNT];

static void api_spread_big(int api, double v)
{
    double old, sum;
    __atomic_load(&api_spread[api].big, &old, __ATOMIC_RELAXED);
    do
        sum = old + v;
    while (!__atomic_compare_exchange(&api_spread[api].big, &old, &sum, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void api_spread_add(int api, uint64_t ns)
{
    uint64_t k = __atomic_load_n(&api_spread[api].shift, __ATOMIC_RELAXED);
    if (k == 0 && __atomic_compare_exchange_n(&api_spread[api].shift, &k, ns + 1, 0, __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED))
        k = ns + 1; /* else k holds the shift another call stored */
    uint64_t d = ns >= k - 1 ? ns - (k - 1) : (k - 1) - ns;
    if (d >= (uint64_t)1 << 32) {
        api_spread_big(api, (double)d * (double)d);
        return;
    }
    uint64_t sq = d * d, before = ATOMIC_ADD(&api_spread[api].sq, sq);
    if (before + sq < before)
        api_spread_big(api, 18446744073709551616.0); /* the 2^64 the sum wrapped past */
}

/* The sample standard deviation of an API's n calls of `total` ns (0 for fewer than two). */
static double api_stddev(int api, uint64_t n, uint64_t total)
{
    uint64_t k = __atomic_load_n(&api_spread[api].shift, __ATOMIC_RELAXED);
    if (n < 2 || k == 0)
        return 0.0;
    double big, s1 = (double)total - (double)n * (double)(k - 1);
    __atomic_load(&api_spread[api].big, &big, __ATOMIC_RELAXED);
    double s2 = big + (double)__atomic_load_n(&api_spread[api].sq, __ATOMIC_RELAXED);
    double var = (s2 - s1 * s1 / (double)n) / (double)(n - 1);
    return var > 0.0 ? sqrt(var) : 0.0; /* read while calls go on, the sums can be a call apart */
}

void kprof_api_record(int api, uint64_t host_ns, int ok)
{
    struct kprof_api_stat *a = &api_stats[api];
    ATOMIC_ADD(&a->calls, 1);
    if (!ok)
        ATOMIC_ADD(&a->errors, 1);
    ATOMIC_ADD(&a->total_ns, host_ns);
    ATOMIC_ADD(&api_buckets[api][api_bucket(host_ns)], 1);
    api_spread_add(api, host_ns);
    uint64_t m = __atomic_load_n(&a->max_ns, __ATOMIC_RELAXED);
    while (host_ns > m &&
           !__atomic_compare_exchange_n(&a->max_ns, &m, host_ns, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    uint64_t low = host_ns + 1;
    m = __atomic_load_n(&a->min_ns, __ATOMIC_RELAXED);
    while ((m == 0 || low < m) &&
           !__atomic_compare_exchange_n(&a->min_ns, &m, low, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void kprof_api_count(int api, int ok)
{
    ATOMIC_ADD(&api_untimed[api].calls, 1);
    if (!ok)
        ATOMIC_ADD(&api_stats[api].errors, 1);
}

void kprof_api_record_untimed(int api, uint64_t host_ns, int ok)
{
    kprof_api_record(api, host_ns, ok);
    ATOMIC_ADD(&api_untimed[api].calls, 1);
    ATOMIC_ADD(&api_untimed[api].read, 1);
    ATOMIC_ADD(&api_untimed[api].read_ns, host_ns);
}

void kprof_ctx_init_record(int device, int api, int driver, uint64_t host_ns)
{
    pthread_mutex_lock(&stats_lock);
    static int warned;
    if (nctx_inits == sizeof ctx_inits / sizeof ctx_inits[0] && !warned++)
        kprof_warn("more than %zu contexts created: the report lists the first %zu", nctx_inits, nctx_inits);
    if (nctx_inits < sizeof ctx_inits / sizeof ctx_inits[0]) {
        struct kprof_ctx_init *c = &ctx_inits[nctx_inits++];
        c->device = device;
        c->api = api;
        c->driver = driver;
        c->host_ns = host_ns;
        kprof_ctx_init_label(c);
    }
    pthread_mutex_unlock(&stats_lock);
}

/* ---- snapshot -------------------------------------------------------------------------------- */

int kprof_kernel_by_total_desc(const void *a, const void *b)
{
    const struct kprof_kernel *x = *(struct kprof_kernel *const *)a, *y = *(struct kprof_kernel *const *)b;
    uint64_t tx = kprof_kernel_total(x), ty = kprof_kernel_total(y);
    if (tx != ty)
        return tx > ty ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->mangled, y->mangled);
}

static int by_captured_desc(const void *a, const void *b)
{
    const struct kprof_kernel *x = *(struct kprof_kernel *const *)a, *y = *(struct kprof_kernel *const *)b;
    if (x->captured != y->captured)
        return x->captured > y->captured ? -1 : 1;
    return strcmp(x->mangled, y->mangled);
}

/* KPROF_SAMPLE: adds to k->calls its untimed launches counted since the last time (kprof_kernel_untimed_done).
 * Statistics lock held. */
static void kernel_fold_untimed(struct kprof_kernel *k)
{
    uint64_t untimed = kernel_untimed(k);
    ATOMIC_ADD(&k->calls, untimed - k->folded); /* modulo 2^64: a launch taken back subtracts */
    k->folded = untimed;
}

int kprof_stats_snapshot(struct kprof_snapshot *s)
{
    pthread_rwlock_rdlock(&names.lock);
    pthread_mutex_lock(&stats_lock);
    s->kernels = calloc(names.nkernels ? names.nkernels : 1, sizeof *s->kernels);
    for (struct kprof_kernel *k = names.kernels; k && s->kernels; k = k->hh.next) {
        if (!k->selected) {
            s->nfiltered++;
            continue;
        }
        kernel_fold_untimed(k);
        for (struct kprof_kernel *c = k->shapes; c; c = c->hh.next)
            kernel_fold_untimed(c);
        if (k->shapes) {
            for (struct kprof_kernel *c = k->shapes; c; c = c->hh.next)
                if (c->calls > 0) {
                    s->kernels[s->nkernels++] = c;
                    s->kernel_total_ns += kprof_kernel_total(c);
                }
        }
        if (k->calls > 0 || k->in_conditional) {
            s->kernels[s->nkernels++] = k;
            s->kernel_total_ns += kprof_kernel_total(k);
        }
    }
    memcpy(s->copies, copies, sizeof copies);
    s->memsets = memsets;
    /* Each histogram copied: the snapshot's own, which a copy timed after it cannot grow or move. */
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++) {
            memset(&s->copies[d][h].hist, 0, sizeof s->copies[d][h].hist);
            kprof_hist_merge(&s->copies[d][h].hist, &copies[d][h].hist);
        }
    memset(&s->memsets.hist, 0, sizeof s->memsets.hist);
    kprof_hist_merge(&s->memsets.hist, &memsets.hist);
    s->devices = calloc(MAX_DEVICES, sizeof *s->devices);
    for (int i = 0; i < MAX_DEVICES && s->devices; i++) {
        if (!devices[i].used)
            continue;
        struct kprof_device_stat *d = &s->devices[s->ndevices++];
        d->device = i;
        d->kernel_ns = devices[i].kernel_ns;
        d->kernels = devices[i].kernels;
        d->busy_ns = devices[i].busy_closed;
        for (int j = 0; j < devices[i].nopen; j++)
            d->busy_ns += devices[i].open[j].end - devices[i].open[j].start;
    }
    s->trace = trace.ev;
    s->ntrace = trace.n;
    s->trace_dropped = trace.dropped;
    s->streams = trace.streams;
    s->nstreams = trace.nstreams;
    s->nctx_inits = nctx_inits;
    s->ctx_inits = calloc(nctx_inits ? nctx_inits : 1, sizeof *s->ctx_inits);
    if (s->ctx_inits)
        memcpy(s->ctx_inits, ctx_inits, nctx_inits * sizeof *ctx_inits);
    else
        s->nctx_inits = 0;
    s->captured = calloc(names.nkernels ? names.nkernels : 1, sizeof *s->captured);
    for (struct kprof_kernel *k = names.kernels; k && s->captured; k = k->hh.next) {
        if (k->selected && k->captured)
            s->captured[s->ncaptured++] = k;
        for (struct kprof_kernel *c = k->shapes; c && s->captured; c = c->hh.next)
            if (c->selected && c->captured)
                s->captured[s->ncaptured++] = c;
    }
    pthread_mutex_unlock(&stats_lock);
    pthread_rwlock_unlock(&names.lock);
    if (s->kernels)
        qsort(s->kernels, s->nkernels, sizeof *s->kernels, kprof_kernel_by_total_desc);
    if (s->captured)
        qsort(s->captured, s->ncaptured, sizeof *s->captured, by_captured_desc);

    pthread_mutex_lock(&allocs.lock);
    memcpy(s->alloc, allocs.s, sizeof allocs.s);
    pthread_mutex_unlock(&allocs.lock);
    for (int i = 0; i < KPROF_API_COUNT; i++) {
        uint64_t read = __atomic_load_n(&api_stats[i].calls, __ATOMIC_RELAXED);
        uint64_t measured = __atomic_load_n(&api_stats[i].total_ns, __ATOMIC_RELAXED);
        uint64_t untimed = __atomic_load_n(&api_untimed[i].calls, __ATOMIC_RELAXED);
        uint64_t u_read = __atomic_load_n(&api_untimed[i].read, __ATOMIC_RELAXED);
        uint64_t u_ns = __atomic_load_n(&api_untimed[i].read_ns, __ATOMIC_RELAXED);
        s->api[i].calls = read - u_read + untimed;
        s->api[i].errors = __atomic_load_n(&api_stats[i].errors, __ATOMIC_RELAXED);
        /* Of the launches KPROF_SAMPLE left untimed, only some had their host time read: their total is
         * estimated from those (their mean x their number); the other figures are of the calls read. */
        s->api[i].total_ns = untimed > u_read && u_read
                                 ? measured - u_ns + (uint64_t)((double)u_ns * (double)untimed / (double)u_read + 0.5)
                                 : measured;
        s->api[i].max_ns = __atomic_load_n(&api_stats[i].max_ns, __ATOMIC_RELAXED);
        uint64_t low = __atomic_load_n(&api_stats[i].min_ns, __ATOMIC_RELAXED);
        s->api[i].min_ns = low ? low - 1 : 0;
        s->api[i].median_ns = api_median(i, s->api[i].min_ns, s->api[i].max_ns, &s->api[i].mid_ns);
        s->api[i].stddev_ns = api_stddev(i, read, measured);
    }
    return s->nkernels > 0;
}

/* ---- demangling ------------------------------------------------------------------------------ */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
    demangle_fn fn = (demangle_fn)kprof_real_dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!fn) {
        /* A C program has no C++ runtime loaded; borrow it without adding it to the global scope. */
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h)
            fn = (demangle_fn)kprof_real_dlsym(h, "__cxa_demangle");
    }
    if (!fn)
        kprof_info("no C++ runtime found: kernel names stay mangled");
    demangler = fn;
}

/* __cxa_demangle recurses about 700 bytes of stack per nesting level and keeps arrays of about 56 bytes
 * per character of the name on the stack: a long name can overflow a small thread stack (64 KiB).  Names
 * up to DEMANGLE_INLINE bytes (at most a few nesting levels) are demangled on the caller's stack; longer
 * ones on a thread of libkprof's own with a DEMANGLE_STACK stack, which the caller waits for; names over
 * DEMANGLE_MAX bytes stay mangled. */
#define DEMANGLE_INLINE 32
#define DEMANGLE_MAX (64 * 1024)
#define DEMANGLE_STACK ((size_t)16 << 20)

struct demangle_job {
    const char *mangled;
    char *out;
    int status;
};

static void *demangle_run(void *arg)
{
    struct demangle_job *j = arg;
    j->out = demangler(j->mangled, NULL, NULL, &j->status);
    return NULL;
}

/* Runs the job on a new thread with a large stack, all signals blocked there; 0 if none could start. */
static int demangle_on_large_stack(struct demangle_job *j)
{
    pthread_attr_t attr;
    pthread_t t;
    sigset_t all, mask;
    if (pthread_attr_init(&attr) != 0)
        return 0;
    int ok = pthread_attr_setstacksize(&attr, DEMANGLE_STACK) == 0;
    if (ok) {
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &mask);
        ok = pthread_create(&t, &attr, demangle_run, j) == 0;
        pthread_sigmask(SIG_SETMASK, &mask, NULL);
    }
    pthread_attr_destroy(&attr);
    if (ok)
        pthread_join(t, NULL);
    return ok;
}

char *kprof_demangle(const char *mangled)
{
    size_t len = strlen(mangled);
    if (strncmp(mangled, "_Z", 2) == 0 && len <= DEMANGLE_MAX) {
        pthread_once(&demangler_once, find_demangler);
        struct demangle_job j = { mangled, NULL, -1 };
        if (demangler) {
            if (len <= DEMANGLE_INLINE)
                demangle_run(&j);
            else if (!demangle_on_large_stack(&j))
                kprof_debug("cannot start a thread to demangle %s; the name stays mangled", mangled);
        }
        if (j.out && j.status == 0)
            return j.out;
        free(j.out);
    }
    return strdup(mangled);
}

/* ---- fork ------------------------------------------------------------------------------------ */

/* Which locks fork_prepare got (each waited for at most 200 ms, never for ever). */
static int fork_held[3];

static int fork_prepare(void)
{
    struct timespec t = kprof_deadline_ms(200);
    fork_held[0] = pthread_rwlock_timedwrlock(&names.lock, &t) == 0;
    fork_held[1] = pthread_mutex_timedlock(&stats_lock, &t) == 0;
    fork_held[2] = pthread_mutex_timedlock(&allocs.lock, &t) == 0;
    return fork_held[0] && fork_held[1] && fork_held[2];
}

static void fork_parent(void)
{
    if (fork_held[2])
        pthread_mutex_unlock(&allocs.lock);
    if (fork_held[1])
        pthread_mutex_unlock(&stats_lock);
    if (fork_held[0])
        pthread_rwlock_unlock(&names.lock);
}

/* Zeroes a kernel's figures, keeping its name and launch keys (names registered by the parent's modules
 * stay valid in the child). */
static void kernel_reset(struct kprof_kernel *k)
{
    k->calls = k->timed = k->total_ns = k->first_ns = k->steady_ns = k->max_ns = k->captured = k->graph_calls = 0;
    k->seq = k->untimed_lost = k->folded = 0;
    k->first_timed = 0;
    k->min_ns = UINT64_MAX;
    k->mean_ns = k->m2 = 0.0;
    kprof_hist_free(&k->hist);
}

/* In the child: a fresh start, so its report holds only what the child itself does. */
static void fork_child(void)
{
    pthread_rwlock_init(&names.lock, NULL);
    pthread_mutex_init(&stats_lock, NULL);
    pthread_mutex_init(&allocs.lock, NULL);
    for (struct kprof_kernel *k = names.kernels; k; k = k->hh.next) {
        kernel_reset(k);
        for (struct kprof_kernel *c = k->shapes; c; c = c->hh.next)
            kernel_reset(c);
    }
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++)
            kprof_hist_free(&copies[d][h].hist);
    kprof_hist_free(&memsets.hist);
    memset(copies, 0, sizeof copies);
    memset(&memsets, 0, sizeof memsets);
    memset(devices, 0, sizeof devices);
    if (stream_ends.end)
        memset(stream_ends.end, 0, stream_ends.n * sizeof *stream_ends.end);
    memset(api_stats, 0, sizeof api_stats);
    memset(api_untimed, 0, sizeof api_untimed);
    memset(api_buckets, 0, sizeof api_buckets);
    memset(api_spread, 0, sizeof api_spread);
    nctx_inits = 0;
    free(trace.ev);
    trace.ev = NULL;
    trace.n = trace.cap = 0;
    trace.dropped = 0;
    for (int m = 0; m < KPROF_MEM_COUNT; m++) {
        struct alloc_entry *e, *tmp;
        HASH_ITER(hh, allocs.live[m], e, tmp) {
            HASH_DEL(allocs.live[m], e);
            free(e);
        }
    }
    memset(allocs.s, 0, sizeof allocs.s);
    memset(kprof_tls_kernels, 0, sizeof kprof_tls_kernels);
}

KPROF_FORK_MODULE(stats, 20, fork_prepare, fork_parent, fork_child)
