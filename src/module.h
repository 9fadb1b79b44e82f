/* module.h: modules register their fork() handlers and their reset, each from its own file (lifecycle.c
 * runs them). */
#ifndef KPROF_MODULE_H
#define KPROF_MODULE_H

#include <pthread.h>
#include "clock.h"

/* One module's registration.  prepare takes the module's locks, waiting a bounded time (a thread may be
 * stuck in the driver, whose own fork handler holds its locks), and returns 0 if it could not; the child
 * then starts afresh, touching none of the parent's CUDA objects, or, if some prepare failed, leaves
 * libkprof's state alone and passes calls through.  Modules are prepared in increasing `order` (the order
 * in which the code nests their locks: a module whose lock is held while another's is taken comes
 * first), their parent handlers run in the reverse order, and in the child each module's `child` (its
 * locks made afresh) then its `reset` (its fresh start: the state it owns emptied, so that the child's
 * report holds only what the child does) run in `order`, after the core's own.  The core links `next`. */
struct kprof_module {
    const char *name;
    int order;
    int (*prepare)(void);
    void (*parent)(void);
    void (*child)(void);
    void (*reset)(void);
    struct kprof_module *next;
};

/* Adds m to the modules the core drives; from a constructor, before any thread can fork (KPROF_MODULE).
 * Not thread-safe. */
void kprof_module_register(struct kprof_module *m);

/* Defines a module's registration: KPROF_MODULE(events, 10, prepare, parent, child, reset). */
#define KPROF_MODULE(mod, ord, prep, par, chi, res)                                                      \
    static struct kprof_module kprof_module_##mod = { #mod, (ord), (prep), (par), (chi), (res), 0 };     \
    __attribute__((constructor(101))) static void kprof_module_register_##mod(void)                    \
    {                                                                                                   \
        kprof_module_register(&kprof_module_##mod);                                                     \
    }

/* The same for a module whose state one mutex guards: prepare takes `mutex` (waiting at most 200 ms),
 * parent releases it if taken, the child initialises it afresh; `reset` (void (void)) is the module's
 * fresh start: KPROF_MUTEX_MODULE(allocs, 28, allocs.lock, allocs_reset). */
#define KPROF_MUTEX_MODULE(mod, ord, mutex, res)                                                   \
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
    }                                                                                              \
    KPROF_MODULE(mod, ord, kprof_fork_prepare_##mod, kprof_fork_parent_##mod, kprof_fork_child_##mod, res)

#endif
