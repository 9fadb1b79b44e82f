/* core.c: start-up, the per-thread guard, context tracking, and the exit sequence that drains the events
 * and writes the report before cudart tears its contexts down. */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "config.h"
#include "cuda_api.h"
#include "log.h"
#include "kprof_config.h"
#include "driver.h"
#include "clock.h"
#include "call.h"
#include "fork.h"
#include "timing.h"
#include "stats.h"
#include "snapshot.h"
#include "report.h"

/* The one export that is not a CUDA entry point or dlsym: the mark of a copy of libkprof in the process.
 * A second copy (another file) finds the first one's with dlsym(RTLD_DEFAULT) and stays out of the way
 * (kprof_init), and libkprof's dlsym tells any copy's exports apart with it (kprof_is_libkprof). */
/* In a section of its own: AddressSanitizer leaves it alone (two copies' exported markers would be an
 * ODR violation to it, and it would export an __odr_asan symbol besides). */
__attribute__((section(".rodata.kprof_marker"))) static const char instance_marker[] =
    "libkprof " PACKAGE_VERSION;
/* The exported name; this copy's own marker is instance_marker (a reference to the exported name would
 * bind to the first copy's). */
extern const char kprof_instance_marker[sizeof instance_marker]
    __attribute__((alias("instance_marker"), visibility("default")));

struct kprof_runtime kprof_rt;
__thread int kprof_tls_depth __attribute__((tls_model("initial-exec")));
__thread struct kprof_delegate *kprof_tls_delegate __attribute__((tls_model("initial-exec")));
int kprof_finished;
int kprof_cuda_used;

/* ---- the real runtime functions, and libcudart unloaded ---------------------------------------- */

/* glibc's dlclose (libkprof exports a dlclose of its own, below); found once. */
static int (*real_dlclose)(void *);
static pthread_once_t real_dlclose_once = PTHREAD_ONCE_INIT;

static void real_dlclose_find(void)
{
    real_dlclose = (int (*)(void *))kprof_real_dlsym(RTLD_NEXT, "dlclose");
}

/* dlclose for libkprof's own handles: straight to glibc's. */
static int own_dlclose(void *h)
{
    pthread_once(&real_dlclose_once, real_dlclose_find);
    return real_dlclose ? real_dlclose(h) : -1;
}

/* The libraries the kprof_rt functions came from: each one's load address (dladdr's dli_fbase) and one
 * of its functions, to ask dladdr after a dlclose whether it is still loaded there.  Under rt_libs.lock;
 * n is also read without it (atomically) by dlclose, which does nothing while it is 0. */
#define RT_LIBS 8
static struct {
    pthread_mutex_t lock;
    int n;
    struct { void *base; void *fn; } lib[RT_LIBS];
} rt_libs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Notes the library that defines fn (a function kprof_rt is about to hold); call with rt_libs.lock. */
static void rt_lib_note(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fbase)
        return;
    for (int i = 0; i < rt_libs.n; i++)
        if (rt_libs.lib[i].base == info.dli_fbase)
            return;
    if (rt_libs.n < RT_LIBS) {
        rt_libs.lib[rt_libs.n].base = info.dli_fbase;
        rt_libs.lib[rt_libs.n].fn = fn;
        __atomic_store_n(&rt_libs.n, rt_libs.n + 1, __ATOMIC_RELEASE);
    }
}

/* After a dlclose: if a library that kprof_rt's functions came from is no longer loaded at its address,
 * forget every kprof_rt function, so that each is looked up again at its next call (in the libcudart
 * loaded by then, wherever it is).  Never called on the hot path. */
static void rt_check_unloaded(void)
{
    pthread_mutex_lock(&rt_libs.lock);
    int gone = 0;
    for (int i = 0; i < rt_libs.n && !gone; i++) {
        Dl_info info;
        gone = !dladdr(rt_libs.lib[i].fn, &info) || info.dli_fbase != rt_libs.lib[i].base;
    }
    if (gone) {
#define KPROF_RT(name, proto, cls) __atomic_store_n(&kprof_rt.name, NULL, __ATOMIC_RELEASE);
#define KPROF_RTUSE(name) __atomic_store_n(&kprof_rt.name, NULL, __ATOMIC_RELEASE);
#include "api.def"
        __atomic_store_n(&rt_libs.n, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&rt_libs.lock);
    if (gone)
        kprof_info("the CUDA runtime was unloaded; its functions will be looked up again");
}

KPROF_EXPORT int dlclose(void *handle)
{
    pthread_once(&real_dlclose_once, real_dlclose_find);
    if (!real_dlclose)
        return -1; /* cannot happen with glibc */
    int r = real_dlclose(handle);
    if (r == 0 && __atomic_load_n(&rt_libs.n, __ATOMIC_ACQUIRE) > 0) {
        int saved = errno;
        rt_check_unloaded();
        errno = saved;
    }
    return r;
}

/* dl_iterate_phdr callback: looks `name` up in each loaded libcudart (one loaded with RTLD_LOCAL, by a
 * plugin or a Python extension, is invisible to RTLD_NEXT but still calls libkprof's wrappers). */
struct find_arg { const char *name; void *fn; };
static int find_in_cudart(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find_arg *a = data;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (!base || strncmp(base, "libcudart.so", 12) != 0)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return 0;
    a->fn = kprof_real_dlsym(h, a->name);
    own_dlclose(h); /* NOLOAD took a reference; the library stays loaded by whoever loaded it */
    return a->fn != NULL;
}

void *kprof_rt_resolve(void **slot, const char *name)
{
    void *fn = kprof_real_dlsym(RTLD_NEXT, name);
    if (!fn) {
        struct find_arg a = { name, NULL };
        dl_iterate_phdr(find_in_cudart, &a);
        fn = a.fn;
    }
    if (!fn) {
        kprof_warn("no CUDA runtime defines %s after libkprof; the call fails with "
                   "cudaErrorSharedObjectSymbolNotFound", name);
        return NULL;
    }
    pthread_mutex_lock(&rt_libs.lock);
    rt_lib_note(fn);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt_libs.lock);
    return fn;
}

/* ---- contexts -------------------------------------------------------------------------------- */

/* Contexts libkprof has seen, so that the call which creates one can be told apart from a call that
 * merely makes an existing one current on a new thread. */
static struct {
    pthread_mutex_t lock;
    CUcontext seen[256];
    int n, full;
} contexts = { .lock = PTHREAD_MUTEX_INITIALIZER };
static __thread CUcontext tls_ctx __attribute__((tls_model("initial-exec")));
/* The outermost counted call in progress on this thread, and the context-creation time measured inside
 * calls on this thread by the driver hooks. */
static __thread int tls_api __attribute__((tls_model("initial-exec"))) = -1;
static __thread uint64_t tls_ctx_init_ns __attribute__((tls_model("initial-exec")));
/* After a context is created, the next few counted calls register the exit handler again: a static
 * cudart creates its context from inside its first API call and may register its own teardown with
 * atexit() only after that, and handlers run last-registered-first. */
static int reregister_left;

static void kprof_atexit(void);

/* Notes ctx; returns 1 if libkprof had not seen it before. */
static int context_note(CUcontext ctx)
{
    int is_new = 1;
    pthread_mutex_lock(&contexts.lock);
    for (int i = 0; i < contexts.n; i++)
        if (contexts.seen[i] == ctx)
            is_new = 0;
    if (is_new && contexts.n < (int)(sizeof contexts.seen / sizeof contexts.seen[0]))
        contexts.seen[contexts.n++] = ctx;
    else if (is_new && !contexts.full) {
        contexts.full = 1;
        kprof_warn("more than %d CUDA contexts: later ones are not told apart in the context init rows",
                   contexts.n);
    }
    pthread_mutex_unlock(&contexts.lock);
    if (is_new) {
        __atomic_store_n(&kprof_cuda_used, 1, __ATOMIC_RELAXED);
        /* cudart registers its teardown with atexit() during its first call, which created this
         * context; handlers run last-registered-first, so registering again puts the report first. */
        atexit(kprof_atexit);
        __atomic_store_n(&reregister_left, 8, __ATOMIC_RELAXED);
    }
    return is_new;
}

/* The first cuInit's host time, until the first context created takes it into its row. */
static uint64_t driver_init_ns;
int kprof_driver_inited;

void kprof_driver_initialized(uint64_t host_ns)
{
    static int once;
    __atomic_store_n(&kprof_driver_inited, 1, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&driver_init_ns, host_ns, __ATOMIC_RELAXED);
    tls_ctx_init_ns += host_ns;
}

void kprof_host_time_exclude(uint64_t ns)
{
    tls_ctx_init_ns += ns;
}

void kprof_context_forget(CUcontext ctx)
{
    pthread_mutex_lock(&contexts.lock);
    for (int i = 0; i < contexts.n; i++)
        if (contexts.seen[i] == ctx) {
            contexts.seen[i] = contexts.seen[--contexts.n];
            break;
        }
    pthread_mutex_unlock(&contexts.lock);
    if (tls_ctx == ctx)
        tls_ctx = NULL;
}

void kprof_context_created(CUcontext ctx, CUdevice device, int api, uint64_t host_ns)
{
    if (!ctx)
        return;
    __atomic_store_n(&kprof_driver_inited, 1, __ATOMIC_RELAXED);
    if (!context_note(ctx))
        return;
    tls_ctx_init_ns += host_ns;
    host_ns += __atomic_exchange_n(&driver_init_ns, 0, __ATOMIC_RELAXED);
    kprof_ctx_init_record((int)device, tls_api >= 0 ? tls_api : api, host_ns);
}

static int paused;

void kprof_set_paused(int p)
{
    if (__atomic_exchange_n(&paused, p, __ATOMIC_RELAXED) != p)
        kprof_info("profiling %s", p ? "paused (cudaProfilerStop)" : "running (cudaProfilerStart)");
}

int kprof_call_begin(struct kprof_call *c, int api)
{
    if (KPROF_UNLIKELY(kprof_is_finished() || kprof_config.disabled || kprof_tls_depth > 0))
        return 0;
    if (KPROF_UNLIKELY(__atomic_load_n(&paused, __ATOMIC_RELAXED))) {
        kprof_chain_break(); /* the call's work, if any, is not timed */
        return 0;
    }
    if (KPROF_UNLIKELY(!kprof_driver_ready()))
        return 0;
    kprof_tls_depth++;
    if (KPROF_UNLIKELY(__atomic_load_n(&reregister_left, __ATOMIC_RELAXED) > 0) &&
        __atomic_sub_fetch(&reregister_left, 1, __ATOMIC_RELAXED) >= 0)
        atexit(kprof_atexit);
    c->api = api;
    tls_api = api;
    c->ctx_init_ns = tls_ctx_init_ns;
    c->ctx_before = NULL;
    if (KPROF_UNLIKELY(!kprof_driver_is_initialized()) ||
        kprof_drv.cuCtxGetCurrent(&c->ctx_before) != CUDA_SUCCESS)
        c->ctx_before = NULL; /* the driver is not initialised yet: no context */
    c->t0_ns = kprof_now_ns();
    return 1;
}

uint64_t kprof_call_end(struct kprof_call *c, int ok)
{
    uint64_t dt = kprof_now_ns() - c->t0_ns;
    uint64_t created = tls_ctx_init_ns - c->ctx_init_ns; /* measured by the context-creation hooks */
    dt = dt > created ? dt - created : 0;
    /* Only look again when the call may have changed the thread's context. */
    if ((c->ctx_before == NULL || c->ctx_before != tls_ctx || c->api == KPROF_API_cudaSetDevice) &&
        kprof_driver_is_initialized()) {
        CUcontext after = NULL;
        if (kprof_drv.cuCtxGetCurrent(&after) == CUDA_SUCCESS && after) {
            if (after != tls_ctx && context_note(after) && after != c->ctx_before) {
                CUdevice dev = -1;
                if (kprof_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
                    dev = -1;
                kprof_ctx_init_record((int)dev, c->api, dt);
                dt = 0; /* the call's own statistics leave context creation out */
            }
            tls_ctx = after;
        }
    }
    if (kprof_api_counted[c->api])
        kprof_api_record(c->api, dt, ok);
    tls_api = -1;
    kprof_tls_depth--;
    return dt;
}

/* ---- start and exit -------------------------------------------------------------------------- */

int kprof_forked_child;

/* ---- KPROF_SIGNALS=1: the report on SIGINT/SIGTERM ------------------------------------------- */

/* The handler only wakes a helper thread, which writes the report (CUDA calls inside a signal handler
 * can deadlock), waits for it (bounded), then hands the signal to the program's own handler, or to the
 * default action. */
static sem_t sig_go, sig_done;
static struct sigaction sig_old[2];

/* 1 while the report is written because of a signal: the interrupted thread may hold a stdio lock, so
 * the app's streams are not flushed then. */
static int finishing_on_signal;

static void *signal_helper(void *arg)
{
    (void)arg;
    while (sem_wait(&sig_go) != 0 && errno == EINTR)
        ;
    finishing_on_signal = 1;
    kprof_finish();
    sem_post(&sig_done);
    return NULL;
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    static volatile sig_atomic_t once;
    int saved = errno;
    if (!once) {
        once = 1;
        sem_post(&sig_go);
        struct timespec until = kprof_deadline_ms(kprof_config.exit_timeout_ms + 5000);
        while (sem_timedwait(&sig_done, &until) != 0 && errno == EINTR)
            ;
    }
    struct sigaction *old = &sig_old[sig == SIGTERM];
    errno = saved;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, info, uc);
    } else if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL) {
        old->sa_handler(sig);
    } else if (old->sa_handler == SIG_DFL) {
        sigaction(sig, old, NULL); /* the default action: end the process, as without libkprof */
        raise(sig);
    }
}

static int signals_installed;

/* Starts the helper thread (again in a forked child, where threads do not survive); 0 on failure. */
static int signal_helper_start(void)
{
    pthread_t t;
    sigset_t all, mask;
    if (sem_init(&sig_go, 0, 0) != 0 || sem_init(&sig_done, 0, 0) != 0)
        return 0;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    int ok = pthread_create(&t, NULL, signal_helper, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (ok)
        pthread_detach(t);
    return ok;
}

static void signals_install(void)
{
    if (!signal_helper_start()) {
        kprof_warn("cannot start the signal helper thread; KPROF_SIGNALS ignored");
        return;
    }
    signals_installed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    static const int sigs[2] = { SIGINT, SIGTERM };
    for (int i = 0; i < 2; i++) {
        /* A signal the program ignores stays ignored: libkprof must not make it do anything. */
        if (sigaction(sigs[i], NULL, &sig_old[i]) == 0 && !(sig_old[i].sa_flags & SA_SIGINFO) &&
            sig_old[i].sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, &sig_old[i]);
    }
}

static int fork_consistent, fork_ctx_held;

/* The modules' fork handlers (fork.h), by order. */
static struct kprof_fork_module *fork_modules;

void kprof_fork_register(struct kprof_fork_module *m)
{
    struct kprof_fork_module **at = &fork_modules;
    while (*at && (*at)->order <= m->order)
        at = &(*at)->next;
    m->next = *at;
    *at = m;
}

/* Runs the modules' parent handlers from `from` back to the first (recursion: the list is singly linked
 * and short). */
static void fork_parents_from(struct kprof_fork_module *m)
{
    if (!m)
        return;
    fork_parents_from(m->next);
    m->parent();
}

static void fork_prepare(void)
{
    fork_consistent = 1;
    for (struct kprof_fork_module *m = fork_modules; m; m = m->next)
        fork_consistent &= m->prepare();
    struct timespec t = kprof_deadline_ms(1000); /* never held across a call: only a preempted holder waits */
    fork_ctx_held = pthread_mutex_timedlock(&contexts.lock, &t) == 0;
    fork_consistent &= fork_ctx_held;
}

static void fork_parent(void)
{
    if (fork_ctx_held)
        pthread_mutex_unlock(&contexts.lock);
    fork_parents_from(fork_modules);
}

static void fork_child(void)
{
    if (!fork_consistent) {
        /* Some thread held one of libkprof's locks, and that thread is not in the child: the child
         * leaves libkprof's state alone for good (no report, every call passed through), after giving
         * back the locks this thread took, so that nothing it still runs waits on them. */
        __atomic_store_n(&kprof_finished, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&kprof_cuda_used, 0, __ATOMIC_RELAXED);
        fork_parent();
        if (signals_installed)
            signal_helper_start(); /* so that a signal's handler does not wait for a helper in vain */
        return;
    }
    /* Every lock was taken by this thread, the child's only one: give them back (as in the parent) before
     * the modules start afresh, rather than initialising locked locks (which ThreadSanitizer, rightly,
     * takes for still locked). */
    fork_parent();
    pthread_mutex_init(&contexts.lock, NULL);
    contexts.n = 0;
    __atomic_store_n(&kprof_driver_inited, 0, __ATOMIC_RELAXED);
    tls_ctx = NULL;
    tls_ctx_init_ns = 0;
    __atomic_store_n(&kprof_cuda_used, 0, __ATOMIC_RELAXED);
    kprof_forked_child = 1;
    for (struct kprof_fork_module *m = fork_modules; m; m = m->next)
        m->child();
    kprof_start_ns = kprof_now_ns();
    if (signals_installed && !signal_helper_start())
        kprof_warn("cannot start the signal helper thread in the child; SIGINT/SIGTERM write no report there");
}

int kprof_is_libkprof(const void *p)
{
    static void *self_base;
    Dl_info info;
    void *self = __atomic_load_n(&self_base, __ATOMIC_RELAXED);
    if (!self && dladdr(instance_marker, &info))
        __atomic_store_n(&self_base, self = info.dli_fbase, __ATOMIC_RELAXED);
    if (!p || !dladdr(p, &info))
        return 0;
    if (info.dli_fbase == self)
        return 1;
    /* Another object: does it export the marker?  (Not the main program, whose scope is global.) */
    if (!info.dli_fname || !info.dli_fname[0])
        return 0;
    void *base = info.dli_fbase;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    const char *m = kprof_real_dlsym(h, "kprof_instance_marker");
    int copy = m && dladdr(m, &info) && info.dli_fbase == base;
    dlclose(h); /* NOLOAD took a reference; the object stays loaded by whoever loaded it */
    return copy;
}

/* 1 (after one warning) when another copy of libkprof comes before this one in the lookup order: the
 * program calls that copy's functions, which then reach this one's, and both would report. */
static int another_copy_first(void)
{
    const char *m = kprof_real_dlsym(RTLD_DEFAULT, "kprof_instance_marker");
    if (!m || m == instance_marker)
        return 0;
    Dl_info other, self;
    kprof_warn("another copy of libkprof is loaded first (%s); this one (%s) stays disabled and passes "
               "every call through",
               dladdr(m, &other) && other.dli_fname ? other.dli_fname : "?",
               dladdr(instance_marker, &self) && self.dli_fname ? self.dli_fname : "?");
    return 1;
}

__attribute__((constructor)) static void kprof_init(void)
{
    kprof_start_ns = kprof_now_ns();
    /* Secure execution (setuid/setgid programs, file capabilities; /etc/ld.so.preload applies there
     * too): no KPROF_* variable is read, no file written, no message; every call passes through. */
    if (getauxval(AT_SECURE) || another_copy_first()) {
        kprof_config.disabled = 1;
        return;
    }
    kprof_config_load();
    paused = kprof_config.start_paused;
    if (kprof_config.disabled)
        kprof_info("disabled by KPROF_DISABLE=1");
    /* A fallback for programs whose contexts libkprof never sees created. */
    atexit(kprof_atexit);
    /* quick_exit() runs only at_quick_exit handlers (no atexit handlers, no destructors), and tears no
     * CUDA context down: the pairs can still be read there. */
    at_quick_exit(kprof_atexit);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    if (kprof_config.signals && !kprof_config.disabled)
        signals_install();
}

void kprof_finish(void)
{
    static int once;
    if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
        return;
    kprof_tls_depth++;
    __atomic_store_n(&kprof_finished, 1, __ATOMIC_RELAXED); /* no new pairs from here on */
    if (!kprof_config.disabled && __atomic_load_n(&kprof_cuda_used, __ATOMIC_RELAXED)) {
        kprof_events_drain(kprof_config.exit_timeout_ms);
        struct kprof_snapshot s;
        if (kprof_snapshot_take(&s)) {
            if (!finishing_on_signal)
                fflush(NULL); /* the app's own output first */
            kprof_report_write(&s);
        }
        kprof_snapshot_free(&s);
    }
    kprof_tls_depth--;
}

static void kprof_atexit(void)
{
    kprof_finish();
}

/* Last resort (dlclose, or exit paths that skip atexit handlers registered late): events may be gone by
 * now, in which case they count as incomplete. */
__attribute__((destructor)) static void kprof_fini(void)
{
    kprof_finish();
}
