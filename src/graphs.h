/* graphs.h: CUDA graphs and stream capture (graphs.c). */
#ifndef KPROF_GRAPHS_H
#define KPROF_GRAPHS_H

#include <stddef.h>
#include "cuda_api.h"
#include "kernel.h"

/* What libkprof knows of an instantiated graph: its row in the graphs table and its kernel nodes (child
 * graphs included), walked once at instantiation. */
struct kprof_graph {
    struct kprof_kernel *row;       /* the graphs-table aggregate (is_graph = 1) */
    size_t nkernels;
    struct kprof_kernel **kernels;  /* one per kernel node, owned */
    unsigned (*shapes)[6];          /* each node's grid and block, owned */
    size_t ncond;                   /* kernel nodes inside conditional bodies (their launches are unknown) */
};
/* A conditional node (CUDA 12.4+) was added with these body graphs (cuGraphAddNode's phGraph_out): CUDA
 * has no getter for them, so instantiation finds them here (or, for a clone, through
 * cuGraphNodeFindInClone).  Thread-safe; the array is copied. */
void kprof_graph_conditional_added(CUgraphNode node, const CUgraph *bodies, unsigned n);
/* Walks `graph`'s nodes and records the exec made from it.  Thread-safe. */
void kprof_graph_instantiated(CUgraphExec exec, CUgraph graph);
/* The record of exec, or NULL if libkprof did not see it instantiated.  Thread-safe; valid until
 * kprof_graph_destroyed(exec). */
struct kprof_graph *kprof_graph_for(CUgraphExec exec);
void kprof_graph_destroyed(CUgraphExec exec);
/* Counts one replay: the graph row and every kernel node it holds (so kernel counts match what ran). */
void kprof_graph_launched(struct kprof_graph *g);
/* The graphs' part of the report's snapshot: the rows with a launch, sorted as the kernels are
 * (kprof_kernels_sort); the array owned, the rows borrowed (they live as long as the process). */
struct kprof_graphs_part { struct kprof_kernel **rows; size_t n; };
/* Fills *p (zeroed by the caller); out of memory, no rows.  After the drain; thread-safe. */
void kprof_graphs_snapshot(struct kprof_graphs_part *p);
/* Releases p's array. */
void kprof_graphs_part_free(struct kprof_graphs_part *p);

/* Number of stream captures in progress in the process: while there is one, libkprof makes none of the
 * calls a global-mode capture forbids (event queries) from the app's threads. */
extern int kprof_captures_active;

/* cuEventQuery(e) on an app's thread, made only while no stream capture is in progress: a global-mode
 * capture that another thread has begun forbids it, and the query would invalidate that capture.  Answers
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, without asking the driver, while one is. */
CUresult kprof_event_query_uncaptured(CUevent e);
/* Told by the capture wrappers: a capture is about to begin (counted at once; returns once no query of
 * kprof_event_query_uncaptured is under way, so that none is made during the capture), and a capture
 * ended, or did not begin after all. */
void kprof_capture_beginning(void);
void kprof_capture_over(void);

#endif
