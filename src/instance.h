/* instance.h: the copies of libkprof loaded in the process (instance.c). */
#ifndef KPROF_INSTANCE_H
#define KPROF_INSTANCE_H

/* 1 when p lies in a copy of libkprof (this one or another file's): the object holding p exports
 * kprof_instance_marker.  Takes the dynamic linker's lock; not for the launch path.  Thread-safe. */
int kprof_is_libkprof(const void *p);

/* 1 (after one warning) when another copy of libkprof comes before this one in the lookup order (the
 * program calls that copy's functions, which reach this one's): this copy then stays disabled.  For the
 * constructor. */
int kprof_another_copy_first(void);

#endif
