/* log.h: libkprof's one-line messages on stderr, and SIGPIPE held off while it writes. */
#ifndef KPROF_LOG_H
#define KPROF_LOG_H

#include <signal.h>
#include <stdio.h>

/* Message levels, KPROF_LOG's values. */
enum kprof_log_level { KPROF_LOG_WARN, KPROF_LOG_INFO, KPROF_LOG_DEBUG };

/* Writes "libkprof: <message>\n" to stderr when `level` is enabled by KPROF_LOG, in one write(): control
 * characters in the message are escaped (\n, \r, \t, \xHH), so it stays one line, and a message longer
 * than a line (1024 bytes) is cut in its middle ("..."), so its end, the reason, stays.  Never raises
 * SIGPIPE; keeps errno.  Thread-safe; not async-signal-safe (it may call malloc). */
void kprof_log(enum kprof_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define kprof_warn(...) kprof_log(KPROF_LOG_WARN, __VA_ARGS__)
#define kprof_info(...) kprof_log(KPROF_LOG_INFO, __VA_ARGS__)
#define kprof_debug(...) kprof_log(KPROF_LOG_DEBUG, __VA_ARGS__)
/* Enables the levels up to `level` (KPROF_LOG_WARN until set); config.c sets it from KPROF_LOG as soon as
 * it has read it, before the other variables.  Call it before other threads log. */
void kprof_log_set_level(enum kprof_log_level level);

/* The stderr the process started with.  A program may close descriptor 2 and open a file of its own, which
 * then gets it: libkprof's messages and report must not land in the program's data.  kprof_stderr_keep,
 * called first thing in the constructor, notes which file descriptor 2 is and keeps a descriptor of its
 * own on it (close-on-exec, numbered 100 or above, away from those shells number by hand), unless it is a
 * pipe or socket (whose reader would wait for the copy to close);
 * kprof_stderr_fd gives 2 while descriptor 2 is still that file, else that copy (while it still is that
 * file: the program may have reused its number), else -1 (nothing to write to: the message is dropped;
 * also when descriptor 2 was closed at the start, 2>&-: the program's first file gets that number).
 * kprof_stderr_stream is the same as a stdio stream: the program's stderr stream while descriptor 2 is
 * the first stderr and that stream writes bytes to it (the program's buffered output stays first), else
 * a stream of libkprof's own on descriptor 2 or on the copy (made once, never closed; written through and
 * flushed by the report, so messages written between stay in order), else NULL.  Thread-safe after kprof_stderr_keep; they keep errno. */
void kprof_stderr_keep(void);
int kprof_stderr_fd(void);
FILE *kprof_stderr_stream(void);

/* SIGPIPE held off the calling thread while libkprof writes to a pipe whose reader may be gone: block
 * saves the mask and whether SIGPIPE was pending; restore consumes a SIGPIPE that became pending since
 * (libkprof's own: sigtimedwait with a zero timeout), then restores the mask.  Per thread; keeps errno. */
struct kprof_sigpipe {
    sigset_t mask;   /* the thread's signal mask before */
    int blocked;     /* 0 when the mask could not be changed (restore does nothing) */
    int was_pending; /* SIGPIPE was pending before: not libkprof's, left alone */
};
void kprof_sigpipe_block(struct kprof_sigpipe *sp);
void kprof_sigpipe_restore(struct kprof_sigpipe *sp);

#endif
