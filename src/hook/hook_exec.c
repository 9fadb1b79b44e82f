/* hook_exec.c: the exec family.  A successful exec replaces the process image, and no atexit handler or
 * destructor runs: a program that execs after its CUDA work lost its report without a word (a breaker
 * helper: 5 launches, then execl("/bin/echo", ...)).  The report is written first (kprof_finish_for_exec),
 * then the real function is called with the arguments unchanged.  posix_spawn, system and popen start a
 * new process and are not hooked. */
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

/* r = real_X, looked up now if an exec comes before libkprof's constructors ran; -1 with errno ENOSYS
 * when there is none. */
#define REAL_OR_ENOSYS(r, fn)                                                                      \
    do {                                                                                           \
        if (!(r = real_##fn))                                                                      \
            r = (__typeof__(r))kprof_real_dlsym(RTLD_NEXT, #fn);                                   \
        if (!r) {                                                                                  \
            errno = ENOSYS;                                                                        \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

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

/* A vector form: the report first, when this process used CUDA (asked first: a process that never did,
 * such as a shell under kprof, pays no look on disk) and the exec can be expected to replace it (`likely`:
 * a program that tries its candidates in turn, as Python's os.execvp does through execv, must not end its
 * profile at the first that is not there: a second tester), then the real function; `what` names what it
 * runs, for the warning if it returns. */
#define VECTOR_EXEC(name, fn_type, what, likely, params, args)                                     \
    KPROF_EXPORT int name params                                                                   \
    {                                                                                              \
        fn_type real;                                                                              \
        REAL_OR_ENOSYS(real, name);                                                                \
        int wrote = kprof_exec_would_report() && (likely) && kprof_finish_for_exec(what);         \
        int r = real args;                                                                         \
        if (wrote)                                                                                 \
            kprof_exec_failed(what);                                                               \
        return r;                                                                                  \
    }

VECTOR_EXEC(execve, execve_fn, path, runnable(path), (const char *path, char *const argv[], char *const envp[]), (path, argv, envp))
VECTOR_EXEC(execv, execv_fn, path, runnable(path), (const char *path, char *const argv[]), (path, argv))
VECTOR_EXEC(execvp, execv_fn, file, findable(file), (const char *file, char *const argv[]), (file, argv))
VECTOR_EXEC(execvpe, execve_fn, file, findable(file), (const char *file, char *const argv[], char *const envp[]), (file, argv, envp))
VECTOR_EXEC(fexecve, fexecve_fn, "(a file descriptor)", 1, (int fd, char *const argv[], char *const envp[]),
            (fd, argv, envp))

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
