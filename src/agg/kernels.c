/* kernels.c: the per-kernel aggregates: names from registration or the driver (demangled), the launch
 * keys that find them, their launch counts and GPU times, their part of the snapshot, and their reset in
 * a forked child. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "histogram.h"
#include "log.h"
#include "kprof_config.h"
#include "dlsym_next.h"
#include "clock.h"
#include "resolve.h"
#include "module.h"
#include "kernels.h"
#include "kernel.h"
#include "sampling.h"
#include "kernel_name.h"

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
    __typeof__(cudaFuncGetName) *get_name = KPROF_REAL(cudaFuncGetName); /* an atomic load, not kprof_rt's slot */
    if (!get_name || !kprof_rt_quiet_begin())
        return NULL;
    const char *n = NULL;
    cudaError_t r = get_name(&n, key);
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
    k->min_ns = k->offset_min_ns = UINT64_MAX;
    k->param_count = demangled_owned ? kprof_kernel_param_count(demangled_owned) : -1;
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
            c->min_ns = c->offset_min_ns = UINT64_MAX;
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
    KPROF_HASH_FREE_ALL(names.launch_keys);
    __atomic_add_fetch(&kprof_names_epoch, 1, __ATOMIC_RELAXED);
    pthread_rwlock_unlock(&names.lock);
}

__thread void *kprof_tls_kernels __attribute__((tls_model("initial-exec")));
static struct kprof_tls_blocks kernel_caches = { sizeof(struct kprof_kernel_cache), NULL };

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
    unsigned epoch = __atomic_load_n(&kprof_names_epoch, __ATOMIC_RELAXED);
    struct kprof_kernel *cached = kprof_kernel_cached(key);
    if (cached)
        return cached;

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
    struct kprof_kernel_cache *c = kprof_tls_block(&kernel_caches, &kprof_tls_kernels);
    if (c) {
        struct kprof_kernel_slot *set = c->set[kprof_tls_set(key)];
        set[1] = set[0]; /* the older of the two goes */
        set[0] = (struct kprof_kernel_slot){ key, k, epoch };
    }
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

/* ---- launches and GPU times ------------------------------------------------------------------ */

/* The timed figures of every kernel (the harvester adds, the snapshot reads). */
static pthread_mutex_t times_lock = PTHREAD_MUTEX_INITIALIZER;

/* k's untimed launches that succeeded (kprof_kernel_untimed_done).  KPROF_SAMPLE=N: the numbers each
 * shard of k->seq drew that were not timed (N, 2N... are, and the kernel's first), less those that failed
 * or were captured; a launch in flight counts as if it succeeded (a fold takes it back later if it failed).
 * KPROF_SAMPLE=auto: the shards' counts of them.  0 when every launch is timed. */
static uint64_t kernel_untimed(const struct kprof_kernel *k)
{
    uint64_t n = (uint64_t)kprof_config.sample, untimed = 0;
    if (kprof_config.sample == 1 || k->is_graph)
        return 0;
    if (kprof_config.sample == 0) { /* auto: counted as they succeeded */
        for (int i = 0; i < KPROF_SEQ_SHARDS; i++)
            untimed += __atomic_load_n(&k->seq[i].untimed, __ATOMIC_RELAXED);
        return untimed;
    }
    for (int i = 0; i < KPROF_SEQ_SHARDS; i++) { /* each shard timed its numbers N, 2N... */
        uint64_t seq = __atomic_load_n(&k->seq[i].n, __ATOMIC_RELAXED);
        untimed += seq ? seq - (seq - 1) / n : 0;
    }
    untimed -= __atomic_load_n(&k->seq_first_drawn, __ATOMIC_RELAXED) != 0; /* and the kernel's first */
    return untimed - __atomic_load_n(&k->untimed_lost, __ATOMIC_RELAXED);
}

int kprof_kernel_count(struct kprof_kernel *k, dim3 grid, dim3 block)
{
    uint64_t before = ATOMIC_ADD(&k->calls, 1);
    kprof_kernel_shape(k, grid, block);
    if (kprof_config.sample > 1 && !k->is_graph) {
        /* KPROF_SAMPLE=N: the launch that drew number 0, which came first (another thread's untimed launch
         * may be counted before it: every kernel's first went untimed with 2 threads, a new-user helper) */
        int first = kprof_tls_sample_first == k;
        if (first)
            kprof_tls_sample_first = NULL;
        return first;
    }
    return before == 0;
}

/* KPROF_SAMPLE=N: adds to k->calls its untimed launches counted since the last time
 * (kprof_kernel_untimed_done).  The times lock held. */
static void kernel_fold_untimed(struct kprof_kernel *k)
{
    uint64_t untimed = kernel_untimed(k);
    ATOMIC_ADD(&k->calls, untimed - k->folded); /* modulo 2^64: a launch taken back subtracts */
    k->folded = untimed;
}

void kprof_kernel_add_sample(const struct kprof_sample *s)
{
    struct kprof_kernel *k = s->target;
    uint64_t ns = s->dur_ns;
    int first = s->kind == KPROF_TARGET_KERNEL_FIRST;
    /* In sixteenths of a launch: a weight of 1 counts 16, so unweighted percentiles keep their ranks. */
    uint64_t units = s->weight > 1.0f ? (uint64_t)(s->weight * KPROF_SPLIT_UNITS + 0.5f) : KPROF_SPLIT_UNITS;
    pthread_mutex_lock(&times_lock);
    if (kprof_config.sample == 0)
        kprof_sample_weigh(&k->sampling, ns, s->weight);
    else if (KPROF_UNLIKELY(kprof_config.auto_check) && s->auto_weight >= 1.0f) /* auto would have timed it */
        kprof_sample_weigh(&k->sampling, ns, s->auto_weight);
    if (s->has_split) {
        kprof_hist_add_n(&k->launch_hist, s->launch_host_ns, units);
        if (s->has_queue)
            kprof_hist_add_n(&k->queue_hist, s->queue_ns, units);
    }
    /* Atomic: kprof_kernel_mean_ns reads these without the lock (launching threads deciding on one-event
     * timing). */
    __atomic_store_n(&k->timed, k->timed + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&k->total_ns, k->total_ns + ns, __ATOMIC_RELAXED);
    if (first) {
        k->first_timed = 1;
        k->first_ns = ns;
    } else {
        k->steady_ns += ns;
        uint64_t *lo = s->offset_read ? &k->offset_min_ns : &k->min_ns;
        uint64_t *hi = s->offset_read ? &k->offset_max_ns : &k->max_ns;
        if (ns < *lo)
            *lo = ns;
        if (ns > *hi)
            *hi = ns;
        uint64_t n = k->timed - (uint64_t)k->first_timed;
        double d = (double)ns - k->mean_ns;
        k->mean_ns += d / (double)n;
        k->m2 += d * ((double)ns - k->mean_ns);
        if (kprof_config.sample == 0) { /* auto: weighed by 1/p, in KPROF_SPLIT_UNITS of a launch */
            double w = s->weight > 1.0f ? (double)s->weight : 1.0;
            k->w_sum += w;
            k->wx_sum += w * (double)ns;
            k->wxx_sum += w * (double)ns * (double)ns;
            kprof_hist_add_n(&k->hist, ns, units);
        } else {
            kprof_hist_add(&k->hist, ns);
        }
        /* KPROF_HOLD=N: for the percentiles (kernel.h, full_hist) */
        if (!s->offset_read && !s->check_held && kprof_hold_sampled()) {
            kprof_hist_add_n(&k->full_hist, ns, units << s->thin);
            double w = (double)(1u << s->thin);
            k->full_w += w;
            k->full_wx += w * (double)ns;
            k->full_wxx += w * (double)ns * (double)ns;
        }
        if (kprof_config.sample == 0 || KPROF_UNLIKELY(kprof_config.auto_check)) {
            /* auto: the warm-up its spread asks for (the check: that of the launches measured in full, as
             * auto's are) */
            double mean = (double)k->steady_ns / (double)n;
            if (mean > 0.0)
                kprof_sample_warmup(&k->sampling, n, kprof_kernel_var_timed(k) / (mean * mean));
        }
    }
    pthread_mutex_unlock(&times_lock);
}

void kprof_kernel_adjust(struct kprof_kernel *k, double ns)
{
    pthread_mutex_lock(&times_lock);
    /* Whole ns on the totals, the fraction (and what would take them below 0) carried to the next call:
     * each rounded on its own, the corrections of a run's settling passes drifted
     * (held-launches-thin-out-as-counts-grow.sh). */
    double whole = kprof_ns_adjust(&k->steady_ns, &k->adjust_rest, ns); /* steady_ns <= total_ns */
    __atomic_store_n(&k->total_ns, kprof_ns_add_clamped(k->total_ns, whole), __ATOMIC_RELAXED);
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (n > 0)
        k->mean_ns += ns / (double)n;
    /* KPROF_AUTO_CHECK=1: none of it is auto's launches' (weighed by kprof_sample_weigh): those are measured
     * in full, never read with a learned offset (timing.c, begin_take_events). */
    pthread_mutex_unlock(&times_lock);
}

/* ---- snapshot -------------------------------------------------------------------------------- */

/* A kernel's sort keys, read once (kprof_kernels_sort). */
struct sort_key {
    uint64_t first, second; /* total and calls, or captured launches and 0 */
    struct kprof_kernel *k;
};

static int by_keys_desc(const void *a, const void *b)
{
    const struct sort_key *x = a, *y = b;
    if (x->first != y->first)
        return x->first > y->first ? -1 : 1;
    if (x->second != y->second)
        return x->second > y->second ? -1 : 1;
    return strcmp(x->k->mangled, y->k->mangled);
}

void kprof_kernels_sort(struct kprof_kernel **v, size_t n, int by_captured)
{
    struct sort_key *keys = n ? malloc(n * sizeof *keys) : NULL;
    if (!keys)
        return;
    for (size_t i = 0; i < n; i++) {
        keys[i].k = v[i];
        keys[i].first = by_captured ? kprof_kernel_captures(v[i]) : kprof_kernel_total(v[i]);
        keys[i].second = by_captured ? 0 : kprof_kernel_calls(v[i]);
    }
    qsort(keys, n, sizeof *keys, by_keys_desc);
    for (size_t i = 0; i < n; i++)
        v[i] = keys[i].k;
    free(keys);
}

/* The spread (a variance, ns^2) that floors auto's interval for k (kprof_sample_estimate): its timed
 * launches' after the first; while fewer than 10 of those were timed, the first one's counted too (two
 * launches alike, or one, would otherwise claim a total known to the ns from 2 of 100 launches: a helper
 * read 492,810 +- 13,783 ns for a true 132,500, and 10,000 +- 0 from one launch).  The times lock held. */
static double kernel_estimate_s2(const struct kprof_kernel *k)
{
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    if (n >= 10 || !k->first_timed)
        return kprof_kernel_var_timed(k);
    if (n == 0)
        return 0.0;
    /* Welford's update with the first launch: m2 + n (x - mean)^2 / (n + 1), over n + 1 launches. */
    double d = (double)k->first_ns - k->mean_ns;
    return (kprof_kernel_m2(k) + (double)n * d * d / (double)(n + 1)) / (double)n;
}

/* KPROF_SAMPLE=auto: sets k->estimated, and k->est_total_ns and k->est_ci95_ns from its sampling state
 * (kprof_sample_estimate), when some launch of it outside graphs went untimed.  Called under the statistics
 * lock (the snapshot). */
static inline void kernel_estimate(struct kprof_kernel *k)
{
    uint64_t direct = kprof_kernel_direct(k);
    k->estimated = 0;
    k->checked = 0;
    if (kprof_config.auto_check && !k->is_graph && k->timed >= direct) {
        /* Every launch timed: what auto would have estimated from the launches it drew, beside the
         * measured total (the standard deviation, the floor of the interval's variance, is that of every
         * launch: the one auto's timed launches estimate). */
        k->check_timed = k->sampling.n;
        k->checked = kprof_sample_estimate(&k->sampling, direct, kprof_kernel_var_timed(k), &k->check_total_ns,
                                           &k->check_ci95_ns);
        return;
    }
    if (kprof_config.sample != 0 || k->is_graph || k->timed >= direct)
        return;
    k->estimated =
        kprof_sample_estimate(&k->sampling, direct, kernel_estimate_s2(k), &k->est_total_ns, &k->est_ci95_ns);
}

void kprof_kernels_snapshot(struct kprof_kernels_part *p)
{
    pthread_rwlock_rdlock(&names.lock);
    pthread_mutex_lock(&times_lock);
    p->kernels = calloc(names.nkernels ? names.nkernels : 1, sizeof *p->kernels);
    for (struct kprof_kernel *k = names.kernels; k && p->kernels; k = k->hh.next) {
        if (!k->selected) {
            p->nfiltered++;
            continue;
        }
        kernel_fold_untimed(k);
        for (struct kprof_kernel *c = k->shapes; c; c = c->hh.next)
            kernel_fold_untimed(c);
        if (k->shapes) {
            for (struct kprof_kernel *c = k->shapes; c; c = c->hh.next)
                if (kprof_kernel_calls(c) > 0) {
                    kernel_estimate(c);
                    p->kernels[p->nkernels++] = c;
                    p->kernel_total_ns += kprof_kernel_total(c);
                }
        }
        if (kprof_kernel_calls(k) > 0 || kprof_kernel_in_conditional(k)) {
            kernel_estimate(k);
            p->kernels[p->nkernels++] = k;
            p->kernel_total_ns += kprof_kernel_total(k);
        }
    }
    p->captured = calloc(names.nkernels ? names.nkernels : 1, sizeof *p->captured);
    for (struct kprof_kernel *k = names.kernels; k && p->captured; k = k->hh.next) {
        if (k->selected && kprof_kernel_captures(k))
            p->captured[p->ncaptured++] = k;
        for (struct kprof_kernel *c = k->shapes; c && p->captured; c = c->hh.next)
            if (c->selected && kprof_kernel_captures(c))
                p->captured[p->ncaptured++] = c;
    }
    pthread_mutex_unlock(&times_lock);
    pthread_rwlock_unlock(&names.lock);
    if (p->kernels)
        kprof_kernels_sort(p->kernels, p->nkernels, 0);
    if (p->captured)
        kprof_kernels_sort(p->captured, p->ncaptured, 1);
}

void kprof_kernels_part_free(struct kprof_kernels_part *p)
{
    free(p->kernels);
    free(p->captured);
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
static int fork_held[2];

static int fork_prepare(void)
{
    struct timespec t = kprof_deadline_ms(200);
    fork_held[0] = pthread_rwlock_timedwrlock(&names.lock, &t) == 0;
    fork_held[1] = pthread_mutex_timedlock(&times_lock, &t) == 0;
    return fork_held[0] && fork_held[1];
}

static void fork_parent(void)
{
    if (fork_held[1])
        pthread_mutex_unlock(&times_lock);
    if (fork_held[0])
        pthread_rwlock_unlock(&names.lock);
}

void kprof_kernel_reset(struct kprof_kernel *k)
{
    k->calls = k->timed = k->total_ns = k->first_ns = k->steady_ns = k->max_ns = k->captured = k->graph_calls = 0;
    memset(k->seq, 0, sizeof k->seq);
    k->seq_first_drawn = 0;
    k->seq_shards_used = 0;
    k->untimed_lost = k->folded = 0;
    k->first_timed = 0;
    k->min_ns = k->offset_min_ns = UINT64_MAX;
    k->offset_max_ns = 0;
    k->mean_ns = k->m2 = k->adjust_rest = 0.0;
    k->full_w = k->full_wx = k->full_wxx = 0.0;
    k->w_sum = k->wx_sum = k->wxx_sum = 0.0;
    kprof_hist_free(&k->hist);
    kprof_hist_free(&k->full_hist);
    kprof_hist_free(&k->launch_hist);
    kprof_hist_free(&k->queue_hist);
    memset(&k->sampling, 0, sizeof k->sampling);
    memset(k->hold_shapes, 0, sizeof k->hold_shapes);
}

static void fork_child(void)
{
    pthread_rwlock_init(&names.lock, NULL);
    pthread_mutex_init(&times_lock, NULL);
}

/* In the child: every kernel's figures zeroed (names and launch keys kept), so its report holds only what
 * the child itself launches. */
static void kernels_reset(void)
{
    for (struct kprof_kernel *k = names.kernels; k; k = k->hh.next) {
        kprof_kernel_reset(k);
        for (struct kprof_kernel *c = k->shapes; c; c = c->hh.next)
            kprof_kernel_reset(c);
    }
    if (kprof_tls_kernels)
        memset(kprof_tls_kernels, 0, sizeof(struct kprof_kernel_cache));
}

/* Order 20: where these locks stood when they were stats.c's (its modules, transfers.c to allocs.c, now
 * 25 to 28, after them). */
KPROF_MODULE(kernels, 20, fork_prepare, fork_parent, fork_child, kernels_reset)
