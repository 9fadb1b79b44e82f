/* hook_exec.c: the exec family.  A successful exec replaces the process image, and no atexit handler or
 * destructor runs: a program that execs after its CUDA work lost its report without a word (a breaker
 * helper: 5 launches, then execl("/bin/echo", ...)).  The report is written first (kprof_finish_for_exec),
 * then the real function is called with the arguments unchanged.  posix_spawn, system and popen start a
 * new process and are not hooked. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
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

KPROF_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    execve_fn real;
    REAL_OR_ENOSYS(real, execve);
    int wrote = kprof_finish_for_exec(path);
    int r = real(path, argv, envp);
    if (wrote)
        kprof_exec_failed(path);
    return r;
}

KPROF_EXPORT int execv(const char *path, char *const argv[])
{
    execv_fn real;
    REAL_OR_ENOSYS(real, execv);
    int wrote = kprof_finish_for_exec(path);
    int r = real(path, argv);
    if (wrote)
        kprof_exec_failed(path);
    return r;
}

KPROF_EXPORT int execvp(const char *file, char *const argv[])
{
    execv_fn real;
    REAL_OR_ENOSYS(real, execvp);
    int wrote = kprof_finish_for_exec(file);
    int r = real(file, argv);
    if (wrote)
        kprof_exec_failed(file);
    return r;
}

KPROF_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    execve_fn real;
    REAL_OR_ENOSYS(real, execvpe);
    int wrote = kprof_finish_for_exec(file);
    int r = real(file, argv, envp);
    if (wrote)
        kprof_exec_failed(file);
    return r;
}

KPROF_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    fexecve_fn real;
    REAL_OR_ENOSYS(real, fexecve);
    int wrote = kprof_finish_for_exec("(a file descriptor)");
    int r = real(fd, argv, envp);
    if (wrote)
        kprof_exec_failed("(a file descriptor)");
    return r;
}

/* The list forms: their arguments up to the NULL that ends them (and execle's environment after it) as an
 * array for the vector form, through libkprof's own (which writes the report).  On the stack: exec needs
 * no memory that outlives it. */
static int list_exec(int search, const char *path, const char *arg0, va_list ap, int with_env)
{
    size_t n = 1;
    va_list cp;
    va_copy(cp, ap);
    while (va_arg(cp, char *) != NULL)
        n++;
    va_end(cp);
    char *argv[n + 1];
    argv[0] = (char *)arg0;
    for (size_t i = 1; i <= n; i++)
        argv[i] = va_arg(ap, char *); /* the last one read is the NULL */
    if (with_env) {
        char *const *envp = va_arg(ap, char *const *);
        return execve(path, argv, envp);
    }
    return search ? execvp(path, argv) : execv(path, argv);
}

KPROF_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int r = list_exec(0, path, arg, ap, 0);
    va_end(ap);
    return r;
}

KPROF_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int r = list_exec(1, file, arg, ap, 0);
    va_end(ap);
    return r;
}

KPROF_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int r = list_exec(0, path, arg, ap, 1);
    va_end(ap);
    return r;
}
