/* fork.h: each module's pthread_atfork handlers, which core.c registers. */
#ifndef KPROF_FORK_H
#define KPROF_FORK_H

/* fork(): each module's pthread_atfork handlers.  prepare takes the module's locks in the order the code
 * nests them, waiting a bounded time (a thread may be stuck in the driver, whose own fork handler holds
 * its locks), and returns 0 if it could not; the child then starts afresh, touching none of the parent's
 * CUDA objects, or, if some prepare failed, leaves libkprof's state alone and passes calls through. */
int kprof_events_fork_prepare(void);
void kprof_events_fork_parent(void);
void kprof_events_fork_child(void);
int kprof_stats_fork_prepare(void);
void kprof_stats_fork_parent(void);
void kprof_stats_fork_child(void);
int kprof_graphs_fork_prepare(void);
void kprof_graphs_fork_parent(void);
void kprof_graphs_fork_child(void);
int kprof_preload_fork_prepare(void);
void kprof_preload_fork_parent(void);
void kprof_preload_fork_child(void);

#endif
