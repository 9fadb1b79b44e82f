/* lifecycle.c: start-up, fork, KPROF_SIGNALS, and the exit sequence that drains the events and writes the
 * report before cudart tears its contexts down. */
#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "sampling.h"
#include "cuda_api.h"
#include "log.h"
#include "kprof_config.h"
#include "resolve.h"
#include "clock.h"
#include "call.h"
#include "finish.h"
#include "instance.h"
#include "module.h"
#include "timing.h"
#include "snapshot.h"
#include "report.h"

static void kprof_atexit(void);
static void kprof_at_quick_exit(void);

int kprof_forked_child;
/* The process's pid as libkprof knows it: set at start and in a fork()ed child (not in a vfork()ed one). */
static pid_t kprof_pid;

/* ---- KPROF_SIGNALS=1: the report on SIGINT/SIGTERM ------------------------------------------- */

/* The handler only wakes a helper thread and returns: the thread it interrupted may hold a lock the report
 * needs (libkprof's, or the driver's inside a launch), so it must not wait there.  The helper writes the
 * report (CUDA calls inside a signal handler can deadlock), or waits for the one exit() is writing, then
 * puts the program's own disposition back and raises the signal again: the program's handler runs, or the
 * default action ends the process, as without libkprof (the program runs on meanwhile). */
static sem_t sig_go;
static struct sigaction sig_old[2];
static volatile sig_atomic_t sig_caught; /* the signal the helper writes the report for */

/* 1 while the report is written because of a signal: the interrupted thread may hold a stdio lock, so
 * the app's streams are not flushed then. */
static int finishing_on_signal;
/* 1 when the report is written from quick_exit(), which flushes no stdio stream: nor does libkprof. */
static int finishing_quickly;
/* 1 when the report is written before an exec: an exec discards the program's unflushed stdio buffers, so
 * libkprof flushes none of them either (their output would appear where, without libkprof, it does not). */
static int finishing_for_exec;

static int finish_claim(void);
static void finish_run(void);
static void finish_wait(long timeout_ms);

static void on_signal(int sig, siginfo_t *info, void *uc);

/* 1 when libkprof's handler is still sig's (the program installed none of its own since). */
static int signal_still_ours(int sig)
{
    struct sigaction cur;
    return sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal;
}

static void *signal_helper(void *arg)
{
    (void)arg;
    while (sem_wait(&sig_go) != 0 && errno == EINTR)
        ;
    int sig = sig_caught;
    if (finish_claim()) {
        finishing_on_signal = 1;
        finish_run();
    } else {
        finish_wait(kprof_config.exit_timeout_ms + 5000); /* exit() is writing it: the process ends after */
    }
    /* Only while libkprof's handler is still the signal's: a handler the program installed meanwhile stays
     * (a breaker helper: a program whose SIGTERM handler, installed after libkprof's, also called the one
     * before it was killed here instead of shutting down as it does without libkprof). */
    if (signal_still_ours(sig)) {
        sigaction(sig, &sig_old[sig == SIGTERM], NULL);
        kill(getpid(), sig); /* this thread blocks every signal: another one takes it */
    }
    return NULL;
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    static volatile sig_atomic_t once;
    int saved = errno;
    /* Called by a handler the program installed after libkprof's (which calls the one it replaced): without
     * libkprof it would have called the one libkprof replaced, if a function (a second tester: a handler set
     * at the start, as Python's, then never ran), and not the default; so here.  The report comes from the
     * program's exit. */
    if (!signal_still_ours(sig)) {
        struct sigaction *old = &sig_old[sig == SIGTERM];
        errno = saved;
        if (old->sa_flags & SA_SIGINFO)
            old->sa_sigaction(sig, info, uc);
        else if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL)
            old->sa_handler(sig);
        return;
    }
    if (!once) {
        once = 1;
        sig_caught = sig;
        sem_post(&sig_go); /* async-signal-safe; the helper raises the signal again after the report */
        errno = saved;
        return;
    }
    /* A second signal before the report is written: the program's action at once, as without libkprof. */
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

/* Starts a detached thread of libkprof's own running fn, with every signal blocked (they are the
 * program's); 0 on failure. */
static int helper_thread_start(void *(*fn)(void *))
{
    pthread_t t;
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    int ok = pthread_create(&t, NULL, fn, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (ok)
        pthread_detach(t);
    return ok;
}

/* Starts the helper thread (again in a forked child, where threads do not survive); 0 on failure. */
static int signal_helper_start(void)
{
    return sem_init(&sig_go, 0, 0) == 0 && helper_thread_start(signal_helper);
}

/* The handlers, installed at the program's first CUDA call (kprof_call_on_first), not when libkprof is
 * loaded: a handler the program sets at its start stays its own and runs after the report (a breaker
 * helper: Python sets SIGINT's, KeyboardInterrupt, only when it finds the default there, and with
 * libkprof's installed first Ctrl-C killed the script with no cleanup). */
static void signals_arm(void)
{
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

static void signals_install(void)
{
    if (!signal_helper_start()) {
        kprof_warn("cannot start the signal helper thread; KPROF_SIGNALS ignored");
        return;
    }
    signals_installed = 1;
}

static void exec_helper_start(void);
static int exec_helper_ok;

/* At the program's first CUDA call (kprof_call_on_first): KPROF_SIGNALS's handlers, and the thread that
 * writes the report before an exec. */
static void on_first_call(void)
{
    static int armed; /* a forked child inherits the handlers: armed once */
    if (signals_installed && !armed) {
        armed = 1;
        signals_arm();
    }
    exec_helper_start();
}

static int fork_consistent;

/* The registered modules (module.h), by order. */
static struct kprof_module *modules;

void kprof_module_register(struct kprof_module *m)
{
    struct kprof_module **at = &modules;
    while (*at && (*at)->order <= m->order)
        at = &(*at)->next;
    m->next = *at;
    *at = m;
}

/* Runs the modules' parent handlers from `from` back to the first (recursion: the list is singly linked
 * and short). */
static void fork_parents_from(struct kprof_module *m)
{
    if (!m)
        return;
    fork_parents_from(m->next);
    m->parent();
}

static void fork_prepare(void)
{
    fork_consistent = 1;
    for (struct kprof_module *m = modules; m; m = m->next)
        fork_consistent &= m->prepare();
}

static void fork_parent(void)
{
    fork_parents_from(modules);
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
        exec_helper_ok = 0;        /* finished: no report to write before an exec */
        return;
    }
    /* Every lock was taken by this thread, the child's only one: give them back (as in the parent) before
     * the modules start afresh, rather than initialising locked locks (which ThreadSanitizer, rightly,
     * takes for still locked). */
    fork_parent();
    kprof_forked_child = 1;
    for (struct kprof_module *m = modules; m; m = m->next) {
        m->child();
        m->reset();
    }
    kprof_start_ns = kprof_now_ns();
    kprof_pid = getpid();
    if (exec_helper_ok) { /* threads do not survive fork: made again at the child's first CUDA call, if any
                           * (not here: ThreadSanitizer ends a child that starts a thread after a fork of a
                           * process with threads, and most children never use CUDA) */
        exec_helper_ok = 0;
        kprof_call_on_first(on_first_call);
    }
    if (signals_installed && !signal_helper_start())
        kprof_warn("cannot start the signal helper thread in the child; SIGINT/SIGTERM write no report there");
}


__attribute__((constructor)) static void kprof_init(void)
{
    kprof_start_ns = kprof_now_ns();
    kprof_pid = getpid();
    /* Secure execution (setuid/setgid programs, file capabilities; /etc/ld.so.preload applies there
     * too): no KPROF_* variable is read, no file written, no message; every call passes through. */
    if (getauxval(AT_SECURE) || kprof_another_copy_first()) {
        kprof_config.disabled = 1;
        return;
    }
    kprof_stderr_keep(); /* before any message: the program may give descriptor 2 to a file later */
    kprof_config_load();
    if (!kprof_config.disabled)
        kprof_report_check_paths();
    kprof_sampling_init();
    kprof_call_start(kprof_atexit, kprof_config.start_paused);
    if (kprof_config.disabled)
        kprof_info("disabled by KPROF_DISABLE=1");
    /* A fallback for programs whose contexts libkprof never sees created. */
    atexit(kprof_atexit);
    /* quick_exit() runs only at_quick_exit handlers (no atexit handlers, no destructors), and tears no
     * CUDA context down: the pairs can still be read there. */
    at_quick_exit(kprof_at_quick_exit);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    if (kprof_config.signals && !kprof_config.disabled)
        signals_install();
    if (!kprof_config.disabled)
        kprof_call_on_first(on_first_call);
}

/* Under kprof(1) (KPROF_LAUNCHED_PID set), one line on why this process profiled nothing: the driver
 * could not be loaded, or KPROF_START=paused was never resumed (in any process that tried CUDA); no CUDA
 * call (the driver not loadable either: a static runtime's calls never reach libkprof without it), or no
 * context (only in the process kprof started: its children that never tried CUDA, such as a
 * script's helpers, stay silent).  Nothing without kprof, where LD_PRELOAD may reach every process. */
static void say_why_nothing_profiled(int reported)
{
    if (!kprof_config.launched_pid || kprof_config.disabled)
        return;
    const char *name = program_invocation_short_name ? program_invocation_short_name : "?";
    long pid = (long)getpid();
    const char *why = NULL;
    if (kprof_driver_state(&why) == KPROF_DRIVER_MISSING)
        kprof_warn("nothing profiled in %s (pid %ld): the CUDA driver could not be loaded (%s)", name, pid, why);
    else if (kprof_call_never_ran())
        kprof_warn("nothing profiled in %s (pid %ld): KPROF_START=paused, and it never called cudaProfilerStart "
                   "or cuProfilerStart", name, pid);
    else if (reported || pid != kprof_config.launched_pid || kprof_config.exec_image > 1)
        return; /* exec_image > 1: an earlier program of this process reported before its exec (a helper) */
    else if (kprof_driver_state(NULL) == KPROF_DRIVER_UNTRIED && !kprof_driver_loadable(&why))
        kprof_warn("nothing profiled in %s (pid %ld): the CUDA driver could not be loaded (%s), and no CUDA call "
                   "reached libkprof (a CUDA runtime linked into the program, nvcc's default, fails without "
                   "the driver before any does)", name, pid, why);
    else if (kprof_driver_state(NULL) == KPROF_DRIVER_UNTRIED)
        kprof_warn("nothing profiled in %s (pid %ld): it made no CUDA call", name, pid);
    else if (__atomic_load_n(&kprof_proc_address_asked, __ATOMIC_RELAXED) &&
             !kprof_cuda_library_loaded(KPROF_LIB_RUNTIME))
        kprof_warn("nothing profiled in %s (pid %ld): it created no CUDA context (no GPU, or its CUDA calls "
                   "failed; its CUDA runtime is linked into it, nvcc's default, and needs NVIDIA's own "
                   "libcuda.so.1)", name, pid);
    else
        kprof_warn("nothing profiled in %s (pid %ld): it created no CUDA context (no GPU, or its CUDA calls "
                   "failed)", name, pid);
}

static int finish_once, finish_done;

/* 1 for the one caller that is to write the report (finish_run). */
static int finish_claim(void)
{
    return !__atomic_exchange_n(&finish_once, 1, __ATOMIC_ACQ_REL);
}

/* Waits, up to timeout_ms, for the report another thread is writing. */
static void finish_wait(long timeout_ms)
{
    for (long i = 0; i < timeout_ms && !__atomic_load_n(&finish_done, __ATOMIC_ACQUIRE); i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
}

void kprof_finish(void)
{
    if (finish_claim())
        finish_run();
}

/* kprof_finish's work, once claimed. */
static void finish_run(void)
{
    kprof_tls_depth++;
    __atomic_store_n(&kprof_finished, 1, __ATOMIC_RELAXED); /* no new pairs from here on */
    int reported = 0;
    if (!kprof_config.disabled && __atomic_load_n(&kprof_cuda_used, __ATOMIC_ACQUIRE)) {
        kprof_events_drain(kprof_config.exit_timeout_ms);
        struct kprof_snapshot s;
        if (kprof_snapshot_take(&s)) {
            if (!finishing_on_signal && !finishing_quickly && !finishing_for_exec)
                fflush(NULL); /* the app's own output first */
            kprof_report_write(&s);
            reported = 1;
        }
        kprof_snapshot_free(&s);
    }
    if (!reported && finishing_on_signal && !kprof_config.disabled && kprof_call_without_context_in_flight() > 0)
        kprof_warn("%s arrived while the first CUDA call was still creating the context: nothing measured, "
                   "no report", sig_caught == SIGINT ? "SIGINT" : "SIGTERM");
    else
        say_why_nothing_profiled(reported);
    kprof_tls_depth--;
    __atomic_store_n(&finish_done, 1, __ATOMIC_RELEASE);
}

static void kprof_atexit(void)
{
    kprof_finish();
}


/* The report before an exec is written by a thread of libkprof's own, made at the program's first CUDA call
 * (exec_helper_start), while the exec's thread waits for it at most KPROF_EXIT_TIMEOUT + 2 s: an exec may
 * come from a signal handler (a daemon restarting itself), whose thread was interrupted holding a lock the
 * report needs (libkprof's, malloc's, the driver's); it then gets no report, but the exec goes on (a second
 * tester: 5 such runs in 20 hung for good when the exec's thread wrote the report itself). */
static sem_t exec_go, exec_done;

static void *exec_helper(void *arg)
{
    (void)arg;
    free(malloc(64)); /* its malloc arena, now, not at the exec */
    while (sem_wait(&exec_go) != 0 && errno == EINTR)
        ;
    if (finish_claim()) {
        finishing_for_exec = 1;
        finish_run();
    } else {
        finish_wait(kprof_config.exit_timeout_ms + 5000);
    }
    sem_post(&exec_done);
    return NULL;
}

/* Starts the exec helper (again in a forked child). */
static void exec_helper_start(void)
{
    exec_helper_ok = sem_init(&exec_go, 0, 0) == 0 && sem_init(&exec_done, 0, 0) == 0 &&
                     helper_thread_start(exec_helper);
}

int kprof_exec_would_report(void)
{
    int saved = errno;
    int due = getpid() == kprof_pid && !kprof_config.disabled && !kprof_is_finished() &&
              __atomic_load_n(&kprof_cuda_used, __ATOMIC_ACQUIRE) && exec_helper_ok;
    errno = saved;
    /* Inside libkprof on this thread (a handler that interrupted a wrapper): the report would wait for
     * what this thread holds. */
    return due ? kprof_tls_depth == 0 ? 1 : 2 : 0;
}

void kprof_exec_lost(const char *path)
{
    int saved = errno;
    kprof_warn("%s replaces the process from inside a CUDA call (an exec from a signal handler): the report "
               "cannot be written first and is lost", path ? path : "an exec");
    errno = saved;
}

int kprof_finish_for_exec(const char *path)
{
    int saved = errno;
    int ours = kprof_exec_would_report() == 1;
    if (ours) {
        kprof_info("%s is about to replace the process: writing the report first", path ? path : "exec");
        sem_post(&exec_go);
        struct timespec until = kprof_deadline_ms(kprof_config.exit_timeout_ms + 2000);
        while (sem_timedwait(&exec_done, &until) != 0 && errno == EINTR)
            ;
    }
    errno = saved;
    return ours;
}

void kprof_exec_failed(const char *path)
{
    int saved = errno;
    kprof_warn("the exec of %s failed after libkprof wrote its report; later CUDA calls are not profiled",
               path ? path : "a program");
    errno = saved;
}

static void kprof_at_quick_exit(void)
{
    if (finish_claim()) {
        finishing_quickly = 1;
        finish_run();
    }
}

/* Last resort (dlclose, or exit paths that skip atexit handlers registered late): events may be gone by
 * now, in which case they count as incomplete. */
__attribute__((destructor)) static void kprof_fini(void)
{
    kprof_finish();
}

