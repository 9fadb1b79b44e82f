/*
 * cupti_trace.c - libkprof-cupti.so, a CUPTI activity-tracing injection
 * library used as ground truth to check libkprof's numbers.
 *
 * Load it into any CUDA program with
 *     CUDA_INJECTION64_PATH=/abs/path/libkprof-cupti.so ./prog
 * The CUDA driver dlopen()s it during cuInit() and calls InitializeInjection().
 *
 * It enables CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, MEMCPY, MEMCPY2 (peer)
 * and MEMSET, aggregates the records in memory (per kernel name, per copy
 * direction, memsets) and at process exit writes a tab-separated summary to
 * $CUPTI_TRACE_OUT (default: stderr).  See tests/gpu/README.md for the format.
 *
 * Environment:
 *   CUPTI_TRACE_OUT=path     summary file ("%p" in the path becomes the pid)
 *   CUPTI_TRACE_KERNELS=path   also write every kernel record as
 *                            start_ns<TAB>end_ns<TAB>stream<TAB>name
 *   CUPTI_TRACE_KINDS=kernel  kernel records only, no copies or memsets
 *   CUPTI_TRACE_DEVBUF_MB=n  CUPTI device buffer size (CUPTI default if unset)
 *   CUPTI_TRACE_LAUNCHES=path  also enable the RUNTIME and DRIVER API records and write, per kernel
 *                            launch, the API call that launched it (matched by correlationId, the
 *                            runtime call preferred) as
 *                            queue_ns<TAB>api_ns<TAB>R|D<TAB>name
 *                            queue_ns = kernel start - API call start, api_ns = the call's duration:
 *                            what nsys stats' cuda_kern_exec_sum calls queue and API time
 *
 * Activity record layouts are those of CUPTI 13.0 (CUpti_ActivityKernel10,
 * CUpti_ActivityMemcpy6, CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemset4);
 * only fields whose offsets have not changed across recent versions are read
 * (kind, copyKind, bytes, start, end, streamId, name).
 */
#include <cupti.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KP_EXPORT __attribute__((visibility("default")))

#define BUF_SIZE  (8u * 1024u * 1024u)
#define BUF_ALIGN 8u
#define NBUCKETS  4096u

/* ------------------------------------------------------------------ util */

static void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnx_(const char *fmt, ...)
{
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kprof-cupti: %s\n", line);
}

/* Check a CUptiResult; warn (never abort) and return nonzero on failure. */
static int cupti_failed(CUptiResult r, const char *what)
{
    const char *s = NULL;
    if (r == CUPTI_SUCCESS)
        return 0;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == NULL)
        s = "?";
    warnx_("%s failed: %s (%d)", what, s, (int)r);
    return 1;
}
#define CUPTI_CHECK(call) cupti_failed((call), #call)

/* ----------------------------------------------------------- aggregation */

struct kern {
    struct kern *next;
    char *name;
    uint64_t count;         /* all records */
    uint64_t timed;         /* records with valid timestamps */
    uint64_t total_ns, min_ns, max_ns;
    uint64_t first_start, first_ns; /* the earliest-starting launch: libkprof reports it apart */
};

enum { D_HTOD, D_DTOH, D_DTOD, D_HTOH, D_PTOP, D_OTHER, D_N };
static const char *const dir_name[D_N] = { "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "Other" };

struct xfer {
    uint64_t count, bytes, total_ns, untimed;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kern *g_buckets[NBUCKETS];
static size_t g_nkernels;
static struct xfer g_copy[D_N];
static struct xfer g_memset;
static uint64_t g_kernel_untimed;
static uint64_t g_batched_copies;   /* records with copyCount > 1 */
static uint64_t g_records, g_other_records, g_buffers;
static uint64_t g_dropped;
static uint64_t g_bad_buffers;
static FILE *g_trace;               /* CUPTI_TRACE_KERNELS */

static uint64_t g_late_records;     /* delivered after the summary was written */
static int g_summary_written;       /* under g_lock */
static int g_summary_started;       /* exactly-once guard, atomic */
static pid_t g_init_pid;

static uint32_t g_cupti_version;
static int g_flush_ok;              /* final forced flush succeeded */
static int g_ctx_flushes;           /* flushes done at context destruction */

/* CUPTI_TRACE_LAUNCHES: API records by correlationId (open addressing; grows), and kernel records kept
 * until exit, when they are matched (records arrive in buffers, in no set order). */
static FILE *g_launches;
struct api_rec { uint32_t corr; uint8_t used, runtime, both; uint64_t start, end, rt_start, rt_end; };
static struct api_rec *g_apis;
static size_t g_apis_cap, g_napis;
struct kern_rec { uint32_t corr; uint64_t start; char *name; };
static struct kern_rec *g_krecs;
static size_t g_nkrecs, g_krecs_cap;
static uint64_t g_unmatched_launches;

/* Called with g_lock held. */
static struct api_rec *api_slot(uint32_t corr, int create)
{
    if (create && (g_napis + 1) * 2 > g_apis_cap) {
        size_t cap = g_apis_cap ? g_apis_cap * 2 : 65536;
        struct api_rec *n = calloc(cap, sizeof *n);
        if (n == NULL)
            return NULL;
        for (size_t i = 0; i < g_apis_cap; i++)
            if (g_apis[i].used) {
                size_t j = (g_apis[i].corr * 2654435761u) & (cap - 1);
                while (n[j].used)
                    j = (j + 1) & (cap - 1);
                n[j] = g_apis[i];
            }
        free(g_apis);
        g_apis = n;
        g_apis_cap = cap;
    }
    if (g_apis_cap == 0)
        return NULL;
    size_t j = (corr * 2654435761u) & (g_apis_cap - 1);
    while (g_apis[j].used && g_apis[j].corr != corr)
        j = (j + 1) & (g_apis_cap - 1);
    if (!g_apis[j].used) {
        if (!create)
            return NULL;
        g_apis[j].used = 1;
        g_apis[j].corr = corr;
        g_napis++;
    }
    return &g_apis[j];
}

/* Called with g_lock held. */
static void add_api(uint32_t corr, int runtime, uint64_t start, uint64_t end)
{
    struct api_rec *a = api_slot(corr, 1);
    if (a == NULL)
        return;
    if (runtime) {
        a->runtime = 1;
        a->rt_start = start;
        a->rt_end = end;
    } else {
        a->both = 1;
        a->start = start;
        a->end = end;
    }
}

/* Called with g_lock held. */
static void add_launch(uint32_t corr, uint64_t start, const char *name)
{
    if (g_nkrecs == g_krecs_cap) {
        size_t cap = g_krecs_cap ? g_krecs_cap * 2 : 4096;
        struct kern_rec *n = realloc(g_krecs, cap * sizeof *n);
        if (n == NULL)
            return;
        g_krecs = n;
        g_krecs_cap = cap;
    }
    g_krecs[g_nkrecs].corr = corr;
    g_krecs[g_nkrecs].start = start;
    g_krecs[g_nkrecs].name = strdup(name ? name : "<unknown>");
    if (g_krecs[g_nkrecs].name != NULL)
        g_nkrecs++;
}

/* At exit (g_lock held): each kernel launch with the API call that made it. */
static void write_launches(void)
{
    for (size_t i = 0; i < g_nkrecs; i++) {
        struct kern_rec *k = &g_krecs[i];
        struct api_rec *a = api_slot(k->corr, 0);
        if (a == NULL || k->start == 0 || (!a->runtime && !a->both)) {
            g_unmatched_launches++;
            continue;
        }
        uint64_t s = a->runtime ? a->rt_start : a->start, e = a->runtime ? a->rt_end : a->end;
        fprintf(g_launches, "%" PRId64 "\t%" PRIu64 "\t%c\t%s\n", (int64_t)(k->start - s), e >= s ? e - s : 0,
                a->runtime ? 'R' : 'D', k->name);
    }
    if (g_unmatched_launches > 0)
        warnx_("%" PRIu64 " kernel launches had no API record (left out of CUPTI_TRACE_LAUNCHES)",
               g_unmatched_launches);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* Called with g_lock held. */
static void add_kernel(const char *name, uint64_t start, uint64_t end, uint32_t stream)
{
    uint64_t h;
    struct kern *k;

    if (name == NULL || name[0] == '\0')
        name = "<unknown>";
    h = fnv1a(name) % NBUCKETS;
    for (k = g_buckets[h]; k != NULL; k = k->next)
        if (strcmp(k->name, name) == 0)
            break;
    if (k == NULL) {
        k = calloc(1, sizeof *k);
        if (k == NULL || (k->name = strdup(name)) == NULL) {
            free(k);
            warnx_("out of memory, kernel record lost");
            return;
        }
        k->next = g_buckets[h];
        g_buckets[h] = k;
        g_nkernels++;
    }
    k->count++;
    if (start != 0 && end >= start) {
        uint64_t d = end - start;
        if (k->timed == 0 || d < k->min_ns)
            k->min_ns = d;
        if (d > k->max_ns)
            k->max_ns = d;
        if (k->timed == 0 || start < k->first_start) {
            k->first_start = start;
            k->first_ns = d;
        }
        k->total_ns += d;
        k->timed++;
    } else {
        g_kernel_untimed++;
    }
    if (g_trace != NULL)
        fprintf(g_trace, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%s\n", start, end, stream, name);
}

static int copy_dir(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return D_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return D_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return D_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return D_HTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return D_PTOP;
    default:
        return D_OTHER;
    }
}

/* Called with g_lock held. */
static void add_xfer(struct xfer *x, uint64_t bytes, uint64_t start, uint64_t end)
{
    x->count++;
    x->bytes += bytes;
    if (start != 0 && end >= start)
        x->total_ns += end - start;
    else
        x->untimed++;
}

/* Called with g_lock held. */
static void handle_record(const CUpti_Activity *rec)
{
    g_records++;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        add_kernel(k->name, k->start, k->end, k->streamId);
        if (g_launches != NULL)
            add_launch(k->correlationId, k->start, k->name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)rec;
        add_api(a->correlationId, rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME, a->start, a->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        add_xfer(&g_copy[copy_dir(m->copyKind)], m->bytes, m->start, m->end);
        if (m->copyCount > 1)
            g_batched_copies++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        /* peer-to-peer copies between devices/contexts */
        const CUpti_ActivityMemcpyPtoP4 *m = (const CUpti_ActivityMemcpyPtoP4 *)rec;
        add_xfer(&g_copy[D_PTOP], m->bytes, m->start, m->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        add_xfer(&g_memset, m->bytes, m->start, m->end);
        break;
    }
    default:
        g_other_records++;
        break;
    }
}

/* ------------------------------------------------------- CUPTI callbacks */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = NULL;
    int e = posix_memalign(&p, BUF_ALIGN, BUF_SIZE);
    if (e != 0) {
        warnx_("cannot allocate a %u-byte activity buffer: %s; records will be dropped",
               BUF_SIZE, strerror(e));
        *buffer = NULL;
        *size = 0;
    } else {
        *buffer = p;
        *size = BUF_SIZE;
    }
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid_size)
{
    CUpti_Activity *rec = NULL;
    CUptiResult r;
    size_t dropped = 0;

    (void)size;
    pthread_mutex_lock(&g_lock);
    g_buffers++;
    if (buffer != NULL && valid_size > 0) {
        for (;;) {
            r = cuptiActivityGetNextRecord(buffer, valid_size, &rec);
            if (r == CUPTI_SUCCESS) {
                if (g_summary_written && g_late_records++ == 0)
                    warnx_("activity records delivered after the summary was written are not in it");
                handle_record(rec);
                continue;
            }
            if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) {
                g_bad_buffers++;
                cupti_failed(r, "cuptiActivityGetNextRecord");
            }
            break;
        }
    }
    /* ctx is always NULL since CUDA 6: buffers are global. */
    r = cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped);
    if (r == CUPTI_SUCCESS) {
        if (dropped > 0)
            warnx_("%zu activity records dropped (buffers too small or not returned in time)",
                   dropped);
        g_dropped += dropped;
    } else {
        cupti_failed(r, "cuptiActivityGetNumDroppedRecords");
    }
    pthread_mutex_unlock(&g_lock);
    free(buffer);
}

/* Resource callbacks: flush the completed buffers before a context goes away. */
static void CUPTIAPI resource_callback(void *userdata, CUpti_CallbackDomain domain,
                                       CUpti_CallbackId cbid, const void *cbdata)
{
    (void)userdata;
    (void)cbdata;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        /* Not under g_lock: the flush calls buffer_completed on this thread. */
        if (!CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)))
            __atomic_add_fetch(&g_ctx_flushes, 1, __ATOMIC_RELAXED);
    }
}

/* --------------------------------------------------------------- summary */

static int cmp_kern(const void *a, const void *b)
{
    const struct kern *x = *(const struct kern *const *)a;
    const struct kern *y = *(const struct kern *const *)b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* "%p" in the path becomes the pid; returns a malloc'd string or NULL. */
static char *expand_path(const char *path)
{
    char pid[32];
    size_t n = strlen(path), plen, i, o = 0, extra = 0;
    char *out;

    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    plen = strlen(pid);
    for (i = 0; i + 1 < n; i++)
        if (path[i] == '%' && path[i + 1] == 'p')
            extra++;
    out = malloc(n + extra * plen + 1);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (path[i] == '%' && i + 1 < n && path[i + 1] == 'p') {
            memcpy(out + o, pid, plen);
            o += plen;
            i++;
        } else {
            out[o++] = path[i];
        }
    }
    out[o] = '\0';
    return out;
}

static void write_summary(FILE *f)
{
    struct kern **v = NULL, *k;
    size_t i, n = 0;
    int d;

    pthread_mutex_lock(&g_lock);
    fprintf(f, "# kprof-cupti summary v1 pid=%ld cupti_api=%u cupti_runtime=%u "
               "records=%" PRIu64 " buffers=%" PRIu64 " dropped=%" PRIu64
               " untimed_kernels=%" PRIu64 " batched_copy_records=%" PRIu64
               " ctx_flushes=%d final_flush=%s\n",
            (long)getpid(), (unsigned)CUPTI_API_VERSION, g_cupti_version, g_records, g_buffers,
            g_dropped, g_kernel_untimed, g_batched_copies,
            __atomic_load_n(&g_ctx_flushes, __ATOMIC_RELAXED), g_flush_ok ? "ok" : "FAILED");
    fprintf(f, "# kernel\tcount\ttotal_ns\tmin_ns\tmax_ns\tmangled_name | kfirst\tfirst_launch_ns\tmangled_name | "
               "memcpy\tdir\tcount\tbytes\ttotal_ns | memset\tcount\tbytes\ttotal_ns\n");

    if (g_nkernels > 0)
        v = malloc(g_nkernels * sizeof *v);
    if (v != NULL) {
        for (i = 0; i < NBUCKETS; i++)
            for (k = g_buckets[i]; k != NULL; k = k->next)
                v[n++] = k;
        qsort(v, n, sizeof *v, cmp_kern);
        for (i = 0; i < n; i++) {
            fprintf(f, "kernel\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n",
                    v[i]->count, v[i]->total_ns, v[i]->min_ns, v[i]->max_ns, v[i]->name);
            if (v[i]->timed)
                fprintf(f, "kfirst\t%" PRIu64 "\t%s\n", v[i]->first_ns, v[i]->name);
        }
        free(v);
    } else if (g_nkernels > 0) {
        /* unsorted fallback */
        for (i = 0; i < NBUCKETS; i++)
            for (k = g_buckets[i]; k != NULL; k = k->next)
                fprintf(f, "kernel\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n",
                        k->count, k->total_ns, k->min_ns, k->max_ns, k->name);
    }
    for (d = 0; d < D_N; d++)
        if (g_copy[d].count > 0)
            fprintf(f, "memcpy\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", dir_name[d],
                    g_copy[d].count, g_copy[d].bytes, g_copy[d].total_ns);
    if (g_memset.count > 0)
        fprintf(f, "memset\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", g_memset.count,
                g_memset.bytes, g_memset.total_ns);
    fprintf(f, "# end\n");
    g_summary_written = 1;

    if (g_dropped > 0)
        warnx_("%" PRIu64 " records were dropped: the summary is incomplete", g_dropped);
    if (g_kernel_untimed > 0)
        warnx_("%" PRIu64 " kernel records had no timestamps (counted, not timed)",
               g_kernel_untimed);
    pthread_mutex_unlock(&g_lock);
}

static void at_exit_handler(void)
{
    const char *out;
    FILE *f = stderr;
    char *path = NULL;

    /* A fork()ed child that calls exit() inherits this handler and the
     * parent's counters: only the process that was initialised reports. */
    if (getpid() != g_init_pid)
        return;
    if (__atomic_exchange_n(&g_summary_started, 1, __ATOMIC_ACQ_REL))
        return;     /* exactly once */

    /* Deliver everything still held by CUPTI.  The completion callback runs on
     * CUPTI's worker thread (seen on H200/CUDA 13.0) or on this one, and the
     * flush returns after it, so g_lock must not be held here. */
    g_flush_ok = !CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

    out = getenv("CUPTI_TRACE_OUT");
    if (out != NULL && out[0] != '\0') {
        path = expand_path(out);
        f = path != NULL ? fopen(path, "w") : NULL;
        if (f == NULL) {
            warnx_("cannot open CUPTI_TRACE_OUT=%s: %s; writing the summary to stderr", out,
                   strerror(errno));
            f = stderr;
        }
    }
    write_summary(f);
    if (f != stderr) {
        if (fclose(f) != 0)
            warnx_("error writing %s: %s", path, strerror(errno));
    } else {
        fflush(stderr);
    }
    free(path);

    pthread_mutex_lock(&g_lock);
    if (g_trace != NULL) {
        if (fclose(g_trace) != 0)
            warnx_("error writing CUPTI_TRACE_KERNELS: %s", strerror(errno));
        g_trace = NULL;
    }
    if (g_launches != NULL) {
        write_launches();
        if (fclose(g_launches) != 0)
            warnx_("error writing CUPTI_TRACE_LAUNCHES: %s", strerror(errno));
        g_launches = NULL;
    }
    pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------------- injection */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_ok;
static CUpti_SubscriberHandle g_subscriber;

static void init_once(void)
{
    const char *tr, *mb;
    int enabled = 0;

    g_init_pid = getpid();
    if (CUPTI_CHECK(cuptiGetVersion(&g_cupti_version)))
        g_cupti_version = 0;
    else if (g_cupti_version < CUPTI_API_VERSION)
        warnx_("runtime CUPTI API version %u is older than the headers' %u: record layouts may differ",
               g_cupti_version, (unsigned)CUPTI_API_VERSION);

    tr = getenv("CUPTI_TRACE_KERNELS");
    if (tr != NULL && tr[0] != '\0') {
        char *path = expand_path(tr);
        g_trace = path != NULL ? fopen(path, "w") : NULL;
        if (g_trace == NULL)
            warnx_("cannot open CUPTI_TRACE_KERNELS=%s: %s", tr, strerror(errno));
        else
            fprintf(g_trace, "# start_ns\tend_ns\tstream\tname\n");
        free(path);
    }

    tr = getenv("CUPTI_TRACE_LAUNCHES");
    if (tr != NULL && tr[0] != '\0') {
        char *path = expand_path(tr);
        g_launches = path != NULL ? fopen(path, "w") : NULL;
        if (g_launches == NULL)
            warnx_("cannot open CUPTI_TRACE_LAUNCHES=%s: %s", tr, strerror(errno));
        else
            fprintf(g_launches, "# queue_ns\tapi_ns\tapi\tname\n");
        free(path);
    }

    mb = getenv("CUPTI_TRACE_DEVBUF_MB");
    if (mb != NULL && mb[0] != '\0') {
        size_t sz = (size_t)strtoul(mb, NULL, 10) * 1024u * 1024u, len = sizeof sz;
        if (sz > 0)
            CUPTI_CHECK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &len, &sz));
    }

    /* Context-destruction callback (best effort: another CUPTI subscriber, e.g.
     * Nsight Systems, makes cuptiSubscribe fail; activity tracing still works). */
    if (!CUPTI_CHECK(cuptiSubscribe(&g_subscriber, resource_callback, NULL)))
        CUPTI_CHECK(cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                        CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));

    if (CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)))
        return;

    const char *kinds = getenv("CUPTI_TRACE_KINDS");
    int kernels_only = kinds != NULL && strcmp(kinds, "kernel") == 0;
    enabled += !CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    if (!kernels_only) {
        enabled += !CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
        enabled += !CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2));
        enabled += !CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
    }
    if (enabled == 0)
        return;
    if (g_launches != NULL && (CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME)) |
                               CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER))))
        warnx_("API records not all enabled: launches may be left out of CUPTI_TRACE_LAUNCHES");

    if (atexit(at_exit_handler) != 0) {
        warnx_("atexit failed: no summary will be written");
        return;
    }
    g_init_ok = 1;
}

KP_EXPORT int InitializeInjection(void);
KP_EXPORT int InitializeInjection(void)
{
    pthread_once(&g_once, init_once);
    return g_init_ok ? 1 : 0;
}
