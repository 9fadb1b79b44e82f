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

/* Before an exec function replaces the process image (hook_exec.c; path: what it runs, for messages): the
 * exit sequence, when the process used CUDA and the report is not written yet.  Not in a vfork() child,
 * which runs in its parent's memory until it execs (no pthread_atfork handler ran: its pid is not
 * libkprof's), nor where the program never used CUDA (a shell that execs the program).  Returns 1 when
 * it wrote the report.  kprof_exec_failed, called when the exec returned: one warning that the calls from
 * here on are not profiled; keeps errno. */
int kprof_finish_for_exec(const char *path);
void kprof_exec_failed(const char *path);
/* Whether an exec now would have kprof_finish_for_exec write the report (the same test, without the
 * waiting): 1 yes; 2 the report is due but cannot be written (the exec comes from inside a CUDA call on
 * this thread: a signal handler's), kprof_exec_lost then says so; 0 none is due.  Cheap (a few loads and
 * getpid), so the exec wrappers ask it before looking for the program on disk.  Thread-safe; keeps
 * errno.  kprof_exec_lost: the one warning (path: what the exec runs); keeps errno. */
int kprof_exec_would_report(void);
void kprof_exec_lost(const char *path);

#endif
