/* finish.h: the exit sequence (lifecycle.c) and the process-wide flags it shares with the wrappers and
 * the report. */
#ifndef KPROF_FINISH_H
#define KPROF_FINISH_H

/* 1 once the report has been written (or libkprof disabled itself): wrappers then pass through.  Read it
 * with kprof_is_finished() (an atomic load: threads may still be launching while another exits). */
extern int kprof_finished;
static inline int kprof_is_finished(void)
{
    return __atomic_load_n(&kprof_finished, __ATOMIC_RELAXED);
}

/* 1 in a child made by fork() after libkprof started: its report names get ".<pid>" unless their
 * pattern has %p, so that they never overwrite the parent's. */
extern int kprof_forked_child;

/* 1 once libkprof has seen a CUDA context created (the program used CUDA): a report is written only then
 * (or when kernels were counted); 0 again in a forked child.  Read and written atomically. */
extern int kprof_cuda_used;

/* Runs the exit sequence once: drains pending events (bounded by KPROF_EXIT_TIMEOUT), writes the report,
 * and turns the wrappers into pass-through.  Safe to call from several places; only the first runs. */
void kprof_finish(void);

#endif
