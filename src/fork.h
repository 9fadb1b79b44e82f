/* fork.h: modules register their pthread_atfork handlers (lifecycle.c runs them). */
#ifndef KPROF_FORK_H
#define KPROF_FORK_H

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

#endif
