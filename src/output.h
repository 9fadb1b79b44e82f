/* output.h: opening report files (output.c). */
#ifndef KPROF_OUTPUT_H
#define KPROF_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/* Opens `path` for writing a report file, as libkprof(7) NOTES says: never through a link, nor
 * into a file, that another user owns in a folder others can write; never blocking (a FIFO with no
 * reader is refused); an existing regular file is truncated.  With `chosen` (a name libkprof chose
 * itself) the file must not exist and is created with mode 0600.  With KPROF_INVOCATION, a regular file
 * modified since the invocation began (or locked by another process writing it) is refused with
 * *sibling set to 1.  Returns the stream, or NULL with *why set (a static string or strerror()'s).
 * Thread-safe. */
FILE *kprof_output_open(const char *path, int chosen, const char **why, int *sibling);

/* The folder `path` names a file in: the text before its last '/' ("/" for a file at the root, "."
 * for a name without one).  Returns a new string the caller frees, or NULL when out of memory.
 * Thread-safe. */
char *kprof_path_folder(const char *path);

/* Why no new file can be made at `path` whatever the permissions, or NULL: its folder is on a procfs or
 * sysfs file system (where creating a file fails with EACCES or ENOENT, root's included, and access()
 * lets it through).  The reason (a static string) is the one both the start's check and the exit's
 * write give.  Thread-safe. */
const char *kprof_output_no_new_files(const char *path);

/* Why kprof_output_open would refuse the entry now at `path` (another user's link or file in a folder others
 * can write, or a file there with another hard link), or NULL: it would not, or nothing is there.  The
 * reason (a static string) is the one the exit's write gives, so the start's check says it too.
 * Thread-safe. */
const char *kprof_output_entry_refused(const char *path);

/* A file's modification time (st_mtim) in ns. */
int64_t kprof_file_mtime_ns(const struct stat *st);

#endif
