/* report.c: where the report, its JSON copy and the trace go (KPROF_OUTPUT, KPROF_SAVE and KPROF_TRACE
 * patterns, stderr as the report's fallback) and in which format; output.c opens their files. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"
#include "kprof_config.h"
#include "finish.h"
#include "snapshot.h"
#include "report.h"
#include "report_writers.h"
#include "output.h"


/* 1 when the pattern has a %p conversion ("%%p" is a percent sign and a p). */
static int has_pid(const char *pattern)
{
    for (const char *p = pattern; *p; p++) {
        if (*p != '%' || !p[1])
            continue;
        if (p[1] == 'p')
            return 1;
        p++;
    }
    return 0;
}

/* path with ".<tag>" added, malloc'd (NULL when out of memory): before its extension when that is one a
 * report or trace file has (.json, .txt, .csv, .html, .log: out.json -> out.<tag>.json, so that a glob
 * such as out*.json still finds it), else at its end (a CSV base: kprof -> kprof.<tag>). */
static char *with_tag(const char *path, const char *tag)
{
    static const char *const exts[] = { ".json", ".txt", ".csv", ".html", ".log" };
    const char *base = strrchr(path, '/'), *dot = strrchr(path, '.');
    base = base ? base + 1 : path;
    size_t at = strlen(path);
    if (dot && dot > base)
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
            if (strcasecmp(dot, exts[i]) == 0)
                at = (size_t)(dot - path);
    size_t n = strlen(path) + strlen(tag) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%.*s.%s%s", (int)at, path, tag, path + at);
    return p;
}

/* path with ".<pid>" added (with_tag). */
static char *with_pid(const char *path)
{
    char tag[24];
    snprintf(tag, sizeof tag, "%ld", (long)getpid());
    return with_tag(path, tag);
}

static int names_a_device(const char *path);

/* The path a pattern names: in a forked child, with ".<pid>" added (with_pid) when the pattern has no %p of
 * its own; in the n-th program of a process (n > 1: after execs that followed a report, KPROF_EXEC_IMAGE),
 * with ".<pid>.<n>" added, or ".<n>" where %p gave the pid already (out.json, out.<pid>.2.json, ...;
 * out.<pid>.json, out.<pid>.2.json, ...), unless it names a stream, device or FIFO. */
static char *expand(const char *pattern)
{
    char *path = kprof_expand_path(pattern);
    if (!path)
        return NULL;
    int pid_in = has_pid(pattern);
    char tag[48];
    if (kprof_forked_child && !pid_in)
        snprintf(tag, sizeof tag, "%ld", (long)getpid());
    else if (kprof_forked_child || kprof_config.exec_image <= 1 || names_a_device(path))
        return path; /* a stream, device or FIFO is written as named by every program (a breaker helper:
                      * /dev/stdout.<pid>.2 made as a file) */
    else if (pid_in)
        snprintf(tag, sizeof tag, "%d", kprof_config.exec_image);
    else
        snprintf(tag, sizeof tag, "%ld.%d", (long)getpid(), kprof_config.exec_image);
    char *p = with_tag(path, tag);
    free(path);
    return p;
}


/* The descriptor, 1 or 2, of the process's own stdout or stderr that `path` names (/dev/stdout,
 * /dev/fd/2, or the very file one of them is open on); -1 for none. */
static int std_descriptor(const char *path)
{
    static const char *const names[2][3] = {
        { "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1" },
        { "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2" },
    };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            if (strcmp(path, names[i][j]) == 0)
                return i + 1;
    struct stat p, d;
    if (stat(path, &p) != 0)
        return -1;
    for (int fd = 1; fd <= 2; fd++)
        if (fstat(fd, &d) == 0 && d.st_dev == p.st_dev && d.st_ino == p.st_ino)
            return fd;
    return -1;
}

/* 1 when path names the process's stdout or stderr, or an existing file that is neither a regular file nor
 * a directory (a device, a pipe): a CSV base of files named after it names none (write_csv). */
static int names_a_device(const char *path)
{
    struct stat st;
    return std_descriptor(path) > 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* Why the file `path` could not be created or written now (a strerror text), or NULL when it could: the
 * file itself when it exists, else its directory. */
static const char *unwritable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return strerror(EISDIR); /* writable, but no file (KPROF_OUTPUT=.: a new-user helper heard only at exit) */
    /* Another user's link or file in a folder others can write: refused at exit whatever access() says (a
     * new-user helper's link in /tmp was heard of only then). */
    const char *refused = kprof_output_entry_refused(path);
    if (refused)
        return refused;
    if (access(path, W_OK) == 0)
        return NULL;
    if (errno != ENOENT)
        return strerror(errno);
    char *dir = kprof_path_folder(path);
    if (!dir)
        return NULL;
    int ok = access(dir, W_OK | X_OK) == 0;
    int err = errno;
    free(dir);
    /* procfs and sysfs make no new file whatever the permissions, root's included, which access() lets
     * through (a new-user helper running as root heard it only at exit); in the words the exit uses. */
    const char *pseudo = ok ? kprof_output_no_new_files(path) : NULL;
    return pseudo ? pseudo : ok ? NULL : strerror(err);
}

/* A CSV base (expanded, owned; NULL: out of memory) that names a folder (ends in '/', or is one) or
 * nothing (a pattern that expanded to ''): the files would be dot-files there, .summary.csv..., made
 * without a word (a breaker helper, KPROF_OUTPUT=outdir/); instead the default's names in that folder,
 * <folder>/kprof.<pid>, and *moved 1.  Else base itself, *moved 0 (moved may be NULL). */
static char *csv_base(char *base, int *moved)
{
    struct stat st;
    size_t n = base ? strlen(base) : 0;
    if (moved)
        *moved = 0;
    if (!base || (n && base[n - 1] != '/' && !(stat(base, &st) == 0 && S_ISDIR(st.st_mode))))
        return base;
    while (n > 1 && base[n - 1] == '/')
        base[--n] = '\0';
    char *in = malloc(n + 32);
    if (in)
        snprintf(in, n + 32, "%s%skprof.%ld", n ? base : "", n && base[n - 1] != '/' ? "/" : "", (long)getpid());
    free(base);
    if (moved)
        *moved = 1;
    return in;
}

/* kprof_report_check_paths for one pattern (NULL: not asked for); csv: a base name, its files beside it. */
static void check_path(const char *var, const char *pattern, int csv)
{
    if (!pattern)
        return;
    /* What exit will do: only the report falls back to stderr. */
    const char *then = strcmp(var, "KPROF_OUTPUT") == 0 ? "; a report at exit tries it again, else goes to stderr"
                                                         : "; a report at exit tries it again";
    char *path = expand(pattern);
    if (!path || std_descriptor(path) > 0 || (csv && names_a_device(path))) {
        free(path); /* stdout, stderr, or a device as a CSV base (write_csv writes the text report to it) */
        return;
    }
    if (!*path) { /* an unset %q{VAR}, say: the report would go to stderr at exit */
        kprof_warn("%s='%s' expands to an empty path now (an unset variable in %%q{VAR}?)%s", var, pattern, then);
        free(path);
        return;
    }
    if (csv && !(path = csv_base(path, NULL)))
        return;
    char *probe = path;
    if (csv && (probe = malloc(strlen(path) + 16)) != NULL)
        sprintf(probe, "%s.summary.csv", path);
    const char *why = probe ? unwritable(probe) : NULL;
    /* The expanded path only where it differs from the pattern (a new user's helper read the path twice). */
    if (why && strcmp(probe, pattern) == 0)
        kprof_warn("%s='%s' cannot be written now (%s)%s", var, pattern, why, then);
    else if (why)
        kprof_warn("%s='%s': '%s' cannot be written now (%s)%s", var, pattern, probe, why, then);
    if (probe != path)
        free(probe);
    free(path);
}

void kprof_report_check_paths(void)
{
    int csv = kprof_config.format == KPROF_FORMAT_CSV;
    check_path("KPROF_OUTPUT", kprof_config.output ? kprof_config.output : csv ? "kprof.%p" : NULL, csv);
    check_path("KPROF_SAVE", kprof_config.save, 0);
    check_path("KPROF_TRACE", kprof_config.trace, 0);
}

/* An open destination: `f` is stderr itself (borrowed), or a stream of libkprof's own. */
struct dest {
    FILE *f;
    char *path; /* expanded, owned; NULL for stderr as the fallback */
};

/* Opens `path` (expanded, owned by d from now on; NULL: out of memory) for the `what` (report, trace); 0
 * (after one warning, which adds `fallback`) when it cannot be. */
static int dest_open_path(struct dest *d, char *path, const char *pattern, const char *what, const char *fallback)
{
    d->f = NULL;
    d->path = path;
    if (!d->path) {
        kprof_warn("cannot write the %s to '%s' (out of memory)%s", what, pattern, fallback);
        return 0;
    }
    const char *why = NULL;
    int fd = std_descriptor(d->path);
    if (fd == 2) {
        /* the program's own stream: its buffered output stays first (or, once the program gave descriptor 2
         * to a file of its own, libkprof's copy of the first stderr: log.h); none left, never the file
         * descriptor 2 now names (a second tester: a pipe's copy is not kept, and the report truncated the
         * program's log, freopen()ed on stderr, or went to /dev/null) */
        if (!(d->f = kprof_stderr_stream()))
            why = "the program's stderr is no longer the one it started with";
    } else if (fd == 1) {
        /* After whatever the program's stdout holds (unless another thread holds it: a signal's report);
         * through a descriptor of libkprof's own, which shares the offset and never truncates. */
        if (ftrylockfile(stdout) == 0) {
            fflush_unlocked(stdout);
            funlockfile(stdout);
        }
        int dup_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
        if (dup_fd < 0 || !(d->f = fdopen(dup_fd, "w"))) {
            why = strerror(errno);
            if (dup_fd >= 0)
                close(dup_fd);
        }
    } else if (!*d->path) {
        why = "the pattern expands to an empty path";
    } else {
        int sibling = 0;
        d->f = kprof_output_open(d->path, 0, &why, &sibling);
        if (!d->f && sibling) {
            char *other = with_pid(d->path);
            if (other) {
                kprof_warn("'%s' was written by another process since this kprof invocation started; writing "
                           "the %s to '%s' instead", d->path, what, other);
                free(d->path);
                d->path = other;
                d->f = kprof_output_open(d->path, 0, &why, &sibling);
            }
        }
    }
    if (!d->f) {
        kprof_warn("cannot write the %s to '%s' (%s)%s", what, d->path, why ? why : "out of memory", fallback);
        free(d->path);
        d->path = NULL;
        return 0;
    }
    return 1;
}

/* Closes the destination (stderr is only flushed); 0 (after a warning, which adds `fallback`) if
 * anything written to it was lost. */
static int dest_close(struct dest *d, const char *what, const char *fallback)
{
    int ok;
    if (d->f == stderr || d->f == kprof_stderr_stream())
        ok = fflush(d->f) == 0 && !ferror(d->f);
    else {
        int bad = ferror(d->f);
        ok = (fclose(d->f) == 0) & !bad;
    }
    if (!ok)
        kprof_warn("error while writing the %s to '%s' (%s)%s", what, d->path, strerror(errno ? errno : EIO),
                   fallback);
    free(d->path);
    d->path = NULL;
    d->f = NULL;
    return ok;
}

/* No stderr left to write the report to (the program closed descriptor 2, or gave it away, daemon(3), and
 * the first stderr was a pipe: log.h): the report goes to a file of its own, created anew (mode 0600),
 * kprof.<pid>.txt (.json) in the working directory (not /), else in $TMPDIR or /tmp, rather than being lost
 * (libkprof(7), "Output files").  Returns its path (owned by the caller), NULL when none could be made. */
static char *write_lost(void (*writer)(FILE *, const struct kprof_snapshot *), const struct kprof_snapshot *s)
{
    const char *ext = writer == kprof_report_json ? "json" : "txt", *tmp = getenv("TMPDIR");
    const char *dirs[] = { ".", tmp && *tmp ? tmp : "/tmp", "/tmp" };
    struct stat cwd, root;
    /* Not in / (a daemon(3) moves there: a second tester found /kprof.<pid>.txt). */
    int skip_cwd = stat(".", &cwd) == 0 && stat("/", &root) == 0 && cwd.st_dev == root.st_dev &&
                   cwd.st_ino == root.st_ino;
    for (size_t i = skip_cwd; i < sizeof dirs / sizeof dirs[0]; i++) {
        char path[4096];
        int sibling = 0;
        const char *why = NULL;
        snprintf(path, sizeof path, "%s/kprof.%ld.%s", dirs[i], (long)getpid(), ext);
        FILE *f = kprof_output_open(path, 1, &why, &sibling);
        if (!f)
            continue;
        writer(f, s);
        int bad = ferror(f);
        if ((fclose(f) == 0) & !bad)
            return strdup(path);
        unlink(path);
    }
    return NULL;
}

/* Writes the report with `writer` to `path` (expanded, owned: the file `pattern` names), or to stderr when
 * pattern is NULL; a file that cannot be opened or written gets one warning and the report goes to stderr:
 * the report is never lost.  Returns the path it went to (owned by the caller), NULL for stderr. */
static char *write_report(char *path, const char *pattern, void (*writer)(FILE *, const struct kprof_snapshot *),
                          const struct kprof_snapshot *s)
{
    static const char to_stderr[] = "; writing it to stderr";
    /* stderr: the first one (a program that gave descriptor 2 to a file of its own keeps its data: log.h);
     * NULL when there is none left to write to. */
    FILE *err = kprof_stderr_stream();
    struct dest d = { err, NULL };
    if (pattern && !dest_open_path(&d, path, pattern, "report", to_stderr))
        d.f = err;
    while (d.f) {
        errno = 0;
        writer(d.f, s);
        int borrowed = d.f == err || d.f == stderr;
        char *written = d.path ? strdup(d.path) : NULL;
        if (!d.path) { /* stderr: a report it did not take (a descriptor 2 reopened read-only, say) goes on */
            if (fflush(d.f) == 0 && !ferror(d.f))
                return NULL;
            int e = errno;
            if (d.f != stderr)
                clearerr(d.f);
            if (e == EPIPE)
                return NULL; /* its reader has gone (app 2>&1 | head): no more was asked for */
            break;
        }
        if (dest_close(&d, "report", to_stderr) || borrowed)
            return written;
        free(written);
        d.f = err; /* the file could not take it */
    }
    return write_lost(writer, s);
}

/* The CSV report: `kprof.<pid>` when libkprof chose the name (its files created anew, mode 0600). */
static void write_csv(const struct kprof_snapshot *s)
{
    int chosen = !kprof_config.output, moved = 0;
    char *base = csv_base(expand(chosen ? "kprof.%p" : kprof_config.output), &moved);
    if (moved && base)
        kprof_warn("KPROF_FORMAT=csv names its files after KPROF_OUTPUT='%s', which names a folder or nothing; "
                   "writing them as '%s.*.csv'", kprof_config.output, base);
    char *failed = NULL;
    const char *why = "out of memory";
    /* The files are named after the base: a device (/dev/stdout, /dev/null) names none; files beside it
     * (/dev/stdout.kernels.csv...) were created where nobody looks (a breaker helper).  /dev/null asks for
     * nothing; another device gets the text report, as a base that cannot be written does. */
    if (base && !chosen && names_a_device(base)) {
        if (strcmp(base, "/dev/null") != 0) {
            kprof_warn("KPROF_FORMAT=csv names its files after KPROF_OUTPUT, and '%s' is no file; writing the "
                       "report as text to it", base);
            /* (/dev/full, a FIFO without a reader: to stderr, as the other formats; it was lost: a breaker
             * helper) */
            free(write_report(strdup(base), base, kprof_report_text, s));
        }
        free(base);
        return;
    }
    if (base && kprof_config.invocation_ns && !chosen) {
        /* Another process of this invocation wrote this base's files: this one's get ".<pid>". */
        size_t n = strlen(base) + 16;
        char *summary = malloc(n);
        struct stat st;
        if (summary) {
            snprintf(summary, n, "%s.summary.csv", base);
            if (lstat(summary, &st) == 0 && S_ISREG(st.st_mode) && kprof_file_mtime_ns(&st) >= kprof_config.invocation_ns) {
                char *other = with_pid(base);
                if (other) {
                    kprof_warn("'%s.*.csv' was written by another process since this kprof invocation started; "
                               "writing the report to '%s.*.csv' instead", base, other);
                    free(base);
                    base = other;
                }
            }
            free(summary);
        }
    }
    if (base && kprof_report_csv(base, chosen, s, &failed, &why)) {
        /* Files named by libkprof in the current directory: said where (a user who asked for a name knows). */
        if (chosen)
            kprof_log(KPROF_LOG_WARN, "CSV report written to %s.*.csv (set KPROF_OUTPUT, or kprof -o, to name it)", base);
        else
            kprof_info("report written to %s.*.csv", base);
    } else {
        kprof_warn("cannot write the CSV report to '%s' (%s); writing it as text to stderr",
                   failed ? failed : base ? base : "kprof.%p", why);
        FILE *err = kprof_stderr_stream();
        if (err)
            kprof_report_text(err, s);
        else
            free(write_lost(kprof_report_text, s));
    }
    free(failed);
    free(base);
}

/* 1 when the regular files a and b (expanded paths; NULL: none) are one: the same name, or the same file
 * once written.  Never for stdout, stderr or a device, which take one write after another. */
static int same_file(const char *a, const char *b)
{
    if (!a || !b || std_descriptor(a) > 0 || names_a_device(a) || std_descriptor(b) > 0 || names_a_device(b))
        return 0;
    struct stat x, y;
    return strcmp(a, b) == 0 ||
           (stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino);
}

/* The files written so far at exit (expanded paths, owned), and the variables that named them, so that a
 * later one naming the same file does not overwrite it. */
struct written {
    char *path[2];
    const char *var[2];
    int json[2]; /* the JSON report: a JSON copy naming its file is that report */
    int n;
};

/* Writes s with `writer` to the file `pattern` names (none when NULL), a file besides the report: `what`
 * names it in a warning when it cannot be written.  A file already written (w) is not overwritten: the
 * JSON copy naming the JSON report's file is the report itself, and is left at that; else the second one
 * gets ".<pid>" added (with_pid), with a warning. */
static void write_extra(const char *var, const char *pattern, const char *what,
                        void (*writer)(FILE *, const struct kprof_snapshot *), const struct kprof_snapshot *s,
                        struct written *w)
{
    if (!pattern)
        return;
    char *path = expand(pattern);
    for (int i = 0; path && i < w->n; i++) {
        if (!same_file(path, w->path[i]))
            continue;
        if (writer == kprof_report_json && w->json[i]) {
            free(path);
            return;
        }
        char *other = with_pid(path);
        kprof_warn("%s='%s' names the file %s wrote ('%s'); writing the %s to '%s' instead", var, pattern,
                   w->var[i], path, what, other ? other : "(out of memory)");
        free(path);
        path = other;
        break;
    }
    struct dest d;
    if (dest_open_path(&d, path, pattern, what, "")) {
        char *kept = w->n < 2 ? strdup(d.path) : NULL;
        errno = 0;
        writer(d.f, s);
        dest_close(&d, what, "");
        if (kept) {
            w->path[w->n] = kept;
            w->var[w->n] = var;
            w->json[w->n++] = 0;
        }
    }
}

void kprof_report_write(const struct kprof_snapshot *s)
{
    /* A reader gone from a pipe (`app 2>&1 | head`) must not kill the program with SIGPIPE. */
    struct kprof_sigpipe sp;
    kprof_sigpipe_block(&sp);
    /* Numbers in C's notation whatever locale the program took: under one with a decimal comma (a program
     * that called setlocale(LC_ALL, "") with LANG=de_DE.UTF-8) the JSON report, the CSV tables and the trace
     * held "0,5" and no reader could parse them (a breaker helper).  This thread's locale only. */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t app_locale = c_locale ? uselocale(c_locale) : (locale_t)0;
    struct written w = { { NULL, NULL }, { NULL, NULL }, { 0, 0 }, 0 };
    if (kprof_config.format == KPROF_FORMAT_CSV) {
        write_csv(s);
    } else {
        int json = kprof_config.format == KPROF_FORMAT_JSON;
        const char *out = kprof_config.output;
        char *path = write_report(out ? expand(out) : NULL, out, json ? kprof_report_json : kprof_report_text, s);
        if (path) { /* another file naming it would overwrite it */
            w.path[0] = path;
            w.var[0] = "KPROF_OUTPUT";
            w.json[0] = json;
            w.n = 1;
        }
    }
    FILE *err = kprof_stderr_stream();
    if (err)
        fflush(err);

    /* The JSON copy (KPROF_SAVE), for kprof report: the same snapshot as the report above. */
    write_extra("KPROF_SAVE", kprof_config.save, "JSON copy of the report", kprof_report_json, s, &w);
    write_extra("KPROF_TRACE", kprof_config.trace, "trace", kprof_report_trace, s, &w);
    for (int i = 0; i < w.n; i++)
        free(w.path[i]);
    if (c_locale) {
        uselocale(app_locale);
        freelocale(c_locale);
    }
    kprof_sigpipe_restore(&sp);
}
