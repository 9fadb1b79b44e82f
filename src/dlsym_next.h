/* dlsym_next.h: glibc's dlsym and the next one in the chain of definitions after libkprof's, for the
 * trampoline (dlsym_trampoline.S) and for libkprof's own lookups (dlsym_next.c). */
#ifndef KPROF_DLSYM_NEXT_H
#define KPROF_DLSYM_NEXT_H

typedef void *(*kprof_dlsym_fn)(void *, const char *);

/* The next dlsym in the chain of definitions after libkprof's (glibc's, or another preloaded library's);
 * NULL until kprof_dlsym_find_next() has run.  Hidden: the trampoline (dlsym_trampoline.S) jumps through
 * it PC-relative. */
extern __attribute__((visibility("hidden"))) kprof_dlsym_fn kprof_dlsym_next;

/* Finds it (and glibc's own dlsym for kprof_real_dlsym); idempotent, thread-safe, not instrumented by
 * the sanitizers (they look their interceptors up with dlsym before they are set up). */
void kprof_dlsym_find_next(void);

/* glibc's own dlsym, for libkprof's internal lookups (its exported dlsym is the hook).  RTLD_NEXT passed
 * here resolves relative to libkprof. */
void *kprof_real_dlsym(void *handle, const char *name);

/* The next dlsym after libkprof's in the chain of preloaded definitions (glibc's, or another interposer's
 * that then sees the lookup), for the functions behind libkprof's driver wrappers: what the rest of the
 * chain would have handed the program.  Thread-safe; sets dlerror like dlsym. */
void *kprof_next_dlsym(void *handle, const char *name);

#endif
