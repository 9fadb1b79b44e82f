/* fork.h: modules register their pthread_atfork handlers (lifecycle.c runs them). */
#ifndef KPROF_FORK_H
#define KPROF_FORK_H

#include <pthread.h>
#include "clock.h"

/* One module's fork() handlers.  prepare takes the module's locks, waiting a bounded time (a thread may be
 * stuck in the driver, whose own fork handler holds its locks), and returns 0 if it could not; the child
 * then starts afresh, touching none of the parent's CUDA objects, or, if some prepare failed, leaves
 * libkprof's state alone and passes calls through.  Modules are prepared in increasing `order` (the order
 * in which the code nests their locks: a module whose lock is held while another's is taken comes
 * first), their parent handlers run in the reverse order and their child handlers in `order`, after the
 * core's own.  The core links `next`. */
struct kprof_fork_module {
    const char *name;
    int order;
    int (*prepare)(void);
    void (*parent)(void);
    void (*child)(void);
    struct kprof_fork_module *next;
};

/* Adds m to the modules fork() handlers run for; from a constructor, before any thread can fork
 * (KPROF_FORK_MODULE).  Not thread-safe. */
void kprof_fork_register(struct kprof_fork_module *m);

/* Defines a module's registration: KPROF_FORK_MODULE(events, 10, prepare, parent, child). */
#define KPROF_FORK_MODULE(mod, ord, prep, par, chi)                                                 \
    static struct kprof_fork_module kprof_fork_module_##mod = { #mod, (ord), (prep), (par), (chi), 0 }; \
    __attribute__((constructor(101))) static void kprof_fork_module_register_##mod(void)           \
    {                                                                                              \
        kprof_fork_register(&kprof_fork_module_##mod);                                             \
    }

/* The same for a module whose state one mutex guards: prepare takes `mutex` (waiting at most 200 ms),
 * parent releases it if taken, the child initialises it afresh and calls `reset` (void (void)), the
 * module's fresh start: KPROF_FORK_MUTEX_MODULE(allocs, 28, allocs.lock, allocs_reset). */
#define KPROF_FORK_MUTEX_MODULE(mod, ord, mutex, reset)                                            \
    static int kprof_fork_held_##mod;                                                              \
    static int kprof_fork_prepare_##mod(void)                                                      \
    {                                                                                              \
        struct timespec t = kprof_deadline_ms(200);                                                \
        kprof_fork_held_##mod = pthread_mutex_timedlock(&(mutex), &t) == 0;                        \
        return kprof_fork_held_##mod;                                                              \
    }                                                                                              \
    static void kprof_fork_parent_##mod(void)                                                      \
    {                                                                                              \
        if (kprof_fork_held_##mod)                                                                 \
            pthread_mutex_unlock(&(mutex));                                                        \
    }                                                                                              \
    static void kprof_fork_child_##mod(void)                                                       \
    {                                                                                              \
        pthread_mutex_init(&(mutex), NULL);                                                        \
        reset();                                                                                   \
    }                                                                                              \
    KPROF_FORK_MODULE(mod, ord, kprof_fork_prepare_##mod, kprof_fork_parent_##mod, kprof_fork_child_##mod)

#endif
