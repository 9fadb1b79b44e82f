/* graphs.c: CUDA graphs: each instantiated graph's kernel nodes, walked once, so that every replay can be
 * timed as one row and its kernels counted as launches. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda_api.h"
#include "kprof_hash.h"
#include "histogram.h"
#include "resolve.h"
#include "clock.h"
#include "module.h"
#include "kernels.h"
#include "graphs.h"

struct exec_entry {
    CUgraphExec exec;
    struct kprof_graph g;
    UT_hash_handle hh;
};

/* A conditional node and its body graphs, as cuGraphAddNode made them. */
struct cond_entry {
    CUgraphNode node;
    unsigned n;
    CUgraph *bodies;
    UT_hash_handle hh;
};

static struct {
    pthread_rwlock_t lock;
    struct exec_entry *execs;      /* live graph execs */
    struct cond_entry *conds;      /* conditional nodes seen made */
    struct kprof_kernel **rows;    /* every graph row ever made (rows outlive their execs) */
    size_t nrows, caprows;
} graphs = { .lock = PTHREAD_RWLOCK_INITIALIZER };

int kprof_captures_active;
/* Queries of kprof_event_query_uncaptured under way (sequentially consistent, with kprof_captures_active:
 * a query that saw no capture is waited for by the capture's begin). */
static int queries_under_way;

CUresult kprof_event_query_uncaptured(CUevent e)
{
    CUresult r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    __atomic_add_fetch(&queries_under_way, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&kprof_captures_active, __ATOMIC_SEQ_CST) == 0)
        r = kprof_drv.cuEventQuery(e);
    __atomic_sub_fetch(&queries_under_way, 1, __ATOMIC_SEQ_CST);
    return r;
}

void kprof_capture_beginning(void)
{
    __atomic_add_fetch(&kprof_captures_active, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&queries_under_way, __ATOMIC_SEQ_CST) > 0)
        sched_yield();
}

void kprof_capture_over(void)
{
    if (__atomic_sub_fetch(&kprof_captures_active, 1, __ATOMIC_SEQ_CST) < 0)
        __atomic_store_n(&kprof_captures_active, 0, __ATOMIC_SEQ_CST);
}

void kprof_graph_conditional_added(CUgraphNode node, const CUgraph *bodies, unsigned n)
{
    if (!node || !bodies || !n)
        return;
    struct cond_entry *e = calloc(1, sizeof *e);
    CUgraph *copy = calloc(n, sizeof *copy);
    if (!e || !copy) {
        free(e);
        free(copy);
        return;
    }
    memcpy(copy, bodies, n * sizeof *copy);
    e->node = node;
    e->n = n;
    e->bodies = copy;
    struct cond_entry *old;
    pthread_rwlock_wrlock(&graphs.lock);
    HASH_FIND_PTR(graphs.conds, &node, old);
    if (old)
        HASH_DEL(graphs.conds, old);
    HASH_ADD_PTR(graphs.conds, node, e);
    pthread_rwlock_unlock(&graphs.lock);
    if (old) {
        free(old->bodies);
        free(old);
    }
}

/* The body graphs of conditional node `node` of `graph` (a malloc'd array the caller frees, *n of them),
 * or NULL: the node itself was seen made, or it is the clone of one that was (graphs cloned by
 * cuGraphClone, or embedded as child graphs, whose nodes are copies); then the original's bodies stand for
 * the clone's (the same kernels). */
static CUgraph *cond_bodies(CUgraph graph, CUgraphNode node, unsigned *n)
{
    CUgraph *r = NULL;
    pthread_rwlock_rdlock(&graphs.lock);
    struct cond_entry *e;
    HASH_FIND_PTR(graphs.conds, &node, e);
    if (!e && kprof_drv.cuGraphNodeFindInClone) {
        for (struct cond_entry *c = graphs.conds; c && !e; c = c->hh.next) {
            CUgraphNode in_clone = NULL;
            if (kprof_drv.cuGraphNodeFindInClone(&in_clone, c->node, graph) == CUDA_SUCCESS && in_clone == node)
                e = c;
        }
    }
    if (e && (r = calloc(e->n, sizeof *r)) != NULL) {
        memcpy(r, e->bodies, e->n * sizeof *r);
        *n = e->n;
    }
    pthread_rwlock_unlock(&graphs.lock);
    return r;
}

/* Appends graph's kernel nodes (recursing into child graphs and conditional bodies) to g; depth bounds a
 * malformed graph.  Kernels of conditional bodies (cond) are marked, not listed: how often a body runs is
 * decided on the GPU. */
static void walk(CUgraph graph, struct kprof_graph *g, int depth, int cond)
{
    size_t n = 0;
    if (depth > 16 || !kprof_drv.cuGraphGetNodes || kprof_drv.cuGraphGetNodes(graph, NULL, &n) != CUDA_SUCCESS || !n)
        return;
    CUgraphNode *nodes = calloc(n, sizeof *nodes);
    if (!nodes || kprof_drv.cuGraphGetNodes(graph, nodes, &n) != CUDA_SUCCESS) {
        free(nodes);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        CUgraphNodeType type;
        if (!kprof_drv.cuGraphNodeGetType || kprof_drv.cuGraphNodeGetType(nodes[i], &type) != CUDA_SUCCESS)
            continue;
        if (type == CU_GRAPH_NODE_TYPE_GRAPH && kprof_drv.cuGraphChildGraphNodeGetGraph) {
            CUgraph child;
            if (kprof_drv.cuGraphChildGraphNodeGetGraph(nodes[i], &child) == CUDA_SUCCESS)
                walk(child, g, depth + 1, cond);
            continue;
        }
        if (type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            unsigned nb = 0;
            CUgraph *bodies = cond_bodies(graph, nodes[i], &nb);
            for (unsigned j = 0; bodies && j < nb; j++)
                walk(bodies[j], g, depth + 1, 1);
            free(bodies);
            continue;
        }
        CUDA_KERNEL_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        if (type != CU_GRAPH_NODE_TYPE_KERNEL || !kprof_drv.cuGraphKernelNodeGetParams_v2 ||
            kprof_drv.cuGraphKernelNodeGetParams_v2(nodes[i], &p) != CUDA_SUCCESS)
            continue;
        struct kprof_kernel *k = p.func ? kprof_kernel_for_function(p.func) : kprof_kernel_for_kernel(p.kern);
        unsigned shape[6] = { p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY, p.blockDimZ };
        k = k ? kprof_kernel_select(k, (dim3){ shape[0], shape[1], shape[2] }, (dim3){ shape[3], shape[4], shape[5] })
              : NULL;
        if (!k)
            continue;
        if (cond) {
            __atomic_store_n(&k->in_conditional, 1, __ATOMIC_RELAXED);
            g->ncond++;
            continue;
        }
        struct kprof_kernel **ks = realloc(g->kernels, (g->nkernels + 1) * sizeof *ks);
        unsigned (*ss)[6] = realloc(g->shapes, (g->nkernels + 1) * sizeof *ss);
        if (ks)
            g->kernels = ks;
        if (ss)
            g->shapes = ss;
        if (!ks || !ss)
            break;
        memcpy(g->shapes[g->nkernels], shape, sizeof shape);
        g->kernels[g->nkernels++] = k;
    }
    free(nodes);
}

void kprof_graph_instantiated(CUgraphExec exec, CUgraph graph)
{
    struct exec_entry *e = calloc(1, sizeof *e);
    struct kprof_kernel *row = calloc(1, sizeof *row);
    if (!e || !row) {
        free(e);
        free(row);
        return;
    }
    walk(graph, &e->g, 0, 0);
    e->exec = exec;
    e->g.row = row;
    row->is_graph = 1;
    row->selected = 1;
    row->min_ns = UINT64_MAX;
    char name[96];
    pthread_rwlock_wrlock(&graphs.lock);
    snprintf(name, sizeof name, "graph %zu", graphs.nrows + 1);
    row->mangled = strdup(name);
    if (e->g.ncond)
        snprintf(name, sizeof name, "graph %zu (%zu kernel node%s, %zu in conditional bodies)", graphs.nrows + 1,
                 e->g.nkernels + e->g.ncond, e->g.nkernels + e->g.ncond == 1 ? "" : "s", e->g.ncond);
    else
        snprintf(name, sizeof name, "graph %zu (%zu kernel node%s)", graphs.nrows + 1, e->g.nkernels,
                 e->g.nkernels == 1 ? "" : "s");
    row->name = strdup(name);
    if (graphs.nrows == graphs.caprows) {
        size_t cap = graphs.caprows ? graphs.caprows * 2 : 16;
        struct kprof_kernel **r = realloc(graphs.rows, cap * sizeof *r);
        if (r) {
            graphs.rows = r;
            graphs.caprows = cap;
        }
    }
    if (!row->mangled || !row->name || graphs.nrows == graphs.caprows) {
        pthread_rwlock_unlock(&graphs.lock);
        free(row->mangled);
        free(row->name);
        free(row);
        free(e->g.kernels);
        free(e->g.shapes);
        free(e);
        return;
    }
    graphs.rows[graphs.nrows++] = row;
    struct exec_entry *old;
    HASH_FIND_PTR(graphs.execs, &exec, old);
    if (old) /* an exec handle reused without its destroy being seen */
        HASH_DEL(graphs.execs, old);
    HASH_ADD_PTR(graphs.execs, exec, e);
    pthread_rwlock_unlock(&graphs.lock);
    if (old) {
        free(old->g.kernels);
        free(old->g.shapes);
        free(old);
    }
}

struct kprof_graph *kprof_graph_for(CUgraphExec exec)
{
    struct exec_entry *e;
    pthread_rwlock_rdlock(&graphs.lock);
    HASH_FIND_PTR(graphs.execs, &exec, e);
    pthread_rwlock_unlock(&graphs.lock);
    return e ? &e->g : NULL;
}

void kprof_graph_destroyed(CUgraphExec exec)
{
    struct exec_entry *e;
    pthread_rwlock_wrlock(&graphs.lock);
    HASH_FIND_PTR(graphs.execs, &exec, e);
    if (e)
        HASH_DEL(graphs.execs, e);
    pthread_rwlock_unlock(&graphs.lock);
    if (e) {
        free(e->g.kernels);
        free(e->g.shapes);
        free(e);
    }
}

void kprof_graph_launched(struct kprof_graph *g)
{
    dim3 none = { 0, 0, 0 };
    kprof_kernel_count(g->row, none, none);
    for (size_t i = 0; i < g->nkernels; i++) {
        const unsigned *s = g->shapes[i];
        kprof_kernel_count(g->kernels[i], (dim3){ s[0], s[1], s[2] }, (dim3){ s[3], s[4], s[5] });
        __atomic_fetch_add(&g->kernels[i]->graph_calls, 1, __ATOMIC_RELAXED);
    }
}

void kprof_graphs_snapshot(struct kprof_graphs_part *p)
{
    pthread_rwlock_rdlock(&graphs.lock);
    p->rows = calloc(graphs.nrows ? graphs.nrows : 1, sizeof *p->rows);
    for (size_t i = 0; p->rows && i < graphs.nrows; i++)
        if (graphs.rows[i]->calls > 0)
            p->rows[p->n++] = graphs.rows[i];
    pthread_rwlock_unlock(&graphs.lock);
    if (p->rows)
        kprof_kernels_sort(p->rows, p->n, 0);
}

void kprof_graphs_part_free(struct kprof_graphs_part *p)
{
    free(p->rows);
}

static int fork_held;

static int fork_prepare(void)
{
    struct timespec t = kprof_deadline_ms(1000); /* rows are only ever held briefly */
    fork_held = pthread_rwlock_timedwrlock(&graphs.lock, &t) == 0;
    return fork_held;
}

static void fork_parent(void)
{
    if (fork_held)
        pthread_rwlock_unlock(&graphs.lock);
}

static void fork_child(void)
{
    pthread_rwlock_init(&graphs.lock, NULL);
}

/* In the child the parent's graph execs cannot be launched; their rows start from zero. */
static void graphs_reset(void)
{
    for (size_t i = 0; i < graphs.nrows; i++)
        kprof_kernel_reset(graphs.rows[i]);
    __atomic_store_n(&kprof_captures_active, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&queries_under_way, 0, __ATOMIC_RELAXED); /* those of the parent's other threads */
}

KPROF_MODULE(graphs, 30, fork_prepare, fork_parent, fork_child, graphs_reset)
