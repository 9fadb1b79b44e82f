/* devices.h: completed samples to their aggregates; devices' busy time and the trace (agg/devices.c). */
#ifndef KPROF_DEVICES_H
#define KPROF_DEVICES_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

/* Aggregates one completed sample (times in ns): its kernel's or copy's time (kprof_kernel_add_sample,
 * kprof_copy_add_time), and for a kernel or graph its device's kernel time and busy time; with KPROF_TRACE,
 * a trace event.  Called by the harvester; thread-safe (those modules' locks, then the devices' lock, one
 * at a time). */
void kprof_sample_record(const struct kprof_sample *s);

/* Names stream number `index` (on `device`) for the trace, replacing an earlier name; the string is
 * copied (left out when out of memory).  Thread-safe (the devices' lock). */
void kprof_stream_named(unsigned index, int device, const char *name);

/* Per device: the sum of its kernels' GPU times and their union (the time the device was busy with at
 * least one kernel), in ns; the two differ when streams overlap.  uuid: "GPU-<8>-<4>-<4>-<4>-<12 hex digits>" as
 * nvidia-smi writes it, or "" when the driver could not say. */
struct kprof_device_stat { int device; uint64_t kernel_ns, busy_ns, kernels; char uuid[41]; };

/* One timed call for the Chrome trace (KPROF_TRACE). */
struct kprof_trace_event {
    uint64_t start_ns, dur_ns;   /* process timeline */
    const void *target;          /* struct kprof_kernel * or struct kprof_copy * */
    uint64_t bytes;
    unsigned grid[3], block[3];
    int device;
    unsigned stream_index;
    unsigned char kind;          /* enum kprof_target_kind */
    unsigned char pred, shared, stop_idle, start_idle, beside_htod, read_as; /* kernels: as in struct kprof_sample */
    uint32_t taken_ns;           /* kernels: ns taken off the pair, at most UINT32_MAX */
};
struct kprof_stream_name { int device; char *name; };

/* The devices' part of the report's snapshot.  devices: those that ran a timed kernel or graph, in device
 * order (owned; room for 64, ndevices filled; NULL with 0 when out of memory).  The trace so far,
 * borrowed: ntrace events in the order recorded (trace_dropped more left out, past KPROF_TRACE_LIMIT or
 * for lack of memory), and nstreams stream names by stream number (name NULL where none was given); valid
 * until the next sample or stream name is recorded: read after the drain. */
struct kprof_devices_part {
    struct kprof_device_stat *devices; size_t ndevices;
    const struct kprof_trace_event *trace; size_t ntrace;
    uint64_t trace_dropped;
    const struct kprof_stream_name *streams; size_t nstreams;
};
/* Fills *p.  Thread-safe (the devices' lock). */
void kprof_devices_snapshot(struct kprof_devices_part *p);
/* Releases p's devices array (the trace is borrowed). */
void kprof_devices_part_free(struct kprof_devices_part *p);

#endif
