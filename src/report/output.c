/* output.c: opening a report file safely (libkprof(7), NOTES: "Output files"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "log.h"
#include "kprof_config.h"
#include "output.h"

static const char refused_owner[] = "owned by another user in a folder others can write";
static const char refused_hardlink[] = "a file with another hard link, in a folder others can write";
static const char refused_fifo[] = "a FIFO with no reader";
static const char refused_sibling[] = "written by another process since this kprof invocation started";

static const char refused_pseudo_fs[] = "a /proc or /sys file system, where no file can be made";

char *kprof_path_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

const char *kprof_output_no_new_files(const char *path)
{
    char *dir = kprof_path_folder(path);
    struct statfs fs;
    int pseudo = dir && statfs(dir, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC);
    free(dir);
    return pseudo ? refused_pseudo_fs : NULL;
}

/* NULL when the entry lstat() found at `path` may be written (through), else why not: the kernel's
 * protected_symlinks and protected_regular rule, for every folder others can write (sticky or not): an
 * entry there must be the user's own or the folder owner's; and a regular file there must have no other
 * hard link (one planted to another file of the user's, where protected_hardlinks is off). */
static const char *entry_refused(const char *path, const struct stat *st)
{
    char *dir = kprof_path_folder(path);
    struct stat d;
    int known = dir && stat(dir, &d) == 0;
    free(dir);
    if (!known)
        return st->st_uid == geteuid() ? NULL : refused_owner;
    if (!(d.st_mode & (S_IWGRP | S_IWOTH)))
        return NULL;
    if (st->st_uid != geteuid() && st->st_uid != d.st_uid)
        return refused_owner;
    if (S_ISREG(st->st_mode) && st->st_nlink > 1)
        return refused_hardlink;
    return NULL;
}

const char *kprof_output_entry_refused(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? entry_refused(path, &st) : NULL;
}

int64_t kprof_file_mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

FILE *kprof_output_open(const char *path, int chosen, const char **why, int *sibling)
{
    *sibling = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        struct stat st, now;
        int fd, created = 0;
        if (lstat(path, &st) != 0) {
            if (errno != ENOENT) {
                *why = strerror(errno);
                return NULL;
            }
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, chosen ? 0600 : 0666);
            if (fd < 0 && errno == EEXIST && !chosen)
                continue; /* planted since: look at it again */
            if (fd < 0) {
                int e = errno;
                *why = (e == EACCES || e == ENOENT) && kprof_output_no_new_files(path) ? refused_pseudo_fs
                                                                                       : strerror(e);
                return NULL;
            }
            created = 1;
        } else {
            if (chosen) {
                *why = strerror(EEXIST);
                return NULL;
            }
            if ((*why = entry_refused(path, &st)))
                return NULL;
            int link = S_ISLNK(st.st_mode);
            struct stat t;
            /* A link allowed is followed, and its target created if missing (as fopen does). */
            created = link && stat(path, &t) != 0 && errno == ENOENT;
            /* Never blocks (a FIFO with no reader fails with ENXIO); O_NOFOLLOW: the entry checked is the
             * entry opened. */
            fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (link ? O_CREAT : O_NOFOLLOW), 0666);
            if (fd < 0) {
                int e = errno;
                if (e == ENXIO && stat(path, &t) == 0 && S_ISFIFO(t.st_mode)) {
                    *why = refused_fifo;
                    return NULL;
                }
                if ((e == ELOOP || e == ENOENT) && !link)
                    continue; /* replaced or removed since */
                *why = strerror(e);
                return NULL;
            }
            struct stat again;
            int same = link ? lstat(path, &again) == 0 && again.st_uid == st.st_uid
                            : fstat(fd, &again) == 0;
            if (!same || again.st_dev != st.st_dev || again.st_ino != st.st_ino) {
                close(fd);
                continue;
            }
            int fl = fcntl(fd, F_GETFL);
            if (fl != -1)
                fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* a pipe's writes wait for its reader */
        }
        if (fstat(fd, &now) != 0) {
            *why = strerror(errno);
            close(fd);
            return NULL;
        }
        if (S_ISREG(now.st_mode) && kprof_config.invocation_ns) {
            /* Another process of this invocation holds the file, or wrote it since the invocation began:
             * not to be overwritten.  A file created here is this process's own (O_EXCL). */
            int locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
            if (!created && (!locked || kprof_file_mtime_ns(&now) >= kprof_config.invocation_ns)) {
                close(fd);
                *sibling = 1;
                *why = refused_sibling;
                return NULL;
            }
        }
        if (!created && S_ISREG(now.st_mode) && ftruncate(fd, 0) != 0) {
            *why = strerror(errno);
            close(fd);
            return NULL;
        }
        FILE *f = fdopen(fd, "w");
        if (!f) {
            *why = strerror(errno);
            close(fd);
        }
        return f;
    }
    *why = "the path kept changing while it was opened";
    return NULL;
}
