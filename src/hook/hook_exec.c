/* hook_exec.c: the exec family.  A successful exec replaces the process image, and no atexit handler or
 * destructor runs: a program that execs after its CUDA work lost its report without a word (a breaker
 * helper: 5 launches, then execl("/bin/echo", ...)).  The report is written first (kprof_finish_for_exec),
 * then the real function is called with the arguments unchanged, but for the environment, which tells the
 * next image its number (KPROF_EXEC_IMAGE), so that its report does not overwrite this one's.
 * posix_spawn, system and popen start a new process and are not hooked. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cuda_api.h"
#include "dlsym_next.h"
#include "finish.h"
#include "kprof_config.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

/* The next definitions after libkprof's (glibc's), looked up when libkprof is loaded: never in an exec's
 * path, which a vfork()ed child may take while another thread of its parent holds the loader's lock. */
static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;

__attribute__((constructor)) static void exec_resolve(void)
{
    real_execve = (execve_fn)kprof_real_dlsym(RTLD_NEXT, "execve");
    real_execv = (execv_fn)kprof_real_dlsym(RTLD_NEXT, "execv");
    real_execvp = (execv_fn)kprof_real_dlsym(RTLD_NEXT, "execvp");
    real_execvpe = (execve_fn)kprof_real_dlsym(RTLD_NEXT, "execvpe");
    real_fexecve = (fexecve_fn)kprof_real_dlsym(RTLD_NEXT, "fexecve");
}

/* 1 when path is a regular file this process may execute. */
static int runnable(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* 1 when execvp would find `file` (with no '/', on $PATH as it searches, else the path itself). */
static int findable(const char *file)
{
    if (!file || !*file)
        return 0;
    if (strchr(file, '/'))
        return runnable(file);
    const char *p = getenv("PATH");
    if (!p)
        p = "/bin:/usr/bin";
    for (;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char path[4096];
        if (snprintf(path, sizeof path, "%.*s/%s", (int)n, n ? p : ".", file) < (int)sizeof path && runnable(path))
            return 1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* The pid whose image wrote its report before an exec (kprof_finish_for_exec; a forked child's is not). */
static pid_t reported_pid;
/* Environments larger than this many entries are passed on untagged: the copy is on the stack (4 KiB at
 * most), and an exec may come from a thread with a small stack or a signal handler on an alternate one (a
 * breaker helper: 65536 entries crashed both). */
#define ENV_MAX 512
#define IMAGE_VAR "KPROF_EXEC_IMAGE="

/* After this process's image wrote its report: tag set to KPROF_EXEC_IMAGE=<pid>:<n + 1> (n this image's
 * number, kprof_config.exec_image), so that the next image, if it profiles too, names its files apart from
 * this one's (report.c; the pid and KPROF_OUTPUT are the same: a helper lost the first report to the
 * second's), and envp's entries returned; -1 to pass envp on unchanged (also where it preloads no
 * libkprof: an environment the program made for the next one keeps exactly what it gave).  No memory
 * allocated: an exec may come from a signal handler. */
static long image_tag(char *tag, size_t size, char *const envp[])
{
    if (!reported_pid || reported_pid != getpid() || !envp)
        return -1;
    long n = 0, preloads = 0;
    for (; envp[n]; n++) {
        if (n >= ENV_MAX)
            return -1;
        preloads += strncmp(envp[n], "LD_PRELOAD=", 11) == 0 && strstr(envp[n], "kprof");
    }
    if (!preloads) /* the next program will not load libkprof: its environment is left as given */
        return -1;
    snprintf(tag, size, IMAGE_VAR "%ld:%d", (long)reported_pid, kprof_config.exec_image + 1);
    return n;
}

/* out (room for n + 2): envp's first n entries at most (another thread may be adding to environ: a breaker
 * helper), less its KPROF_EXEC_IMAGE entries, then tag, then NULL. */
static void env_tagged(char **out, char *const envp[], long n, char *tag)
{
    size_t k = 0;
    for (long i = 0; i < n && envp[i]; i++)
        if (strncmp(envp[i], IMAGE_VAR, sizeof IMAGE_VAR - 1) != 0)
            out[k++] = envp[i];
    out[k++] = tag;
    out[k] = NULL;
}

/* A vector form: the report first, when this process used CUDA (asked first: a process that never did,
 * such as a shell under kprof, pays no look on disk) and the exec can be expected to replace it (`likely`:
 * a program that tries its candidates in turn, as Python's os.execvp does through execv, must not end its
 * profile at the first that is not there: a second tester), then the real function, given envp (`envp`:
 * the call's, or environ) tagged with the next image's number once a report was written (env_call, else
 * plain_call; execv and execvp then call execve and execvpe, which a library preloaded after libkprof that
 * hooks only the former no longer sees); `what` names what it runs, for the warning if it returns. */
#define VECTOR_EXEC(name, params, what, likely, envp, plain_call, env_call)                       \
    KPROF_EXPORT int name params                                                                   \
    {                                                                                              \
        int due = kprof_exec_would_report();                                                      \
        int wrote = due == 1 && (likely) && kprof_finish_for_exec(what);                          \
        if (due == 2 && (likely))                                                                  \
            kprof_exec_lost(what);                                                                 \
        if (wrote)                                                                                 \
            reported_pid = getpid();                                                               \
        char tag[64];                                                                              \
        char *const *env1 = (envp); /* read once: environ may change under another thread */     \
        long n = image_tag(tag, sizeof tag, env1);                                                 \
        int r;                                                                                     \
        if (n >= 0) {                                                                              \
            char *env2[n + 2];                                                                     \
            env_tagged(env2, env1, n, tag);                                                        \
            r = env_call;                                                                          \
        } else {                                                                                   \
            r = plain_call;                                                                        \
        }                                                                                          \
        if (wrote)                                                                                 \
            kprof_exec_failed(what);                                                               \
        return r;                                                                                  \
    }

/* The real functions, looked up now if an exec comes before libkprof's constructors ran; -1 with errno
 * ENOSYS when there is none. */
#define RESOLVER(fn)                                                                               \
    static int have_##fn(void)                                                                     \
    {                                                                                              \
        if (!real_##fn)                                                                            \
            real_##fn = (__typeof__(real_##fn))kprof_real_dlsym(RTLD_NEXT, #fn);                   \
        return real_##fn != NULL;                                                                  \
    }
RESOLVER(execve)
RESOLVER(execv)
RESOLVER(execvp)
RESOLVER(execvpe)
RESOLVER(fexecve)
#define CALL(fn, args) (have_##fn() ? real_##fn args : (errno = ENOSYS, -1))

VECTOR_EXEC(execve, (const char *path, char *const argv[], char *const envp[]), path, runnable(path), envp,
            CALL(execve, (path, argv, envp)), CALL(execve, (path, argv, env2)))
VECTOR_EXEC(execv, (const char *path, char *const argv[]), path, runnable(path), environ,
            CALL(execv, (path, argv)), CALL(execve, (path, argv, env2)))
VECTOR_EXEC(execvp, (const char *file, char *const argv[]), file, findable(file), environ,
            CALL(execvp, (file, argv)), CALL(execvpe, (file, argv, env2)))
VECTOR_EXEC(execvpe, (const char *file, char *const argv[], char *const envp[]), file, findable(file), envp,
            CALL(execvpe, (file, argv, envp)), CALL(execvpe, (file, argv, env2)))
VECTOR_EXEC(fexecve, (int fd, char *const argv[], char *const envp[]), "(a file descriptor)", 1, envp,
            CALL(fexecve, (fd, argv, envp)), CALL(fexecve, (fd, argv, env2)))

/* The list forms: their arguments up to the NULL that ends them (and execle's environment after it) as an
 * array for the vector form, through libkprof's own (which writes the report).  On the stack: exec needs
 * no memory that outlives it. */
static int list_exec(int search, const char *path, const char *arg0, va_list ap, int with_env)
{
    size_t n = 1; /* argv's entries before its NULL: none when arg0 is that NULL */
    if (!arg0) {
        n = 0;
    } else {
        va_list cp;
        va_copy(cp, ap);
        while (va_arg(cp, char *) != NULL)
            n++;
        va_end(cp);
    }
    char *argv[n + 1];
    for (size_t i = 0; i < n; i++)
        argv[i] = i ? va_arg(ap, char *) : (char *)arg0;
    argv[n] = NULL;
    if (arg0)
        (void)va_arg(ap, char *); /* the NULL that ends the list */
    if (with_env) {
        char *const *envp = va_arg(ap, char *const *);
        return execve(path, argv, envp);
    }
    return search ? execvp(path, argv) : execv(path, argv);
}

/* A list form (search: execvp's PATH search; env: execle's environment after the list). */
#define LIST_EXEC(name, search, env)                                                               \
    KPROF_EXPORT int name(const char *path, const char *arg, ...)                                  \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, arg);                                                                         \
        int r = list_exec((search), path, arg, ap, (env));                                         \
        va_end(ap);                                                                                \
        return r;                                                                                  \
    }

LIST_EXEC(execl, 0, 0)
LIST_EXEC(execlp, 1, 0)
LIST_EXEC(execle, 0, 1)
