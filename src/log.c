/* log.c: libkprof's messages, one line each on stderr, prefixed "libkprof: ". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <sys/stat.h>
#include "log.h"

/* kprof_stderr_keep's record of the first stderr: known 0 when descriptor 2 was closed then. */
static struct {
    int known, copy, closed;
    dev_t dev;
    ino_t ino;
} first_err = { 0, -1, 0, 0, 0 };

void kprof_stderr_keep(void)
{
    int saved = errno;
    struct stat st;
    if (fstat(STDERR_FILENO, &st) == 0) {
        first_err.dev = st.st_dev;
        first_err.ino = st.st_ino;
        /* No copy of a pipe or socket: its reader waits for every writer to close it, and a program that
         * hands descriptor 2 over (daemon(3)) would keep its caller waiting for as long as it runs (a
         * breaker helper: `out=$(./daemon 2>&1)` 3 s instead of 4 ms). */
        if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
            first_err.copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 100);
        first_err.known = 1;
    } else {
        first_err.closed = 1; /* started without one (2>&-): descriptor 2 is the program's next file */
    }
    errno = saved;
}

/* 1 when descriptor fd is the first stderr's file. */
static int is_first_err(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == first_err.dev && st.st_ino == first_err.ino;
}

int kprof_stderr_fd(void)
{
    int saved = errno, fd = -1;
    if (first_err.closed)
        fd = -1; /* none at the start: whatever descriptor 2 is now, it is the program's (a second tester) */
    else if (!first_err.known)
        fd = STDERR_FILENO; /* not kept (before the constructor): as it is */
    else if (is_first_err(STDERR_FILENO))
        fd = STDERR_FILENO;
    else if (is_first_err(first_err.copy))
        fd = first_err.copy;
    errno = saved;
    return fd;
}

FILE *kprof_stderr_stream(void)
{
    static FILE *own[2]; /* on descriptor 2, on the copy */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int fd = kprof_stderr_fd();
    if (fd < 0)
        return NULL;
    /* The program's stderr stream while it still writes bytes to descriptor 2: a program may point the
     * variable elsewhere (stderr = stdout; stderr = fopen(...)) or make the stream wide (fwprintf), and
     * then the report went to its stdout or data file, or was lost without a word (a breaker helper). */
    if (fd == STDERR_FILENO && fileno(stderr) == STDERR_FILENO && fwide(stderr, 0) <= 0)
        return stderr;
    int saved = errno, i = fd != STDERR_FILENO;
    pthread_mutex_lock(&lock);
    if (!own[i])
        own[i] = fdopen(fd, "w"); /* never closed: the messages' write()s share the descriptor */
    pthread_mutex_unlock(&lock);
    errno = saved;
    return own[i];
}

/* The longest line written, newline included. */
#define LINE_MAX_BYTES 1024

/* Appends the escaped form of byte c to out (room for 4 bytes needed); returns the bytes appended.
 * Control characters (and DEL) would start new lines or drive the terminal: \n, \r, \t and \xHH. */
static size_t escape_byte(unsigned char c, char *out)
{
    if (c >= 0x20 && c != 0x7f) {
        out[0] = (char)c;
        return 1;
    }
    if (c == '\n')
        return (size_t)sprintf(out, "\\n");
    if (c == '\r')
        return (size_t)sprintf(out, "\\r");
    if (c == '\t')
        return (size_t)sprintf(out, "\\t");
    return (size_t)sprintf(out, "\\x%02x", c);
}

/* Bytes that escape_byte makes of s[0..n). */
static size_t escaped_len(const char *s, size_t n)
{
    size_t len = 0;
    char tmp[5];
    for (size_t i = 0; i < n; i++)
        len += escape_byte((unsigned char)s[i], tmp);
    return len;
}

/* Escapes s[0..n) into out; returns the end. */
static char *escape_into(char *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out += escape_byte((unsigned char)s[i], out);
    return out;
}

/* Moves a cut point off UTF-8 continuation bytes (backwards), so no character is split. */
static size_t char_start(const char *s, size_t i)
{
    while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
        i--;
    return i;
}

static enum kprof_log_level log_level = KPROF_LOG_WARN;

void kprof_log_set_level(enum kprof_log_level level)
{
    log_level = level;
}

void kprof_log(enum kprof_log_level level, const char *fmt, ...)
{
    if (level > log_level)
        return;
    int saved_errno = errno;
    /* The message, whole: a long value is cut below, in the middle, so that its end (the reason, what
     * libkprof does instead) always shows. */
    char small[LINE_MAX_BYTES], *msg = small;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int m = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (m >= (int)sizeof small) {
        char *big = malloc((size_t)m + 1);
        if (big && vsnprintf(big, (size_t)m + 1, fmt, ap2) == m)
            msg = big;
        else {
            free(big);
            m = (int)sizeof small - 1;
        }
    }
    va_end(ap2);
    if (m < 0) {
        errno = saved_errno;
        return;
    }

    /* One write() per message, so lines from several threads never interleave. */
    static const char prefix[] = "libkprof: ", cut[] = "...";
    char buf[LINE_MAX_BYTES];
    char *o = buf;
    memcpy(o, prefix, sizeof prefix - 1);
    o += sizeof prefix - 1;
    size_t room = sizeof buf - (sizeof prefix - 1) - 1; /* less the newline */
    size_t n = (size_t)m;
    if (escaped_len(msg, n) <= room) {
        o = escape_into(o, msg, n);
    } else {
        /* Keep a head and a tail of the message, each escaped within half of the room. */
        size_t half = (room - (sizeof cut - 1)) / 2, head = 0, tail = 0, used = 0;
        char tmp[5];
        while (head < n && used + escape_byte((unsigned char)msg[head], tmp) <= half)
            used += escape_byte((unsigned char)msg[head++], tmp);
        head = char_start(msg, head);
        used = 0;
        while (tail < n - head && used + escape_byte((unsigned char)msg[n - 1 - tail], tmp) <= half)
            used += escape_byte((unsigned char)msg[n - 1 - tail++], tmp);
        size_t from = n - tail;
        while (from < n && ((unsigned char)msg[from] & 0xc0) == 0x80)
            from++; /* start the tail on a whole character */
        o = escape_into(o, msg, head);
        memcpy(o, cut, sizeof cut - 1);
        o += sizeof cut - 1;
        o = escape_into(o, msg + from, n - from);
    }
    *o++ = '\n';
    if (msg != small)
        free(msg);
    struct kprof_sigpipe sp;
    kprof_sigpipe_block(&sp);
    /* write() is a cancellation point, and libkprof logs while it holds state of its own (a pool being made
     * for a context, a call counted in flight): a thread of the app cancelled there left it held (a
     * break-it helper: every later launch of the context waited 10 s for the pool, and exit 1 s for the
     * call in flight). */
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    int fd = kprof_stderr_fd();
    ssize_t w = fd >= 0 ? write(fd, buf, (size_t)(o - buf)) : 0;
    (void)w;
    pthread_setcancelstate(cancel, NULL);
    kprof_sigpipe_restore(&sp);
    errno = saved_errno;
}

void kprof_sigpipe_block(struct kprof_sigpipe *sp)
{
    int saved_errno = errno;
    sigset_t pipe_only, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sp->blocked = pthread_sigmask(SIG_BLOCK, &pipe_only, &sp->mask) == 0;
    sp->was_pending = sp->blocked && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    errno = saved_errno;
}

void kprof_sigpipe_restore(struct kprof_sigpipe *sp)
{
    if (!sp->blocked)
        return;
    int saved_errno = errno;
    sigset_t pipe_only, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    if (!sp->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
        /* Raised by libkprof's own writes: consume it, so that it never reaches the program. */
        static const struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &sp->mask, NULL);
    errno = saved_errno;
}
