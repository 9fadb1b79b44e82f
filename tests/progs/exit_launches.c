/* exit_launches.c MODE [THREADS]: launches at thread exit and around fork, for libkprof's per-thread caches
 * (tls_sets.h).
 *   rearm [THREADS [ROUNDS]]
 *           THREADS threads (default 10000) one after another, each launching once and then from a
 *           thread-specific key's destructor, which sets its key again so that it runs in ROUNDS of glibc's
 *           destructor rounds (default 16: every one of them, 4; the key made after libkprof's: its
 *           destructor runs after libkprof's in each round); prints the process's peak resident memory
 *           (getrusage), "hwm_kib=N", to stderr
 *   fork    4 threads launch and stay alive while the main thread forks; the child exits at once (0); the
 *           parent prints "child_exit=N" to stderr */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fakeprog.h"

static void stub_k(void) {}
static pthread_key_t key;
static long rounds = 16;
static volatile int release;

static void launch_once(void)
{
    CHECK(launch(stub_k, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0));
}

static void rearm(void *v)
{
    launch_once();
    long left = (long)v - 1;
    if (left > 0)
        pthread_setspecific(key, (void *)left);
}

static void *rearm_worker(void *arg)
{
    launch_once();
    pthread_setspecific(key, (void *)rounds);
    return arg;
}

static void *fork_worker(void *arg)
{
    launch_once();
    while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
        usleep(1000);
    return arg;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "rearm";
    void **m = register_module();
    register_kernel(m, stub_k, "_Z6exit_kv");
    __cudaRegisterFatBinaryEnd(m);
    launch_once(); /* libkprof's caches (and their key) first */
    CHECK(cudaStreamSynchronize(0));
    if (!strcmp(mode, "rearm")) {
        int threads = argc > 2 ? atoi(argv[2]) : 10000;
        rounds = argc > 3 ? atol(argv[3]) : 16;
        if (pthread_key_create(&key, rearm) != 0)
            return 1;
        for (int i = 0; i < threads; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, rearm_worker, NULL) != 0 || pthread_join(t, NULL) != 0)
                return 1;
        }
        CHECK(cudaDeviceSynchronize());
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "hwm_kib=%ld\n", ru.ru_maxrss); /* Linux: KiB */
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            if (pthread_create(&t[i], NULL, fork_worker, NULL) != 0)
                return 1;
        usleep(100000);
        pid_t p = fork();
        if (p == 0)
            exit(0); /* atexit handlers run: a sanitizer build's leak check among them */
        int st = 0;
        waitpid(p, &st, 0);
        __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
        fprintf(stderr, "child_exit=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        return 0;
    }
    return 2;
}
