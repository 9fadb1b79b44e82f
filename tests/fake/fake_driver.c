/* fake_driver.c: a deterministic virtual GPU behind the CUDA driver API (libcuda.so.1), for CPU-only tests. */

/* The driver's own build defines this: cuda.h then declares every exported name (old unversioned
 * entry points, _v2..., _ptsz/_ptds twins) with its real prototype, so the compiler checks each
 * definition below against NVIDIA's header. */
#define __CUDA_API_VERSION_INTERNAL 1
#define _GNU_SOURCE
#include <cuda.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#define FAKE_VERSION 13000
#define ALIGN 256

/* ------------------------------------------------------------------ configuration (FAKEGPU_*) */

#define KERNEL_NS_SEQ 16
struct kernel_rule {
    char *substr; /* matched against the mangled kernel name */
    uint64_t ns;  /* the first of seq */
    uint64_t seq[KERNEL_NS_SEQ]; /* "substr=ns1/ns2/...": a function's launches take these in turn */
    int nseq;
};

static struct {
    int devices;            /* FAKEGPU_DEVICES */
    unsigned long uuid_base; /* FAKEGPU_UUID_BASE (default 0): device d's UUID is
                                GPU-fa4e0000-0000-0000-0000-<base + d as 12 hex digits>, so that two fake
                                processes can be on one GPU (same base) or on two (different bases) */
    long ctx_init_ms;       /* FAKEGPU_CTX_INIT_MS */
    uint64_t kernel_ns;     /* FAKEGPU_KERNEL_NS default= */
    struct kernel_rule *rules;
    int nrules;
    uint64_t copy_ps_per_byte; /* FAKEGPU_COPY_PS_PER_BYTE */
    unsigned pending_queries;  /* FAKEGPU_EVENT_PENDING_QUERIES */
    int hang;                  /* FAKEGPU_HANG */
    int report_holds;          /* FAKEGPU_REPORT_HOLDS=1: at exit, the longest timeout a kprof_hold was given
                                  (stderr), the longest stall a hold never released could cause on a GPU */
    size_t mem_bytes;          /* FAKEGPU_MEM_BYTES */
    const char *truth_path;    /* FAKEGPU_TRUTH */
    int truth_queries;         /* FAKEGPU_TRUTH_QUERIES=1: the truth file also counts the main thread's
                                  cuEventQuery calls after the app's first kernel ("queries
                                  main_after_first_kernel" line), the other threads' ("queries
                                  other_threads_after_first_kernel": the app's other threads and libkprof's),
                                  and of them those of the thread named "kprof-harvester" (libkprof's
                                  harvester: "queries harvester_after_first_kernel"; the thread's name is read
                                  on each query then) */
    int reuse_ctx_handle;      /* FAKEGPU_REUSE_CTX_HANDLE */
    int reuse_stream_handle;   /* FAKEGPU_REUSE_STREAM_HANDLE=1: the next stream created gets the handle of
                                  the last one destroyed (a real driver's handles are reused memory too);
                                  -1: a destroyed stream's memory is never freed, so every stream created
                                  gets a handle never seen before (by default malloc decides) */
    int reuse_func_handle;     /* FAKEGPU_REUSE_FUNC_HANDLE=1: a function of an unloaded module or library
                                  gives its handle to the next function made (as a real allocator may) */
    uint64_t event_ns;         /* FAKEGPU_EVENT_NS: GPU time an event record takes on its stream */
    char *later_substr;        /* FAKEGPU_KERNEL_LATER="substr=N:ns": from its N-th direct launch (from 0) on,
                                  a function whose name contains substr takes ns (a kernel that slows down) */
    uint64_t later_after, later_ns;
    uint64_t event_record_host_ns; /* FAKEGPU_EVENT_RECORD_HOST_NS: with the virtual host clock, an event
                                  record call takes this much host time, the event stamped at its end */
    uint64_t event_seen_ns;    /* FAKEGPU_EVENT_SEEN_NS: with the virtual host clock, the host sees an event
                                  complete this long after its stamp (a query answers CUDA_ERROR_NOT_READY
                                  until then, a synchronize returns then): 4 to 5 us on an H200 */
    /* FAKEGPU_EVENT_SEEN_FAST="ns/every": every every-th event record of the process is seen complete ns
     * after its stamp instead (a record the GPU happened to process sooner) */
    uint64_t seen_fast_ns;
    unsigned long seen_fast_every;
    uint64_t query_host_ns;    /* FAKEGPU_QUERY_HOST_NS: with the virtual host clock, a cuEventQuery on the main
                                  thread takes this much host time (a driver lock other threads contend for) */
    unsigned long query_delay_us; /* FAKEGPU_FIRST_QUERY_DELAY_US: the first cuEventQuery off the main
                                     thread (a profiler's harvester, say) sleeps this long */
    /* FAKEGPU_HANDOFF_NS="kernel=N,htod=N,dtoh=N,dtod=N,memset=N,wait=N,hold=N" (ns, each 0 unless given): a kernel
     * launched on a busy stream starts this long after the stream's usual start time, by the kind of the
     * last work on that stream (a graph launch counts as kernel; HtoH and peer copies as dtod;
     * cuStreamWaitEvent as wait, cuStreamWaitValue32 as hold; event records do not count). A stream is busy until the host has seen that
     * work complete (a synchronize of the stream or its context, cuEventSynchronize or a cuEventQuery
     * answering CUDA_SUCCESS for an event recorded after it, or a cuStreamQuery answering CUDA_SUCCESS);
     * with no work yet it is idle. Copies, memsets, graph launches and kernels inside graphs are never
     * delayed themselves. Indexed by enum work_kind. */
    uint64_t handoff_ns[8];
    /* FAKEGPU_HANDOFF_NS's "beside_htod=N": a kernel (graphs' kernels aside) whose stream's usual start
     * time falls inside the last HtoD copy of another stream of its context waits the kernel hand-off
     * plus N, or its own hand-off if longer (not both); on an idle stream, N more (on an H200, N is about
     * 6 us: docs/accuracy.md, "An HtoD copy beside") */
    uint64_t beside_htod_ns;
    uint64_t calib_c0_ns;  /* FAKEGPU_CALIB_C0_NS (default 600): a kprof_calibrate kernel's out[1] is
                              start + its ns - this (what %globaltimer would see inside a real kernel) */
    uint64_t lazy_load_ns; /* FAKEGPU_LAZY_LOAD_NS: the first launch of a function in a context (not
                              loaded there by cuFuncLoad, an earlier launch or the instantiation of a graph
                              holding it) starts this much later on the GPU clock; such a launch
                              first waits for every hold of the context, as a lazy load "might require
                              context synchronization" (CUDA Programming Guide) */
    char *sleep_name;           /* FAKEGPU_LAUNCH_SLEEP_US="name=us": a launch of a kernel whose name contains
                                   name takes us of host time before its work is queued (other threads
                                   queue work meanwhile) */
    unsigned long sleep_us;
    char *late_name;            /* FAKEGPU_RECORD_LATE_US="name=us/n": with the virtual host clock, after every
                                   n-th launch of a kernel whose name contains name, the next event record on
                                   its stream takes us of host time before its event is queued (a thread
                                   descheduled or waiting on a driver lock before a profiler's stop event);
                                   behind a kprof_hold its release comes that late too, the GPU running
                                   nothing until then or until the hold gives up (hold_settle) */
    unsigned long late_us, late_every;
    uint64_t launch_latency_ns; /* FAKEGPU_LAUNCH_LATENCY_NS: a kernel launched on an idle stream (no work
                              yet, or its work seen complete by the host) starts this much later: the
                              host's launch latency, which an event recorded before the launch does not
                              wait for.  Behind a hold (cuStreamWaitValue32, kprof_hold) a stream is busy. */
    /* FAKEGPU_PARAM_BYTES="substr=bytes[/count],...": the parameter block of a function whose name contains
     * substr, as cuFuncGetParamInfo answers it: count parameters (default 1), 8 bytes each but the last,
     * which ends at bytes.  Another function has as many parameters of 8 bytes as it is asked about (the
     * fake cannot know how many its name says; its delay is that of 8 bytes); libkprof's kprof_* kernels as
     * their PTX declares them.  FAKEGPU_PARAM_NS_PER_KIB: every kernel (libkprof's too)
     * starts this much later per KiB of its parameter block, after whatever else delays it (the GPU takes
     * the parameters in after the event before the kernel: about 70 ns a KiB on an H200) */
    char *param_substr[8];
    uint64_t param_bytes[8], param_count[8];
    int nparams;
    uint64_t param_ns_per_kib;
    /* FAKEGPU_COMPUTE_MAJOR (default 9): the devices' compute capability (major), and the highest a PTX
     * image loaded by cuModuleLoadData may target (".target sm_XY"; above: CUDA_ERROR_UNSUPPORTED_PTX_VERSION) */
    uint64_t compute_major;
    /* FAKEGPU_SM_SHARING=1: kernels of several streams share the device's SMs as far as the fake can tell:
     * a kernel that fills the device (a grid of at least 132 SMs x min(32, 2048 / threads a block) blocks:
     * no SM has room for another block) runs alone, so a kernel of another stream whose start falls while
     * it runs starts at its end instead (the event recorded before it on its own stream is stamped when
     * its stream reaches it, before that wait), unless its stream's priority is the higher (lower number:
     * its blocks take each SM the filling kernel frees); kernels that do not fill it run side by side.
     * Kernels inside graphs and libkprof's own aside. */
    int sm_sharing;
    /* FAKEGPU_DRAINED_IDLE=1: a stream counts as idle for the launch latency as soon as its work has ended
     * on the GPU clock (the virtual host clock's), whether or not the host has seen it complete, as a GPU
     * knows nothing of what the host saw; and a kernel launched on a busy stream starts no sooner than the
     * latency after its launch either (the GPU reads its launch then).  Without it, only a stream whose
     * work the host has seen complete pays the latency, and one that ran dry unseen starts the kernel
     * after its hand-off alone.  App kernels only. */
    int drained_idle;
    uint64_t latency_per_block_ns; /* FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS: and this much later again for each
                              block of its grid (a large grid arrives later; libkprof's calibration, a
                              one-block kernel, does not see it) */
    /* FAKEGPU_LAUNCH_JITTER_NS="ns1/ns2/...": and the app's kernels (not libkprof's kprof_*) launched on an
     * idle stream later again by these in turn, one count for them all: a launch latency that varies from
     * launch to launch as the H200's does, which no calibration can take off a single launch */
    uint64_t jitter_ns[KERNEL_NS_SEQ];
    unsigned njitter, next_jitter;
    /* With the virtual host clock (hostclock.c's libfakeclock.so preloaded), the GPU clock runs with the
     * host's: GPU time = host time + FAKEGPU_CLOCK_OFFSET_NS, faster by FAKEGPU_CLOCK_DRIFT_PPM (parts per
     * million, from the clock's start); no work starts before the host has queued it; a kernel launch
     * takes FAKEGPU_LAUNCH_HOST_NS of host time, its kernel queued at the call's end; a synchronising call
     * (cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize) returns when the GPU has done what it
     * waits for; a new stream starts at the GPU's "now".  Copies take no host time. */
    uint64_t clock_offset_ns, clock_drift_ppm, launch_host_ns;
    uint64_t (*host_now)(void);     /* fakeclock_now_ns, or NULL without the virtual host clock */
    void (*host_advance)(uint64_t);
    uint64_t host_start;            /* the virtual host clock when the fake started */
    unsigned while_iters;  /* FAKEGPU_WHILE_ITERS (default 3): how often a WHILE conditional graph node
                              runs its body, whatever its handle's default value (IF and SWITCH nodes go
                              by the default value) */
} cfg;

/* The kind of the last work put on a stream, for FAKEGPU_HANDOFF_NS. */
enum work_kind { W_NONE, W_KERNEL, W_HTOD, W_DTOH, W_DTOD, W_MEMSET, W_WAIT, W_HOLD };

/* Holds (see hold_put) */
static int held_before(uint64_t stream_id, uint64_t seq);
static void holds_wait(uint64_t stream_id, uint64_t seq);
static void holds_drop_in(uintptr_t base, size_t size);
struct alloc;
static struct alloc *alloc_of(uintptr_t p);
static void mem_release(struct alloc *a);
#define ANY_STREAM UINT64_MAX

static unsigned long long env_num(const char *name, unsigned long long def, unsigned long long max)
{
    const char *s = getenv(name);
    char *end;
    unsigned long long v;

    if (!s || !*s)
        return def;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v > max || s[0] == '-') {
        fprintf(stderr, "fakegpu: %s=%s is not a number in [0, %llu]; using %llu\n", name, s, max, def);
        return def;
    }
    return v;
}

/* FAKEGPU_KERNEL_NS="gemm=5000,relu=200,default=1000": first matching substring wins.  A duration may be a
 * list, "relu=9000/1000/3000": each function's direct launches take its values in turn, from the first
 * (kernel nodes of graphs always take the first). */
static void parse_kernel_ns(void)
{
    const char *s = getenv("FAKEGPU_KERNEL_NS");
    char *copy, *tok, *save = NULL;

    cfg.kernel_ns = 1000;
    if (!s || !*s)
        return;
    copy = strdup(s);
    if (!copy)
        return;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strrchr(tok, '='), *end;
        unsigned long long ns;

        if (!eq || eq == tok) {
            fprintf(stderr, "fakegpu: FAKEGPU_KERNEL_NS entry '%s' is not substring=ns; ignored\n", tok);
            continue;
        }
        *eq = '\0';
        uint64_t seq[KERNEL_NS_SEQ];
        int nseq = 0, bad = 0;
        for (const char *v = eq + 1;; v = end + 1) {
            errno = 0;
            ns = strtoull(v, &end, 10);
            if (errno || end == v || *v == '-' || (*end && *end != '/') || nseq == KERNEL_NS_SEQ) {
                bad = 1;
                break;
            }
            seq[nseq++] = ns;
            if (!*end)
                break;
        }
        if (bad || (nseq > 1 && strcmp(tok, "default") == 0)) {
            fprintf(stderr, "fakegpu: FAKEGPU_KERNEL_NS entry '%s=%s' has a bad duration; ignored\n", tok, eq + 1);
            continue;
        }
        ns = seq[0];
        if (strcmp(tok, "default") == 0) {
            cfg.kernel_ns = ns;
        } else {
            struct kernel_rule *r = realloc(cfg.rules, (cfg.nrules + 1) * sizeof *r);
            if (!r)
                break;
            cfg.rules = r;
            r[cfg.nrules].substr = strdup(tok);
            r[cfg.nrules].ns = ns;
            memcpy(r[cfg.nrules].seq, seq, sizeof seq);
            r[cfg.nrules].nseq = nseq;
            if (r[cfg.nrules].substr)
                cfg.nrules++;
        }
    }
    free(copy);
}

/* FAKEGPU_LAUNCH_JITTER_NS="ns1/ns2/...": up to KERNEL_NS_SEQ values; a bad list is warned about and
 * ignored. */
static void parse_jitter_ns(void)
{
    const char *s = getenv("FAKEGPU_LAUNCH_JITTER_NS");
    if (!s || !*s)
        return;
    unsigned n = 0;
    for (const char *v = s;; v++) {
        char *end;
        errno = 0;
        unsigned long long ns = strtoull(v, &end, 10);
        if (errno || end == v || *v == '-' || (*end && *end != '/') || n == KERNEL_NS_SEQ || ns > 1000000000ULL) {
            fprintf(stderr, "fakegpu: FAKEGPU_LAUNCH_JITTER_NS=%s is not a list of ns (ns1/ns2/..., at most %d); "
                            "ignored\n", s, KERNEL_NS_SEQ);
            cfg.njitter = 0;
            return;
        }
        cfg.jitter_ns[n++] = ns;
        if (!*end)
            break;
        v = end;
    }
    cfg.njitter = n;
}

/* FAKEGPU_PARAM_BYTES="substr=bytes,...": bad entries are warned about and ignored. */
static void parse_param_bytes(void)
{
    const char *s = getenv("FAKEGPU_PARAM_BYTES");
    char *copy, *tok, *save = NULL;

    if (!s || !*s || !(copy = strdup(s)))
        return;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strrchr(tok, '='), *end = NULL;
        unsigned long long n = eq ? strtoull(eq + 1, &end, 10) : 0, count = 1;
        if (end && *end == '/')
            count = strtoull(end + 1, &end, 10);
        if (!eq || eq == tok || *end || n == 0 || n > 32764 || count == 0 || 8 * (count - 1) >= n ||
            cfg.nparams == 8) {
            fprintf(stderr, "fakegpu: FAKEGPU_PARAM_BYTES entry '%s' is not substring=bytes[/count] (1 to 32764 "
                            "bytes, 8 a parameter but the last); ignored\n", tok);
            continue;
        }
        *eq = '\0';
        cfg.param_substr[cfg.nparams] = strdup(tok);
        cfg.param_count[cfg.nparams] = count;
        cfg.param_bytes[cfg.nparams++] = n;
    }
    free(copy);
}

/* FAKEGPU_HANDOFF_NS="kernel=2000,memset=4800": unknown kinds and bad numbers are warned about and ignored. */
static void parse_handoff_ns(void)
{
    static const char *names[] = { NULL, "kernel", "htod", "dtoh", "dtod", "memset", "wait", "hold" };
    const char *s = getenv("FAKEGPU_HANDOFF_NS");
    char *copy, *tok, *save = NULL;

    if (!s || !*s || !(copy = strdup(s)))
        return;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end;
        unsigned long long ns;
        int k;

        if (eq)
            *eq = '\0';
        if (strcmp(tok, "beside_htod") == 0 && eq && eq[1] && eq[1] != '-') {
            errno = 0;
            ns = strtoull(eq + 1, &end, 10);
            if (!errno && !*end) {
                cfg.beside_htod_ns = ns;
                continue;
            }
        }
        for (k = W_KERNEL; k <= W_HOLD; k++)
            if (strcmp(tok, names[k]) == 0)
                break;
        errno = 0;
        ns = eq ? strtoull(eq + 1, &end, 10) : 0;
        if (!eq || k > W_HOLD || errno || *end || eq[1] == '\0' || eq[1] == '-') {
            fprintf(stderr, "fakegpu: FAKEGPU_HANDOFF_NS entry '%s' is not kind=ns "
                    "(kernel, htod, dtoh, dtod, memset, wait, hold, beside_htod); ignored\n", tok);
            continue;
        }
        cfg.handoff_ns[k] = ns;
    }
    free(copy);
}

static void load_config(void)
{
    cfg.devices = (int)env_num("FAKEGPU_DEVICES", 1, 64);
    cfg.uuid_base = (unsigned long)env_num("FAKEGPU_UUID_BASE", 0, 0xffffffffUL);
    cfg.ctx_init_ms = (long)env_num("FAKEGPU_CTX_INIT_MS", 20, 600000);
    cfg.copy_ps_per_byte = env_num("FAKEGPU_COPY_PS_PER_BYTE", 1000, 1000000000ULL);
    cfg.pending_queries = (unsigned)env_num("FAKEGPU_EVENT_PENDING_QUERIES", 0, 1000000000ULL);
    cfg.hang = env_num("FAKEGPU_HANG", 0, 1) != 0;
    cfg.compute_major = env_num("FAKEGPU_COMPUTE_MAJOR", 9, 99);
    cfg.sm_sharing = env_num("FAKEGPU_SM_SHARING", 0, 1) != 0;
    cfg.drained_idle = env_num("FAKEGPU_DRAINED_IDLE", 0, 1) != 0;
    cfg.report_holds = env_num("FAKEGPU_REPORT_HOLDS", 0, 1) != 0;
    cfg.mem_bytes = (size_t)env_num("FAKEGPU_MEM_BYTES", 1ULL << 30, 1ULL << 48);
    cfg.truth_path = getenv("FAKEGPU_TRUTH");
    cfg.truth_queries = env_num("FAKEGPU_TRUTH_QUERIES", 0, 1) != 0;
    cfg.reuse_ctx_handle = env_num("FAKEGPU_REUSE_CTX_HANDLE", 0, 1) != 0;
    cfg.reuse_func_handle = env_num("FAKEGPU_REUSE_FUNC_HANDLE", 0, 1) != 0;
    const char *reuse_streams = getenv("FAKEGPU_REUSE_STREAM_HANDLE");
    cfg.reuse_stream_handle = reuse_streams && strcmp(reuse_streams, "-1") == 0 ? -1
                              : env_num("FAKEGPU_REUSE_STREAM_HANDLE", 0, 1) != 0;
    cfg.query_delay_us = (unsigned long)env_num("FAKEGPU_FIRST_QUERY_DELAY_US", 0, 10000000);
    cfg.event_ns = env_num("FAKEGPU_EVENT_NS", 0, 1000000000ULL);
    const char *later = getenv("FAKEGPU_KERNEL_LATER"), *leq = later ? strrchr(later, '=') : NULL;
    if (leq && leq > later && sscanf(leq + 1, "%llu:%llu", (unsigned long long *)&cfg.later_after,
                                     (unsigned long long *)&cfg.later_ns) == 2)
        cfg.later_substr = strndup(later, (size_t)(leq - later));
    cfg.event_record_host_ns = env_num("FAKEGPU_EVENT_RECORD_HOST_NS", 0, 1000000000ULL);
    cfg.event_seen_ns = env_num("FAKEGPU_EVENT_SEEN_NS", 0, 1000000000ULL);
    const char *sf = getenv("FAKEGPU_EVENT_SEEN_FAST");
    if (sf && *sf && (sscanf(sf, "%llu/%lu", (unsigned long long *)&cfg.seen_fast_ns, &cfg.seen_fast_every) != 2 ||
                      cfg.seen_fast_every == 0)) {
        fprintf(stderr, "fakegpu: FAKEGPU_EVENT_SEEN_FAST=%s is not ns/every; ignored\n", sf);
        cfg.seen_fast_every = 0;
    }
    cfg.query_host_ns = env_num("FAKEGPU_QUERY_HOST_NS", 0, 1000000000ULL);
    parse_kernel_ns();
    parse_handoff_ns();
    cfg.calib_c0_ns = env_num("FAKEGPU_CALIB_C0_NS", 600, 1000000000ULL);
    cfg.lazy_load_ns = env_num("FAKEGPU_LAZY_LOAD_NS", 0, 1000000000000ULL);
    cfg.launch_latency_ns = env_num("FAKEGPU_LAUNCH_LATENCY_NS", 0, 1000000000000ULL);
    cfg.latency_per_block_ns = env_num("FAKEGPU_LAUNCH_LATENCY_PER_BLOCK_NS", 0, 1000000000ULL);
    parse_jitter_ns();
    cfg.param_ns_per_kib = env_num("FAKEGPU_PARAM_NS_PER_KIB", 0, 1000000000ULL);
    parse_param_bytes();
    cfg.host_now = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "fakeclock_now_ns");
    cfg.host_advance = (void (*)(uint64_t))dlsym(RTLD_DEFAULT, "fakeclock_advance");
    if (!cfg.host_advance)
        cfg.host_now = NULL;
    cfg.host_start = cfg.host_now ? cfg.host_now() : 0;
    cfg.clock_offset_ns = env_num("FAKEGPU_CLOCK_OFFSET_NS", 0, 1000000000000000ULL);
    cfg.clock_drift_ppm = env_num("FAKEGPU_CLOCK_DRIFT_PPM", 0, 100000);
    cfg.launch_host_ns = env_num("FAKEGPU_LAUNCH_HOST_NS", 0, 1000000000ULL);
    cfg.while_iters = (unsigned)env_num("FAKEGPU_WHILE_ITERS", 3, 1000000);
    const char *lr = getenv("FAKEGPU_RECORD_LATE_US"), *req = lr ? strchr(lr, '=') : NULL;
    if (req && req > lr && sscanf(req + 1, "%lu/%lu", &cfg.late_us, &cfg.late_every) == 2 && cfg.late_every)
        cfg.late_name = strndup(lr, (size_t)(req - lr));
    else if (lr && *lr)
        fprintf(stderr, "fakegpu: FAKEGPU_RECORD_LATE_US=%s is not name=us/n; ignored\n", lr);
    const char *sl = getenv("FAKEGPU_LAUNCH_SLEEP_US"), *eq = sl ? strchr(sl, '=') : NULL;
    if (eq && eq > sl && (cfg.sleep_name = strndup(sl, (size_t)(eq - sl))))
        cfg.sleep_us = strtoul(eq + 1, NULL, 10);
    else if (sl && *sl)
        fprintf(stderr, "fakegpu: FAKEGPU_LAUNCH_SLEEP_US=%s is not name=us; ignored\n", sl);
}

/* The FAKEGPU_KERNEL_NS rule of a kernel, or NULL for the default. */
static const struct kernel_rule *kernel_rule(const char *name)
{
    for (int i = 0; i < cfg.nrules; i++)
        if (strstr(name, cfg.rules[i].substr))
            return &cfg.rules[i];
    return NULL;
}

static uint64_t kernel_duration(const char *name)
{
    const struct kernel_rule *r = kernel_rule(name);
    return r ? r->ns : cfg.kernel_ns;
}

/* ------------------------------------------------------------------ objects */

enum kind { K_CTX = 1, K_STREAM, K_EVENT, K_FUNC, K_LIB, K_GRAPH, K_NODE, K_EXEC };
enum stream_kind { S_LEGACY, S_PER_THREAD, S_USER };
enum alloc_type { A_DEVICE, A_HOST, A_MANAGED };
enum copy_kind { C_HTOD, C_DTOH, C_DTOD, C_HTOH, C_AUTO };

/* Contexts are never freed: a destroyed one stays as a tombstone so that handles which still point
 * at it (other threads' current context, old streams and events) answer CONTEXT_IS_DESTROYED. A primary
 * context that is destroyed (reset, last release) is re-created as a new struct, so with a new handle
 * value, unless FAKEGPU_REUSE_CTX_HANDLE=1 (then the same struct comes back in a new generation). */
#define FILL_KEPT 1024 /* FAKEGPU_SM_SHARING: the kernels that filled the device a context remembers */
struct CUctx_st {
    int device;
    int primary;
    int active;
    int used;      /* has been active at least once */
    unsigned gen;  /* bumped on every deactivation; streams and events remember the one they were born in */
    unsigned refs; /* primary contexts: retain count */
    unsigned flags;
    struct CUstream_st *legacy;
    uint64_t retired_t;          /* latest clock of destroyed blocking streams, still waited for by legacy */
    struct CUstream_st *streams; /* live streams of this generation, legacy and per-thread included */
    struct { uint64_t t0, t1, stream_id; int priority; } fills[FILL_KEPT]; /* FAKEGPU_SM_SHARING: the last kernels
                                                                        that filled the device */
    unsigned nfills;
};

struct CUstream_st {
    struct CUctx_st *ctx;
    unsigned gen;
    enum stream_kind kind;
    unsigned flags;
    int priority;
    unsigned long owner; /* per-thread default stream: the owning thread's fake id */
    uint64_t id;         /* never reused; events remember it instead of a pointer */
    uint64_t t;          /* virtual clock, ns */
    uint64_t sync_t;     /* what the legacy stream waits for here: the end of the work issued (a new
                            stream's clock starts at the context's "now", which nothing waits for) */
    struct CUstream_st *next;
    /* stream capture */
    CUstreamCaptureStatus cap_status;   /* NONE, ACTIVE or INVALIDATED */
    CUstreamCaptureMode cap_mode;
    unsigned long cap_thread;           /* fake id of the thread that began it */
    uint64_t cap_id;
    struct CUgraph_st *cap_graph;
    struct CUgraphNode_st *cap_last;    /* the capture's dependency set: its last node */
    struct CUstream_st *cap_next;       /* g.capturing list */
    /* FAKEGPU_HANDOFF_NS: the last work put on the stream (enum work_kind, W_NONE: none yet), g.next_seq
     * when it was (events recorded after it have a larger seq), and whether the host has seen it done */
    int last_work;
    uint64_t last_seq;
    int seen_idle;
    /* With the virtual host clock: a kprof_hold placed on the stream and not yet followed by a kernel gives
     * up at GPU time hold_give_up (0: none); hold_ev is the event recorded behind it (libkprof's start). */
    uint64_t hold_give_up, hold_stamp; /* hold_stamp: hold_ev's stamp had the hold not been there */
    unsigned char behind_hold; /* the kernel being launched was queued behind a kprof_hold (launch) */
    struct CUevent_st *hold_ev;
    int record_late; /* FAKEGPU_RECORD_LATE_US: the next event record on it comes late */
    uint64_t htod_t0, htod_t1; /* its last HtoD copy on the GPU clock (beside_htod) */
};

/* Graphs: nodes run in the order they were added (dependencies are accepted but not modelled). */
struct CUgraph_st {
    struct CUgraphNode_st *head, **tail;
    size_t n;
    const struct CUgraph_st *origin; /* what it was cloned from (compared, never dereferenced) */
};

struct CUgraphNode_st {
    struct CUgraph_st *graph;
    CUgraphNodeType type;
    /* kernel */
    struct CUfunc_st *func;
    char *name;
    uint64_t ns;
    unsigned grid[3], block[3], shmem;
    /* event record */
    struct CUevent_st *event;
    /* memcpy (1D, or a 2D/3D copy kept whole) and memset */
    int kind; /* enum copy_kind */
    uintptr_t dst, src;
    uint64_t bytes;
    int is3d;
    CUDA_MEMCPY3D p3;
    unsigned value, elem;
    /* child graph (owned by the node) */
    struct CUgraph_st *child;
    /* conditional: its handle, type and body graphs (owned by the node; the array is phGraph_out) */
    CUgraphConditionalHandle cond_handle;
    CUgraphConditionalNodeType cond_type;
    unsigned nbodies;
    struct CUgraph_st **bodies;
    const struct CUgraphNode_st *origin; /* the node it was cloned from (compared, never dereferenced) */
    struct CUgraphNode_st *next;
};

struct CUgraphExec_st {
    struct CUgraph_st *graph; /* a private copy made at instantiation */
    struct CUctx_st *ctx;
    unsigned gen;
};

struct CUevent_st {
    struct CUctx_st *ctx;
    unsigned gen;
    unsigned flags;
    int recorded;
    uint64_t t;         /* virtual time stamped at record, ns */
    uint64_t stream_id; /* stream it was last recorded on */
    uint64_t seen_ns;   /* FAKEGPU_EVENT_SEEN_NS, or FAKEGPU_EVENT_SEEN_FAST's ns for this record */
    unsigned pending;   /* cuEventQuery calls still to be answered NOT_READY */
    uint64_t seq;       /* order of the record among all records */
};

/* CUkernel and CUfunction handles are both this struct: a CUkernel may be passed where a CUfunction
 * is expected, as with the real driver. */
struct CUfunc_st {
    struct CUlib_st *lib;
    char *name;
    uint64_t ns;
    const struct kernel_rule *rule; /* its FAKEGPU_KERNEL_NS rule (a list of durations), or NULL */
    uint64_t launches;              /* direct launches so far: the next takes rule->seq[launches % nseq] */
    uint64_t direct;                /* direct launches so far, with or without a rule (FAKEGPU_KERNEL_LATER) */
    struct CUfunc_st *next;
    /* lazy loading: the contexts (and their generation) it is loaded in */
    struct loaded_in { const struct CUctx_st *ctx; unsigned gen; } *loaded;
    size_t nloaded;
};

/* Libraries and modules share one struct: both only name kernels here. */
struct CUlib_st {
    struct CUfunc_st *funcs;
};

struct handle {
    const void *key;
    enum kind kind;
    UT_hash_handle hh;
};

struct alloc {
    uintptr_t base;
    size_t size;
    enum alloc_type type;
    int registered; /* A_HOST memory of the caller's own, registered (cuMemHostRegister): never freed here */
    struct CUctx_st *ctx;
    UT_hash_handle hh;
};

/* How far each stream (by id) is known to have completed, in record order: an event is complete
 * once it, or any event recorded after it on the same stream, has completed, as on a real GPU. */
struct stream_done {
    uint64_t stream_id;
    uint64_t seq;
    UT_hash_handle hh;
};

struct kernel_truth {
    char *name;
    uint64_t launches;
    uint64_t ns;
    UT_hash_handle hh;
};

struct counter {
    uint64_t count;
    uint64_t bytes;
};

static struct {
    pthread_mutex_t lock;
    int inited;
    struct handle *handles;
    struct alloc *allocs;
    size_t mem_used;           /* device + managed bytes */
    struct CUctx_st **primary; /* [cfg.devices]: each device's current primary context struct */
    struct CUstream_st *capturing; /* streams with a capture in progress (active or invalidated) */
    uint64_t next_capture_id;
    uint64_t next_stream_id;
    uint64_t next_seq;
    /* legacy and per-thread default streams of deactivated contexts, never freed (ctx_deactivate) */
    struct CUstream_st *dead_streams;
    struct stream_done *done;
    unsigned long next_thread_id;
    struct kernel_truth *kernels;
    struct counter copies[4];  /* indexed by enum copy_kind */
    struct counter memsets;
    struct counter allocs_by_type[3];
    int truth_written;
    /* cuEventQuery calls made on the main thread, and on the others, since the app's first kernel ran (the
     * truth file's "queries" lines under FAKEGPU_TRUTH_QUERIES=1; not libkprof's calibration at the
     * context's creation) */
    unsigned long long main_queries, other_queries, harvester_queries;
    int app_ran; /* a kernel not named kprof_* has run */
    unsigned long long hold_timeout_max; /* the longest timeout a kprof_hold was given (FAKEGPU_REPORT_HOLDS) */
    int forked; /* this process is a fork() child of one that used the driver */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct CUctx_st *tl_stack[32];
static __thread int tl_depth;
static __thread unsigned long tl_id;
static __thread CUstreamCaptureMode tl_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void lock(void)
{
    pthread_once(&config_once, load_config);
    pthread_mutex_lock(&g.lock);
}

static void unlock(void)
{
    pthread_mutex_unlock(&g.lock);
}

/* FAKEGPU_ERRORS_FILE: every error a public function returns through RETURN, tallied by function and code,
 * and written at exit as lines "error FUNCTION CODE COUNT", so that a test can tell the errors a profiler's
 * own calls got from the program's.  The queries' "not ready" is an answer, not an error, and returns
 * through NOT_READY_ANSWER; from any other function (cuEventElapsedTime on an event still pending) it is
 * tallied, as compute-sanitizer reports it ("Program hit CUDA_ERROR_NOT_READY").  Called with g.lock held. */
#define MAX_ERROR_KINDS 64
static struct error_tally { const char *fn; CUresult rc; unsigned long n; } errors[MAX_ERROR_KINDS];
static int nerrors;

static void count_error(const char *fn, CUresult rc)
{
    if (rc == CUDA_SUCCESS)
        return;
    for (int i = 0; i < nerrors; i++)
        if (errors[i].rc == rc && strcmp(errors[i].fn, fn) == 0) {
            errors[i].n++;
            return;
        }
    if (nerrors < MAX_ERROR_KINDS)
        errors[nerrors++] = (struct error_tally){ fn, rc, 1 };
}

/* Every public function takes the lock once, calls static helpers, and unlocks through this. */
#define RETURN(rc) do { CUresult rc_ = (rc); count_error(__func__, rc_); unlock(); return rc_; } while (0)
/* cuEventQuery's and cuStreamQuery's "not ready": an answer, not tallied. */
#define NOT_READY_ANSWER() do { unlock(); return CUDA_ERROR_NOT_READY; } while (0)

static int reg(const void *obj, enum kind kind)
{
    struct handle *h = calloc(1, sizeof *h);

    if (!h)
        return -1;
    h->key = obj;
    h->kind = kind;
    HASH_ADD_PTR(g.handles, key, h);
    return 0;
}

static void *find(const void *obj, enum kind kind)
{
    struct handle *h;

    if (!obj)
        return NULL;
    HASH_FIND_PTR(g.handles, &obj, h);
    return h && h->kind == kind ? (void *)obj : NULL;
}

static void unreg(const void *obj)
{
    struct handle *h;

    HASH_FIND_PTR(g.handles, &obj, h);
    if (h) {
        HASH_DEL(g.handles, h);
        free(h);
    }
}

static struct CUctx_st *current(void)
{
    return tl_depth ? tl_stack[tl_depth - 1] : NULL;
}

static CUresult need_ctx(struct CUctx_st **out)
{
    struct CUctx_st *c;

    if (!g.inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    c = current();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!c->active)
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    *out = c;
    return CUDA_SUCCESS;
}

static CUresult check_device(CUdevice dev)
{
    if (!g.inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    return dev >= 0 && dev < cfg.devices ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static unsigned long thread_id(void)
{
    if (!tl_id)
        tl_id = ++g.next_thread_id;
    return tl_id;
}

/* ------------------------------------------------------------------ contexts and streams */

static struct CUstream_st *spare_stream; /* FAKEGPU_REUSE_STREAM_HANDLE: the last stream destroyed */

static struct CUstream_st *stream_new(struct CUctx_st *c, enum stream_kind kind, unsigned flags, int prio)
{
    struct CUstream_st *s = spare_stream ? spare_stream : calloc(1, sizeof *s);

    if (s == spare_stream && s) {
        spare_stream = NULL;
        memset(s, 0, sizeof *s);
    }
    if (!s)
        return NULL;
    s->ctx = c;
    s->gen = c->gen;
    s->kind = kind;
    s->flags = flags;
    s->priority = prio;
    s->id = ++g.next_stream_id;
    s->next = c->streams;
    c->streams = s;
    return s;
}

static void stream_unlink(struct CUstream_st *s)
{
    struct CUstream_st **p;

    for (p = &s->ctx->streams; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

static CUresult ctx_activate(struct CUctx_st *c)
{
    /* Real context creation costs hundreds of ms; tests use this to see that it is not charged to a kernel. */
    if (cfg.ctx_init_ms > 0)
        sleep_ms(cfg.ctx_init_ms);
    c->active = 1;
    c->retired_t = 0;
    c->streams = NULL;
    c->legacy = stream_new(c, S_LEGACY, 0, 0);
    return c->legacy ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static void graph_free(struct CUgraph_st *gr);

/* Ends s's capture, if any, dropping what it captured. */
static void capture_drop(struct CUstream_st *s)
{
    struct CUstream_st **p;

    if (s->cap_status == CU_STREAM_CAPTURE_STATUS_NONE)
        return;
    for (p = &g.capturing; *p; p = &(*p)->cap_next)
        if (*p == s) {
            *p = s->cap_next;
            break;
        }
    s->cap_next = NULL;
    s->cap_status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (s->cap_graph)
        graph_free(s->cap_graph);
    s->cap_graph = NULL;
    s->cap_last = NULL;
}

/* Destroy, reset or last release: everything born in this generation becomes unusable. */
static void ctx_deactivate(struct CUctx_st *c)
{
    struct CUstream_st *s, *next;
    struct alloc *a, *tmp;

    c->active = 0;
    for (s = g.capturing; s; s = next) {
        next = s->cap_next;
        if (s->ctx == c)
            capture_drop(s);
    }
    c->gen++;
    for (s = c->streams; s; s = next) {
        next = s->next;
        s->next = NULL;
        if (s->kind != S_USER) { /* never handed out as a handle, but a call on another thread that waits */
            s->next = g.dead_streams; /* for a hold (holds_wait: the lock let go) may still hold it: kept */
            g.dead_streams = s;
        }
        /* user streams stay registered as tombstones until cuStreamDestroy */
    }
    c->streams = NULL;
    c->legacy = NULL;
    HASH_ITER(hh, g.allocs, a, tmp) {
        if (a->ctx != c)
            continue;
        if (a->type != A_HOST)
            g.mem_used -= a->size;
        holds_drop_in(a->base, a->size); /* their kernels end with the context; a waiting call reads no word */
        HASH_DEL(g.allocs, a);
        mem_release(a); /* registered memory is the caller's: only its registration ends */
        free(a);
    }
}

static struct CUctx_st *primary_new(int dev, unsigned flags)
{
    struct CUctx_st *c = calloc(1, sizeof *c);

    if (!c)
        return NULL;
    c->device = dev;
    c->primary = 1;
    c->flags = flags;
    if (reg(c, K_CTX)) {
        free(c);
        return NULL;
    }
    return c;
}

static CUresult primary_init(void)
{
    if (g.primary)
        return CUDA_SUCCESS;
    g.primary = calloc((size_t)cfg.devices, sizeof *g.primary);
    if (!g.primary)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (int d = 0; d < cfg.devices; d++)
        if (!(g.primary[d] = primary_new(d, 0)))
            return CUDA_ERROR_OUT_OF_MEMORY;
    return CUDA_SUCCESS;
}

static struct CUstream_st *per_thread_stream(struct CUctx_st *c)
{
    unsigned long me = thread_id();

    for (struct CUstream_st *s = c->streams; s; s = s->next)
        if (s->kind == S_PER_THREAD && s->owner == me)
            return s;
    struct CUstream_st *s = stream_new(c, S_PER_THREAD, 0, 0);
    if (s)
        s->owner = me;
    return s;
}

static int stream_alive(const struct CUstream_st *s)
{
    return s->ctx->active && s->gen == s->ctx->gen;
}

/* NULL means the legacy stream, or with ptds (the _ptsz/_ptds entry points) the per-thread one. */
static CUresult get_stream_any(CUstream h, int ptds, struct CUstream_st **out)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult rc;

    if (!h)
        h = ptds ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    if (h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        if ((rc = need_ctx(&c)))
            return rc;
        s = h == CU_STREAM_LEGACY ? c->legacy : per_thread_stream(c);
        if (!s)
            return CUDA_ERROR_OUT_OF_MEMORY;
        *out = s;
        return CUDA_SUCCESS;
    }
    if (!g.inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    s = find(h, K_STREAM);
    if (!s)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!stream_alive(s))
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    *out = s;
    return CUDA_SUCCESS;
}

static void invalidate(struct CUstream_st *s)
{
    if (s->cap_status == CU_STREAM_CAPTURE_STATUS_ACTIVE)
        s->cap_status = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
}

/* The legacy stream synchronizes implicitly with every blocking stream of its context, which a capture
 * cannot express: using it while such a stream captures fails and invalidates that capture. */
static CUresult legacy_check(const struct CUstream_st *s)
{
    int hit = 0;

    if (s->kind != S_LEGACY)
        return CUDA_SUCCESS;
    for (struct CUstream_st *o = g.capturing; o; o = o->cap_next)
        if (o->ctx == s->ctx && !(o->flags & CU_STREAM_NON_BLOCKING)) {
            invalidate(o);
            hit = 1;
        }
    return hit ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_SUCCESS;
}

/* get_stream_any, for an operation that uses the stream (enqueues, waits or asks about capture). */
static CUresult get_stream(CUstream h, int ptds, struct CUstream_st **out)
{
    CUresult rc = get_stream_any(h, ptds, out);

    return rc ? rc : legacy_check(*out);
}

/* A "potentially unsafe" call (synchronizing, querying, allocating, freeing, synchronous copies) under
 * the rules of CUstreamCaptureMode: forbidden, in a thread whose mode is not RELAXED, while this
 * thread has a non-relaxed capture in progress or, in GLOBAL mode, while any thread has a GLOBAL one.
 * The call then fails and the captures that forbade it are invalidated. */
static CUresult unsafe_call(void)
{
    unsigned long me;
    int hit = 0;

    if (!g.capturing || tl_capture_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_SUCCESS;
    me = thread_id();
    for (struct CUstream_st *o = g.capturing; o; o = o->cap_next) {
        if (o->cap_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
            continue;
        if (o->cap_thread == me ||
            (tl_capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && o->cap_mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
            invalidate(o);
            hit = 1;
        }
    }
    return hit ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* Work for a capturing stream: NULL (with *rc set) when the capture was invalidated or memory ran out,
 * else a new node at the end of the capture's graph. */
static struct CUgraphNode_st *node_add(struct CUgraph_st *gr, CUgraphNodeType type);

static struct CUgraphNode_st *capture_node(struct CUstream_st *s, CUgraphNodeType type, CUresult *rc)
{
    struct CUgraphNode_st *n;

    if (s->cap_status == CU_STREAM_CAPTURE_STATUS_INVALIDATED) {
        *rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        return NULL;
    }
    if (!(n = node_add(s->cap_graph, type))) {
        *rc = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    s->cap_last = n;
    *rc = CUDA_SUCCESS;
    return n;
}

/* The GPU clock now (with the virtual host clock), or 0: no work starts before the host has queued it. */
static uint64_t gpu_now(void)
{
    if (!cfg.host_now)
        return 0;
    uint64_t h = cfg.host_now() - cfg.host_start;
    return cfg.clock_offset_ns + cfg.host_start + h + (uint64_t)((unsigned __int128)h * cfg.clock_drift_ppm / 1000000u);
}

/* A synchronising call returns once the GPU clock has reached gpu_t: the virtual host clock moves on to
 * the first host time at which it has. */
static void host_waits(uint64_t gpu_t)
{
    uint64_t now = gpu_now();
    if (!cfg.host_now || gpu_t <= now)
        return;
    uint64_t h = cfg.host_now() - cfg.host_start;
    uint64_t g = gpu_t - cfg.clock_offset_ns - cfg.host_start; /* host + drift at the target */
    uint64_t target = (uint64_t)(((unsigned __int128)g * 1000000u + (1000000u + cfg.clock_drift_ppm) - 1) /
                                 (1000000u + cfg.clock_drift_ppm));
    if (target > h)
        cfg.host_advance(target - h);
}

/* When the next op on s may start: the legacy stream waits for every blocking stream of its
 * context, a blocking stream waits for the legacy stream, a non-blocking stream waits for nobody. */
static uint64_t start_time(const struct CUstream_st *s)
{
    uint64_t t = s->t, now = gpu_now();
    if (now > t)
        t = now;

    if (s->kind == S_LEGACY) {
        if (s->ctx->retired_t > t)
            t = s->ctx->retired_t;
        for (const struct CUstream_st *o = s->ctx->streams; o; o = o->next)
            if (!(o->flags & CU_STREAM_NON_BLOCKING) && o->sync_t > t)
                t = o->sync_t;
    } else if (!(s->flags & CU_STREAM_NON_BLOCKING) && s->ctx->legacy && s->ctx->legacy->t > t) {
        t = s->ctx->legacy->t;
    }
    return t;
}

static uint64_t advance(struct CUstream_st *s, uint64_t ns)
{
    uint64_t t0 = start_time(s);

    s->t = s->sync_t = t0 + ns;
    return t0;
}

static void work_put(struct CUstream_st *s, int k);
static uint64_t handoff(const struct CUstream_st *s);

/* A kernel of ns and `blocks` blocks on s that also waits delay_ns (lazy loading) and the hand-off of s's
 * last work before starting, or on an idle stream the launch latency (and, app set, the next
 * FAKEGPU_LAUNCH_JITTER_NS); answers its start time. */
/* FAKEGPU_SM_SHARING: the earliest time from t0 at which a kernel of s, `blocks` blocks of `threads`, ns
 * long, finds room on the device: not inside a kernel of another stream that fills it (of no lower
 * priority), nor, if it fills the device itself, over any part of one (the fake places kernels in the
 * order they are launched, so one launched later may be placed before one placed already); noted if it
 * fills the device. */
static int attribute(CUdevice_attribute a, CUdevice dev);
static uint64_t sm_room(struct CUstream_st *s, uint64_t t0, uint64_t blocks, uint64_t threads, uint64_t ns)
{
    struct CUctx_st *c = s->ctx;
    unsigned n = c->nfills < FILL_KEPT ? c->nfills : FILL_KEPT;
    /* As the device's attributes say (attribute(), below), which libkprof reads for the same test. */
    uint64_t sms = (uint64_t)attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
    uint64_t most = (uint64_t)attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 0);
    uint64_t per_sm = threads ? (uint64_t)attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 0) / threads : most;
    int fills = blocks >= sms * (per_sm < most ? per_sm : most);
    for (int moved = 1; moved;) {
        moved = 0;
        for (unsigned i = 0; i < n; i++)
            if (c->fills[i].stream_id != s->id && c->fills[i].priority <= s->priority && t0 < c->fills[i].t1 &&
                (fills ? c->fills[i].t0 < t0 + ns : c->fills[i].t0 <= t0)) {
                t0 = c->fills[i].t1;
                moved = 1;
            }
    }
    if (fills) {
        unsigned i = c->nfills++ % FILL_KEPT;
        c->fills[i].t0 = t0;
        c->fills[i].t1 = t0 + ns;
        c->fills[i].stream_id = s->id;
        c->fills[i].priority = s->priority;
    }
    return t0;
}

static uint64_t kernel_advance(struct CUstream_st *s, uint64_t delay_ns, uint64_t blocks, uint64_t ns, int app,
                               uint64_t threads)
{
    int idle = s->last_work == W_NONE || s->seen_idle;
    int read_late = cfg.drained_idle && app && !s->behind_hold; /* FAKEGPU_DRAINED_IDLE applies */
    uint64_t now = read_late ? gpu_now() : 0;
    int drained = read_late && !idle && start_time(s) <= now;
    idle |= drained;
    if (idle && app && cfg.njitter) /* FAKEGPU_LAUNCH_JITTER_NS */
        delay_ns += cfg.jitter_ns[cfg.next_jitter++ % cfg.njitter];
    uint64_t base = start_time(s), h = drained ? 0 : handoff(s);
    for (const struct CUstream_st *o = s->ctx->streams; cfg.beside_htod_ns && o; o = o->next)
        if (o != s && o->htod_t0 <= base && base < o->htod_t1) { /* as long as behind a kernel, and more */
            uint64_t waited = (idle ? 0 : cfg.handoff_ns[W_KERNEL]) + cfg.beside_htod_ns;
            h = idle ? h + waited : h > waited ? h : waited;
            break;
        }
    uint64_t latency = cfg.launch_latency_ns + cfg.latency_per_block_ns * blocks;
    uint64_t t0 = base + h + delay_ns + (idle ? latency : 0);
    if (read_late && !idle && t0 < now + delay_ns + latency) /* the GPU reads the launch only then */
        t0 = now + delay_ns + latency;
    if (cfg.sm_sharing && app)
        t0 = sm_room(s, t0, blocks, threads, ns);

    s->t = s->sync_t = t0 + ns;
    work_put(s, W_KERNEL);
    return t0;
}

static uint64_t bytes_ns(uint64_t bytes)
{
    return bytes * cfg.copy_ps_per_byte / 1000;
}

/* FAKEGPU_HANDOFF_NS: notes work of kind k (enum work_kind) just put on s. */
static void work_put(struct CUstream_st *s, int k)
{
    s->last_work = k;
    s->last_seq = g.next_seq;
    s->seen_idle = 0;
}

/* The host has seen e complete (a synchronize, or a query answering CUDA_SUCCESS): its stream is idle
 * if e was recorded after the stream's last work. */
static void event_seen(const struct CUevent_st *e)
{
    if (!e->ctx->active || e->gen != e->ctx->gen)
        return;
    for (struct CUstream_st *s = e->ctx->streams; s; s = s->next)
        if (s->id == e->stream_id && e->seq > s->last_seq)
            s->seen_idle = 1;
}

/* The hand-off a kernel launched on s now waits for: 0 on an idle stream (no work yet, or its last work
 * seen complete by the host). */
static uint64_t handoff(const struct CUstream_st *s)
{
    if (s->last_work == W_NONE || s->seen_idle)
        return 0;
    return cfg.handoff_ns[s->last_work];
}

/* ------------------------------------------------------------------ initialisation and devices */

CUresult cuInit(unsigned int Flags)
{
    CUresult rc;

    lock();
    if (Flags != 0)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (g.forked) /* as with the real driver, a forked child cannot use CUDA */
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (cfg.devices == 0)
        RETURN(CUDA_ERROR_NO_DEVICE);
    if ((rc = primary_init()))
        RETURN(rc);
    g.inited = 1;
    RETURN(CUDA_SUCCESS);
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = FAKE_VERSION;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult rc;

    lock();
    if ((rc = check_device(ordinal)))
        RETURN(rc);
    if (!device)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *device = ordinal;
    RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceGetCount(int *count)
{
    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!count)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *count = cfg.devices;
    RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!name || len <= 0)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    snprintf(name, (size_t)len, "Fake GPU");
    RETURN(CUDA_SUCCESS);
}

/* The device's UUID (FAKEGPU_UUID_BASE); cuDeviceGetUuid (CUDA 9.2) and its _v2 (11.4) answer the same. */
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!uuid)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    unsigned long long n = (unsigned long long)cfg.uuid_base + (unsigned long long)dev;
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    uuid->bytes[0] = (char)0xfa;
    uuid->bytes[1] = 0x4e;
    for (int i = 0; i < 6; i++)
        uuid->bytes[15 - i] = (char)(n >> (8 * i));
    RETURN(CUDA_SUCCESS);
}
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

/* Values of an H100-class part, so that programs which size launches from them behave. */
static int attribute(CUdevice_attribute a, CUdevice dev)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 233472;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 52428800;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return (int)cfg.compute_major;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 2;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x10 + dev;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
        return 1;
    default:
        return 0;
    }
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!pi)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *pi = attribute(attrib, dev);
    RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!bytes)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *bytes = cfg.mem_bytes;
    RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    size_t b;
    CUresult rc = cuDeviceTotalMem_v2(&b, dev);

    if (rc == CUDA_SUCCESS && bytes)
        *bytes = b > 0xffffffffu ? 0xffffffffu : (unsigned int)b;
    return rc;
}

/* ------------------------------------------------------------------ contexts */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!pctx)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    c = g.primary[dev];
    if (!c->active) {
        /* A destroyed primary context comes back as a new one: a new handle unless told to reuse it. */
        if (c->used && !cfg.reuse_ctx_handle) {
            struct CUctx_st *n = primary_new(dev, c->flags);
            if (!n)
                RETURN(CUDA_ERROR_OUT_OF_MEMORY);
            g.primary[dev] = c = n;
        }
        if ((rc = ctx_activate(c)))
            RETURN(rc);
        c->used = 1;
        c->refs = 0;
    }
    c->refs++;
    *pctx = c;
    RETURN(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    c = g.primary[dev];
    if (c->refs == 0)
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (--c->refs == 0)
        ctx_deactivate(c);
    RETURN(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

/* Reset destroys the context now whoever holds it; the retain count survives, as with the real
 * driver, so the next use re-creates the context. */
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    c = g.primary[dev];
    if (c->active)
        ctx_deactivate(c);
    c->refs = 0;
    RETURN(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!flags || !active)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *flags = g.primary[dev]->flags;
    *active = g.primary[dev]->active;
    RETURN(CUDA_SUCCESS);
}

static CUresult ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = check_device(dev)))
        RETURN(rc);
    if (!pctx)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (tl_depth == (int)(sizeof tl_stack / sizeof tl_stack[0]))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    c = calloc(1, sizeof *c);
    if (!c)
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    c->device = dev;
    c->flags = flags;
    if ((rc = ctx_activate(c)) || reg(c, K_CTX)) {
        free(c->legacy);
        free(c);
        RETURN(rc ? rc : CUDA_ERROR_OUT_OF_MEMORY);
    }
    tl_stack[tl_depth++] = c;
    *pctx = c;
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev)
{
    (void)ctxCreateParams;
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags,
                        CUdevice dev)
{
    (void)paramsArray;
    (void)numParams;
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    struct CUctx_st *c;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    c = find(ctx, K_CTX);
    if (!c || c->primary)
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!c->active)
        RETURN(CUDA_ERROR_CONTEXT_IS_DESTROYED);
    ctx_deactivate(c);
    if (current() == c)
        tl_depth--;
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!pctx)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *pctx = current();
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!ctx) {
        if (tl_depth)
            tl_depth--;
        RETURN(CUDA_SUCCESS);
    }
    if (!find(ctx, K_CTX))
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (tl_depth)
        tl_stack[tl_depth - 1] = ctx;
    else
        tl_stack[tl_depth++] = ctx;
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!find(ctx, K_CTX))
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (tl_depth == (int)(sizeof tl_stack / sizeof tl_stack[0]))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    tl_stack[tl_depth++] = ctx;
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!tl_depth)
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    tl_depth--;
    if (pctx)
        *pctx = tl_stack[tl_depth];
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

CUresult cuCtxGetDevice(CUdevice *device)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!device)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *device = c->device;
    RETURN(CUDA_SUCCESS);
}

CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if (!ctx) {
        if ((rc = need_ctx(&c)))
            RETURN(rc);
    } else if (!(c = find(ctx, K_CTX))) {
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    }
    if (!device)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *device = c->device;
    RETURN(CUDA_SUCCESS);
}

static struct stream_done *stream_done_of(uint64_t stream_id)
{
    struct stream_done *d;

    HASH_FIND(hh, g.done, &stream_id, sizeof stream_id, d);
    return d;
}

/* Marks e complete, and with it every event recorded before it on the same stream. */
static void event_done(struct CUevent_st *e)
{
    struct stream_done *d = stream_done_of(e->stream_id);

    e->pending = 0;
    if (!d && (d = calloc(1, sizeof *d))) {
        d->stream_id = e->stream_id;
        HASH_ADD(hh, g.done, stream_id, sizeof d->stream_id, d);
    }
    if (d && e->seq > d->seq)
        d->seq = e->seq;
}

/* Synchronising completes every event recorded so far (unless FAKEGPU_HANG); the clock is
 * virtual, so nothing is waited for. stream_id 0 means every stream of the context. */
static void complete_events(const struct CUctx_st *c, uint64_t stream_id)
{
    struct handle *h, *tmp;

    if (cfg.hang)
        return;
    for (struct CUstream_st *s = c->streams; s; s = s->next)
        if (!stream_id || s->id == stream_id)
            s->seen_idle = 1; /* FAKEGPU_HANDOFF_NS: its work so far is seen complete */
    HASH_ITER(hh, g.handles, h, tmp) {
        struct CUevent_st *e = (struct CUevent_st *)h->key;

        if (h->kind != K_EVENT || e->ctx != c || e->gen != c->gen)
            continue;
        if (e->recorded && (!stream_id || e->stream_id == stream_id))
            event_done(e);
    }
}

static CUresult ctx_sync(struct CUctx_st *c)
{
    if (!c->active)
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    holds_wait(ANY_STREAM, ANY_STREAM);
    for (struct CUstream_st *s = c->streams; s; s = s->next)
        host_waits(s->t);
    complete_events(c, 0);
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = unsafe_call()))
        RETURN(rc);
    RETURN(ctx_sync(c));
}

CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if (!ctx) {
        if ((rc = need_ctx(&c)))
            RETURN(rc);
    } else if (!(c = find(ctx, K_CTX))) {
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    }
    if ((rc = unsafe_call()))
        RETURN(rc);
    RETURN(ctx_sync(c));
}

/* ------------------------------------------------------------------ errors */

#define FAKE_ERRORS(X) \
    X(CUDA_SUCCESS, "no error") \
    X(CUDA_ERROR_INVALID_VALUE, "invalid argument") \
    X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory") \
    X(CUDA_ERROR_NOT_INITIALIZED, "initialization error") \
    X(CUDA_ERROR_DEINITIALIZED, "driver shutting down") \
    X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected") \
    X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal") \
    X(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid") \
    X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context") \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed") \
    X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle") \
    X(CUDA_ERROR_NOT_FOUND, "named symbol not found") \
    X(CUDA_ERROR_NOT_READY, "device not ready") \
    X(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure") \
    X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported") \
    X(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state") \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing") \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture") \
    X(CUDA_ERROR_STREAM_CAPTURE_MERGE, "operation would result in a merge of separate capture sequences") \
    X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not ended in the same stream as it began") \
    X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work") \
    X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "dependency created on uncaptured work in another stream") \
    X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "operation would make the legacy stream depend on a capturing blocking stream") \
    X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "attempt to terminate a thread-local capture sequence from another thread") \
    X(CUDA_ERROR_UNKNOWN, "unknown error")

CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
#define X(code, text) case code: *pStr = text; return CUDA_SUCCESS;
    FAKE_ERRORS(X)
#undef X
    default:
        *pStr = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
#define X(code, text) case code: *pStr = #code; return CUDA_SUCCESS;
    FAKE_ERRORS(X)
#undef X
    default:
        *pStr = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* ------------------------------------------------------------------ streams */

static CUresult stream_create(CUstream *phStream, unsigned int flags, int priority)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    s = stream_new(c, S_USER, flags, priority);
    if (!s)
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    /* A new stream starts at the context's "now" (its latest clock), so that its work cannot appear
     * to run before work issued earlier on other streams. */
    for (struct CUstream_st *o = c->streams; o; o = o->next)
        if (o->t > s->t && !cfg.host_now)
            s->t = o->t;
    if (cfg.host_now)
        s->t = gpu_now();
    if (reg(s, K_STREAM)) {
        stream_unlink(s);
        free(s);
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *phStream = s;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return stream_create(phStream, Flags, 0);
}

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    return stream_create(phStream, flags, priority);
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    struct CUstream_st *s;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    s = find(hStream, K_STREAM);
    if (!s)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    unreg(s);
    capture_drop(s);
    if (!stream_alive(s)) {
        free(s);
        RETURN(CUDA_ERROR_CONTEXT_IS_DESTROYED);
    }
    /* Work already issued to it still holds up the legacy stream. */
    if (!(s->flags & CU_STREAM_NON_BLOCKING) && s->sync_t > s->ctx->retired_t)
        s->ctx->retired_t = s->sync_t;
    stream_unlink(s);
    if (cfg.reuse_stream_handle > 0) {
        free(spare_stream);
        spare_stream = s;
    } else if (cfg.reuse_stream_handle < 0) {
        /* kept (and reachable, for the leak checker), so that no later stream gets its address */
        static struct CUstream_st **kept;
        static size_t nkept;
        struct CUstream_st **k = realloc(kept, (nkept + 1) * sizeof *k);
        if (k) {
            kept = k;
            kept[nkept++] = s;
        }
    } else {
        free(s);
    }
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamDestroy(CUstream hStream)
{
    return cuStreamDestroy_v2(hStream);
}

static CUresult stream_sync(CUstream h, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = unsafe_call()) || (rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) { /* even in RELAXED mode */
        invalidate(s);
        RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    /* A legacy-stream sync also waits for the blocking streams it depends on: complete them all. */
    holds_wait(s->kind == S_LEGACY ? ANY_STREAM : s->id, ANY_STREAM);
    host_waits(s->t);
    complete_events(s->ctx, s->kind == S_LEGACY ? 0 : s->id);
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamSynchronize(CUstream hStream) { return stream_sync(hStream, 0); }
CUresult cuStreamSynchronize_ptsz(CUstream hStream) { return stream_sync(hStream, 1); }

static CUresult stream_query(CUstream h, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = unsafe_call()) || (rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        invalidate(s);
        RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    if (cfg.hang || held_before(s->id, UINT64_MAX))
        NOT_READY_ANSWER();
    s->seen_idle = 1; /* FAKEGPU_HANDOFF_NS: the host has seen its work done */
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamQuery(CUstream hStream) { return stream_query(hStream, 0); }
CUresult cuStreamQuery_ptsz(CUstream hStream) { return stream_query(hStream, 1); }

static CUresult stream_get_ctx(CUstream h, CUcontext *pctx, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream_any(h, ptds, &s)))
        RETURN(rc);
    if (!pctx)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *pctx = s->ctx;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) { return stream_get_ctx(hStream, pctx, 0); }
CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) { return stream_get_ctx(hStream, pctx, 1); }

static CUresult stream_get_flags(CUstream h, unsigned int *flags, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream_any(h, ptds, &s)))
        RETURN(rc);
    if (!flags)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *flags = s->flags;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) { return stream_get_flags(hStream, flags, 0); }
CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) { return stream_get_flags(hStream, flags, 1); }

static CUresult stream_get_priority(CUstream h, int *priority, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream_any(h, ptds, &s)))
        RETURN(rc);
    if (!priority)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *priority = s->priority;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamGetPriority(CUstream hStream, int *priority) { return stream_get_priority(hStream, priority, 0); }
CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority) { return stream_get_priority(hStream, priority, 1); }

static CUresult stream_is_capturing(CUstream h, CUstreamCaptureStatus *st, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (!st)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *st = s->cap_status;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return stream_is_capturing(hStream, captureStatus, 0);
}

CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return stream_is_capturing(hStream, captureStatus, 1);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    CUstreamCaptureMode old;

    if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    old = tl_capture_mode;
    tl_capture_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ events */

static int event_alive(const struct CUevent_st *e)
{
    return e->ctx->active && e->gen == e->ctx->gen;
}

static int event_complete(const struct CUevent_st *e)
{
    const struct stream_done *d;

    if (cfg.hang)
        return 0;
    if (e->pending == 0)
        return 1;
    d = stream_done_of(e->stream_id);
    return d && e->seq <= d->seq;
}

/* Looks an event up; CUDA_SUCCESS only for a live one. */
static CUresult get_event(CUevent h, struct CUevent_st **out)
{
    struct CUevent_st *e;

    if (!g.inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    e = find(h, K_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!event_alive(e))
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    *out = e;
    return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    struct CUctx_st *c;
    struct CUevent_st *e;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!phEvent)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    e = calloc(1, sizeof *e);
    if (!e || reg(e, K_EVENT)) {
        free(e);
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    e->ctx = c;
    e->gen = c->gen;
    e->flags = Flags;
    *phEvent = e;
    RETURN(CUDA_SUCCESS);
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    struct CUevent_st *e;
    int alive;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    e = find(hEvent, K_EVENT);
    if (!e)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    alive = event_alive(e);
    unreg(e);
    free(e);
    RETURN(alive ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED);
}

CUresult cuEventDestroy(CUevent hEvent)
{
    return cuEventDestroy_v2(hEvent);
}

static void event_stamp(struct CUevent_st *e, struct CUstream_st *s)
{
    if (s->record_late) { /* FAKEGPU_RECORD_LATE_US */
        cfg.host_advance((uint64_t)cfg.late_us * 1000u);
        s->record_late = 0;
    }
    if (cfg.host_now)
        cfg.host_advance(cfg.event_record_host_ns); /* the call's host time: stamped at its end */
    e->t = advance(s, 0);
    if (s->hold_give_up && !s->hold_ev) { /* behind a kprof_hold: stamped when it lets go (hold_settle) */
        s->hold_stamp = e->t;
        if (e->t < s->hold_give_up)
            e->t = s->t = s->hold_give_up;
        s->hold_ev = e;
    }
    s->sync_t = s->t += cfg.event_ns; /* stamped first, then the stream is busy with the record */
    e->stream_id = s->id;
    e->recorded = 1;
    e->pending = cfg.pending_queries;
    e->seq = ++g.next_seq;
    e->seen_ns = cfg.seen_fast_every && e->seq % cfg.seen_fast_every == 0 ? cfg.seen_fast_ns : cfg.event_seen_ns;
}

static CUresult event_record(CUevent hEvent, CUstream hStream, int ptds)
{
    struct CUevent_st *e;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_event(hEvent, &e)) || (rc = get_stream(hStream, ptds, &s)))
        RETURN(rc);
    if (s->ctx != e->ctx)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        struct CUgraphNode_st *n = capture_node(s, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &rc);
        if (n)
            n->event = e;
        RETURN(rc);
    }
    event_stamp(e, s);
    RETURN(CUDA_SUCCESS);
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream, 0); }
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream, 1); }

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    (void)flags;
    return event_record(hEvent, hStream, 0);
}

CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    (void)flags;
    return event_record(hEvent, hStream, 1);
}

/* The stream's later work starts no earlier than the event's time (capture: not modelled, refused). */
static CUresult stream_wait_event(CUstream hStream, CUevent hEvent, unsigned int flags, int ptds)
{
    struct CUevent_st *e;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_event(hEvent, &e)) || (rc = get_stream(hStream, ptds, &s)))
        RETURN(rc);
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_ERROR_NOT_SUPPORTED);
    if (e->recorded) {
        uint64_t t0 = advance(s, 0);
        if (e->t > t0)
            s->t = s->sync_t = e->t;
    }
    work_put(s, W_WAIT);
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return stream_wait_event(hStream, hEvent, Flags, 0);
}

CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return stream_wait_event(hStream, hEvent, Flags, 1);
}

/* A host function: the clock is virtual, so it runs at once, outside the fake's lock (it may call CUDA);
 * for FAKEGPU_HANDOFF_NS it changes nothing (the next kernel's hand-off is the work's before it). */
static CUresult launch_host_func(CUstream hStream, CUhostFn fn, void *data, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(hStream, ptds, &s)))
        RETURN(rc);
    if (!fn)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_ERROR_NOT_SUPPORTED);
    unlock();
    fn(data);
    return CUDA_SUCCESS;
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    return launch_host_func(hStream, fn, userData, 0);
}

CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
    return launch_host_func(hStream, fn, userData, 1);
}

/* ------------------------------------------------------------------ holds */

/* Holds: a cuStreamWaitValue32 (GEQ) or libkprof's kprof_hold kernel waiting for a word of host memory to
 * reach a value.  The clock is virtual, so a hold takes no time; but work queued behind one cannot complete
 * before the word is written: cuEventQuery answers NOT_READY for an event recorded behind it, cuStreamQuery
 * for its stream, and a synchronize waits (the fake's lock dropped) for the word, up to 5 s, after which
 * the fake says that a real GPU would hang and aborts. */
#define MAX_HOLDS 256
static struct hold {
    const uint32_t *word;
    uint32_t value;
    uint64_t stream_id;
    uint64_t seq; /* among event records (g.next_seq) */
    uint64_t give_up; /* with the virtual host clock, a kprof_hold: the GPU time it lets go by itself */
} holds[MAX_HOLDS];
static int nholds;

/* Drops the holds whose word lies in [base, base + size): memory a reset or destruction is freeing. */
static void holds_drop_in(uintptr_t base, size_t size)
{
    for (int i = 0; i < nholds;) {
        uintptr_t w = (uintptr_t)holds[i].word;
        if (w >= base && w - base < size) {
            holds[i] = holds[--nholds];
            continue;
        }
        i++;
    }
}

/* 1 when an unreleased hold placed on stream_id (ANY_STREAM: any) before seq remains; drops the released. */
static int held_before(uint64_t stream_id, uint64_t seq)
{
    int held = 0;
    for (int i = 0; i < nholds;) {
        if ((int32_t)(__atomic_load_n(holds[i].word, __ATOMIC_ACQUIRE) - holds[i].value) >= 0 ||
            (holds[i].give_up && gpu_now() >= holds[i].give_up)) {
            holds[i] = holds[--nholds];
            continue;
        }
        if ((stream_id == ANY_STREAM || holds[i].stream_id == stream_id) && holds[i].seq < seq)
            held = 1;
        i++;
    }
    return held;
}

/* A synchronize: waits for the holds it depends on (lock held on entry and return). */
static void holds_wait(uint64_t stream_id, uint64_t seq)
{
    for (int i = 0; held_before(stream_id, seq); i++) {
        if (i == 50000) {
            fprintf(stderr, "fakegpu: a synchronize waits for a hold never released (word %p below %u); "
                            "a real GPU would hang\n", (const void *)holds[0].word, holds[0].value);
            abort();
        }
        unlock();
        usleep(100);
        lock();
    }
}

/* Puts a hold on s for the word at addr (host memory of the fake) to reach value; its work counts as kind
 * (W_HOLD for a wait, W_KERNEL for kprof_hold) for FAKEGPU_HANDOFF_NS.  Lock held. */
static CUresult hold_put(struct CUstream_st *s, uintptr_t addr, uint32_t value, int kind, uint64_t give_up)
{
    struct alloc *a = alloc_of(addr);

    if (!a || a->type != A_HOST || addr % 4 || a->size - (addr - a->base) < 4)
        return CUDA_ERROR_INVALID_VALUE;
    work_put(s, kind);
    const uint32_t *w = (const uint32_t *)addr;
    if ((int32_t)(__atomic_load_n(w, __ATOMIC_ACQUIRE) - value) >= 0)
        return CUDA_SUCCESS;
    held_before(ANY_STREAM, 0); /* drops the released ones */
    if (nholds == MAX_HOLDS) {
        fprintf(stderr, "fakegpu: more than %d holds pending\n", MAX_HOLDS);
        abort();
    }
    holds[nholds++] = (struct hold){ w, value, s->id, ++g.next_seq, give_up };
    return CUDA_SUCCESS;
}

static CUresult wait_value32(CUstream hStream, CUdeviceptr addr, cuuint32_t value, unsigned int flags, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(hStream, ptds, &s)))
        RETURN(rc);
    if (flags != CU_STREAM_WAIT_VALUE_GEQ || s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_ERROR_NOT_SUPPORTED);
    RETURN(hold_put(s, (uintptr_t)addr, value, W_HOLD, 0));
}

CUresult cuStreamWaitValue32_v2(CUstream hStream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
    return wait_value32(hStream, addr, value, flags, 0);
}

CUresult cuStreamWaitValue32_v2_ptsz(CUstream hStream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
    return wait_value32(hStream, addr, value, flags, 1);
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    struct alloc *a;

    lock();
    if (!pdptr || Flags || !(a = alloc_of((uintptr_t)p)) || a->type != A_HOST)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *pdptr = (CUdeviceptr)(uintptr_t)p; /* unified addressing */
    RETURN(CUDA_SUCCESS);
}

CUresult cuEventQuery(CUevent hEvent)
{
    struct CUevent_st *e;
    CUresult rc;

    static int queried;
    if (cfg.query_delay_us && gettid() != getpid() && !__atomic_exchange_n(&queried, 1, __ATOMIC_RELAXED))
        usleep(cfg.query_delay_us); /* a driver call that takes its time, outside the fake's lock */
    if (cfg.query_host_ns && cfg.host_now && gettid() == getpid())
        cfg.host_advance(cfg.query_host_ns); /* before the answer, as a call waiting for a lock */
    lock();
    if (cfg.truth_queries && g.app_ran) { /* no gettid() system call on every query otherwise */
        int main_thread = gettid() == getpid();
        char name[16] = "";
        g.main_queries += main_thread;
        g.other_queries += !main_thread;
        g.harvester_queries += !main_thread && pthread_getname_np(pthread_self(), name, sizeof name) == 0 &&
                               strcmp(name, "kprof-harvester") == 0;
    }
    if ((rc = get_event(hEvent, &e)) || (rc = unsafe_call()))
        RETURN(rc);
    if (!e->recorded)
        RETURN(CUDA_SUCCESS);
    if (cfg.hang || held_before(e->stream_id, e->seq))
        NOT_READY_ANSWER();
    if (e->seen_ns && cfg.host_now && e->t + e->seen_ns > gpu_now())
        NOT_READY_ANSWER(); /* not seen yet */
    if (event_complete(e)) {
        event_seen(e);
        RETURN(CUDA_SUCCESS);
    }
    if (--e->pending == 0)
        event_done(e);
    NOT_READY_ANSWER();
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    struct CUevent_st *e;
    CUresult rc;

    lock();
    if ((rc = get_event(hEvent, &e)) || (rc = unsafe_call()))
        RETURN(rc);
    if (!cfg.hang && e->recorded) {
        holds_wait(e->stream_id, e->seq);
        host_waits(e->t + (cfg.host_now ? e->seen_ns : 0));
        event_done(e);
        event_seen(e);
    }
    RETURN(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    struct CUevent_st *a, *b;
    CUresult rc;

    lock();
    if ((rc = get_event(hStart, &a)) || (rc = get_event(hEnd, &b)))
        RETURN(rc);
    if (!pMilliseconds)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!a->recorded || !b->recorded)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!event_complete(a) || !event_complete(b))
        RETURN(CUDA_ERROR_NOT_READY);
    *pMilliseconds = (float)((double)((int64_t)b->t - (int64_t)a->t) / 1e6);
    RETURN(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

/* ------------------------------------------------------------------ code: libraries, modules, kernels */

static CUresult code_load(struct CUlib_st **out)
{
    struct CUlib_st *l;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!out)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    l = calloc(1, sizeof *l);
    if (!l || reg(l, K_LIB)) {
        free(l);
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *out = l;
    RETURN(CUDA_SUCCESS);
}

static struct CUfunc_st *spare_func;

static CUresult code_unload(struct CUlib_st *h)
{
    struct CUlib_st *l;
    struct CUfunc_st *f, *next;

    lock();
    if (!(l = find(h, K_LIB)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    for (f = l->funcs; f; f = next) {
        next = f->next;
        unreg(f);
        free(f->name);
        free(f->loaded);
        if (cfg.reuse_func_handle && !spare_func)
            spare_func = f; /* FAKEGPU_REUSE_FUNC_HANDLE: the next function made gets this handle */
        else
            free(f);
    }
    unreg(l);
    free(l);
    RETURN(CUDA_SUCCESS);
}

/* Any name exists: the fake has no real image to check it against. */
static CUresult code_get(struct CUfunc_st **out, struct CUlib_st *h, const char *name)
{
    struct CUlib_st *l;
    struct CUfunc_st *f;

    lock();
    if (!(l = find(h, K_LIB)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!out || !name)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    for (f = l->funcs; f; f = f->next)
        if (strcmp(f->name, name) == 0) {
            *out = f;
            RETURN(CUDA_SUCCESS);
        }
    if (spare_func) { /* FAKEGPU_REUSE_FUNC_HANDLE */
        f = spare_func;
        spare_func = NULL;
        memset(f, 0, sizeof *f);
    } else {
        f = calloc(1, sizeof *f);
    }
    if (!f || !(f->name = strdup(name)) || reg(f, K_FUNC)) {
        if (f)
            free(f->name);
        free(f);
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    f->lib = l;
    f->ns = kernel_duration(name);
    f->rule = kernel_rule(name);
    f->next = l->funcs;
    l->funcs = f;
    *out = f;
    RETURN(CUDA_SUCCESS);
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                           void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                           void **libraryOptionValues, unsigned int numLibraryOptions)
{
    (void)code;
    (void)jitOptions;
    (void)jitOptionsValues;
    (void)numJitOptions;
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    return code_load(library);
}

CUresult cuLibraryUnload(CUlibrary library)
{
    return code_unload(library);
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    return code_get((struct CUfunc_st **)pKernel, library, name);
}

/* The compute capability a PTX image targets (".target sm_XY": X), 0 for another image. */
static int ptx_target_major(const void *image)
{
    const char *t = image ? strstr((const char *)image, ".target sm_") : NULL;
    return t && strncmp((const char *)image, ".version", 8) == 0 ? atoi(t + 11) / 10 : 0;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    if (ptx_target_major(image) > (int)cfg.compute_major) { /* FAKEGPU_COMPUTE_MAJOR */
        lock();
        RETURN(CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
    }
    return code_load((struct CUlib_st **)module);
}

CUresult cuModuleUnload(CUmodule hmod)
{
    return code_unload((struct CUlib_st *)hmod);
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    return code_get((struct CUfunc_st **)hfunc, (struct CUlib_st *)hmod, name);
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    lock();
    if (!find(kernel, K_FUNC))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!pFunc)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *pFunc = (CUfunction)kernel;
    RETURN(CUDA_SUCCESS);
}

static CUresult func_name(const char **name, const void *h)
{
    struct CUfunc_st *f;

    lock();
    if (!name)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(f = find(h, K_FUNC)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    *name = f->name; /* valid until the library is unloaded, as with the real driver */
    RETURN(CUDA_SUCCESS);
}

/* A function's parameters (FAKEGPU_PARAM_BYTES): their number, and the offset and size of the i-th in
 * *off and *size.  libkprof's kernels as their PTX declares them. */
static size_t func_params(const struct CUfunc_st *f, size_t i, size_t *off, size_t *size)
{
    static const size_t calib[][2] = { { 0, 8 }, { 8, 8 } }, hold[][2] = { { 0, 8 }, { 8, 4 }, { 16, 8 } },
                        wide[][2] = { { 0, 8 }, { 8, 8 }, { 16, 32736 } };
    const size_t(*t)[2] = calib;
    size_t n = 2;
    if (strcmp(f->name, "kprof_hold") == 0) {
        t = hold;
        n = 3;
    } else if (strcmp(f->name, "kprof_calibrate_wide") == 0) {
        t = wide;
        n = 3;
    } else if (strcmp(f->name, "kprof_calibrate") != 0) {
        *off = 8 * i; /* unless FAKEGPU_PARAM_BYTES says otherwise: i + 1 parameters of 8 bytes */
        *size = 8;
        for (int r = 0; r < cfg.nparams; r++)
            if (strstr(f->name, cfg.param_substr[r])) {
                size_t last = (size_t)cfg.param_count[r] - 1;
                if (i <= last) {
                    *off = 8 * i;
                    *size = i < last ? 8 : (size_t)cfg.param_bytes[r] - 8 * last;
                }
                return (size_t)cfg.param_count[r];
            }
        return i + 1;
    }
    if (i < n) {
        *off = t[i][0];
        *size = t[i][1];
    }
    return n;
}

/* The size of f's parameter block (bytes): its last parameter's offset plus size. */
static uint64_t func_param_bytes(const struct CUfunc_st *f)
{
    size_t off = 0, size = 0, n = func_params(f, 0, &off, &size);
    func_params(f, n - 1, &off, &size);
    return off + size;
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    struct CUfunc_st *f;
    size_t off = 0, size = 0;

    lock();
    if (!(f = find(func, K_FUNC)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!paramOffset || !paramSize || paramIndex >= func_params(f, paramIndex, &off, &size))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *paramOffset = off;
    *paramSize = size;
    RETURN(CUDA_SUCCESS);
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc) { return func_name(name, hfunc); }
CUresult cuFuncGetName(const char **name, CUfunction hfunc) { return func_name(name, hfunc); }

/* ------------------------------------------------------------------ lazy loading (FAKEGPU_LAZY_LOAD_NS) */

static int func_is_loaded(const struct CUfunc_st *f, const struct CUctx_st *c)
{
    for (size_t i = 0; i < f->nloaded; i++)
        if (f->loaded[i].ctx == c && f->loaded[i].gen == c->gen)
            return 1;
    return 0;
}

/* Loads f in c; answers 1 when it was not loaded there yet (the caller then pays FAKEGPU_LAZY_LOAD_NS). */
static int func_load(struct CUfunc_st *f, const struct CUctx_st *c)
{
    struct loaded_in *l;

    if (func_is_loaded(f, c))
        return 0;
    for (size_t i = 0; i < f->nloaded; i++)
        if (f->loaded[i].ctx == c) { /* an older generation of the same context */
            f->loaded[i].gen = c->gen;
            return 1;
        }
    if ((l = realloc(f->loaded, (f->nloaded + 1) * sizeof *l))) {
        f->loaded = l;
        l[f->nloaded].ctx = c;
        l[f->nloaded].gen = c->gen;
        f->nloaded++;
    }
    return 1;
}

/* Loads every kernel of a graph (child graphs and conditional bodies included) in c, as instantiation does. */
static void graph_load(const struct CUgraph_st *gr, const struct CUctx_st *c)
{
    for (const struct CUgraphNode_st *n = gr->head; n; n = n->next) {
        struct CUfunc_st *f;

        if (n->type == CU_GRAPH_NODE_TYPE_KERNEL && (f = find(n->func, K_FUNC)))
            func_load(f, c);
        if (n->child)
            graph_load(n->child, c);
        for (unsigned i = 0; i < n->nbodies; i++)
            graph_load(n->bodies[i], c);
    }
}

CUresult cuFuncLoad(CUfunction function)
{
    struct CUctx_st *c;
    struct CUfunc_st *f;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!(f = find(function, K_FUNC)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    func_load(f, c);
    RETURN(CUDA_SUCCESS);
}

/* Whether f is loaded in the current context. */
CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    struct CUctx_st *c;
    struct CUfunc_st *f;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!state)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(f = find(function, K_FUNC)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    *state = func_is_loaded(f, c) ? CU_FUNCTION_LOADING_STATE_LOADED : CU_FUNCTION_LOADING_STATE_UNLOADED;
    RETURN(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------ launches */

/* The truth file's count of a kernel that ran. */
static void kernel_ran(const char *name, uint64_t ns)
{
    struct kernel_truth *k;

    HASH_FIND_STR(g.kernels, name, k);
    if (!k) {
        if (!(k = calloc(1, sizeof *k)) || !(k->name = strdup(name))) {
            free(k);
            return;
        }
        HASH_ADD_KEYPTR(hh, g.kernels, k->name, strlen(k->name), k);
    }
    {
        k->launches++;
        k->ns += ns;
    }
    if (cfg.truth_queries)
        g.app_ran |= strncmp(name, "kprof_", 6) != 0;
}

static struct alloc *alloc_of(uintptr_t p);

/* libkprof's calibration kernel kprof_calibrate(unsigned long long ns, unsigned long long *out): runs exactly
 * ns and, when out (device memory, 2 words) is not NULL, stores its start on the fake GPU clock and
 * start + ns - FAKEGPU_CALIB_C0_NS (no less than start) there. Answers its duration; fn->ns when it has
 * no parameters. */
static uint64_t calib_ns(const struct CUfunc_st *fn, void **params)
{
    return params && params[0] ? *(const unsigned long long *)params[0] : fn->ns;
}

static void calib_out(void **params, uint64_t start, uint64_t ns)
{
    uintptr_t out;
    struct alloc *a;

    if (!params || !params[0] || !params[1] || !(out = (uintptr_t)*(unsigned long long **)params[1]))
        return;
    if (!(a = alloc_of(out)) || a->size - (out - a->base) < 2 * sizeof(unsigned long long)) {
        fprintf(stderr, "fakegpu: kprof_calibrate's out %#lx is not 16 bytes of device memory; not written\n",
                (unsigned long)out);
        return;
    }
    ((unsigned long long *)out)[0] = start;
    ((unsigned long long *)out)[1] = ns > cfg.calib_c0_ns ? start + ns - cfg.calib_c0_ns : start;
}

/* With the virtual host clock, a kernel launched on s behind a kprof_hold: libkprof releases the hold once
 * its start event, this kernel and its stop event are queued, delay_ns of host time from now (the stop's
 * record coming late: FAKEGPU_RECORD_LATE_US), so the start is stamped then, unless the hold gave up first
 * (the launch call, or the wait for the stop's record, took longer than its timeout): then the start keeps
 * the give-up time, and the kernel starts when its call queues it.  Lock held. */
static void hold_settle(struct CUstream_st *s, uint64_t delay_ns)
{
    if (!s->hold_give_up)
        return;
    uint64_t now = gpu_now() + delay_ns;
    if (s->hold_ev && now < s->hold_give_up && find(s->hold_ev, K_EVENT) == s->hold_ev) {
        uint64_t t = now > s->hold_stamp ? now : s->hold_stamp;
        s->hold_ev->t = t;
        s->t = s->sync_t = t + cfg.event_ns;
    } else if (s->hold_ev) {
        s->seen_idle = 1; /* the hold let go and the stream ran dry before this kernel came */
    }
    s->hold_give_up = 0;
    s->hold_ev = NULL;
}

/* FAKEGPU_LAUNCH_SLEEP_US's sleep: a cancellation point, as usleep is (and a blocking call in a driver may
 * be), but by the raw system call and pthread_testcancel, which no sanitizer intercepts: a thread
 * cancelled inside ThreadSanitizer's usleep interceptor unwinds past the interceptor's end, and TSan then
 * no longer sees that thread's mutexes (libkprof's cleanup's kprof_ev.lock read as a race). */
static void launch_sleep(unsigned long us)
{
    struct timespec t = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000 }, left;
    while (syscall(SYS_nanosleep, &t, &left) != 0 && errno == EINTR) {
        pthread_testcancel();
        t = left;
    }
    pthread_testcancel();
}

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shmem, CUstream hStream, int ptds, void **params)
{
    struct CUctx_st *c;
    struct CUfunc_st *fn;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if (cfg.sleep_name && (fn = find(f, K_FUNC)) && strstr(fn->name, cfg.sleep_name)) {
        if (cfg.host_now) { /* the virtual host clock: the time passes on it, not on the wall */
            cfg.host_advance((uint64_t)cfg.sleep_us * 1000u);
        } else {
            unlock(); /* FAKEGPU_LAUNCH_SLEEP_US: the host's time in this launch, other threads' calls go on */
            launch_sleep(cfg.sleep_us);
            lock();
        }
    }
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!(fn = find(f, K_FUNC)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if ((rc = get_stream(hStream, ptds, &s)))
        RETURN(rc);
    if (s->ctx != c) /* a stream of another context (another device's) */
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        struct CUgraphNode_st *n = capture_node(s, CU_GRAPH_NODE_TYPE_KERNEL, &rc);
        if (n && !(n->name = strdup(fn->name)))
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        if (n) {
            n->func = fn;
            n->ns = fn->ns;
            n->grid[0] = gx, n->grid[1] = gy, n->grid[2] = gz;
            n->block[0] = bx, n->block[1] = by, n->block[2] = bz;
            n->shmem = shmem;
        }
        RETURN(rc);
    }
    if (cfg.host_now) /* the call's host time: its kernel is queued at the end (FAKEGPU_LAUNCH_HOST_NS) */
        cfg.host_advance(cfg.launch_host_ns);
    if (strcmp(fn->name, "kprof_hold") == 0) { /* libkprof's hold: (word, seq, timeout); no time of its own */
        if (!params || !params[0] || !params[1])
            RETURN(CUDA_ERROR_INVALID_VALUE);
        kernel_advance(s, func_load(fn, c) ? cfg.lazy_load_ns : 0, 1, 0, 0, 0);
        if (params[2] && *(unsigned long long *)params[2] > g.hold_timeout_max)
            g.hold_timeout_max = *(unsigned long long *)params[2];
        /* With the virtual host clock it gives up after its timeout (hold_settle). */
        uint64_t give_up = cfg.host_now && params[2] ? start_time(s) + *(unsigned long long *)params[2] : 0;
        rc = hold_put(s, (uintptr_t)*(unsigned long long *)params[0], *(uint32_t *)params[1], W_KERNEL, give_up);
        if (rc == CUDA_SUCCESS && give_up) {
            s->hold_give_up = give_up;
            s->hold_ev = NULL;
        }
        RETURN(rc);
    }
    /* FAKEGPU_RECORD_LATE_US: the next record on s comes late; behind a kprof_hold, the hold's release with it. */
    s->record_late = cfg.host_now && cfg.late_name && strstr(fn->name, cfg.late_name) &&
                     (fn->direct + 1) % cfg.late_every == 0;
    s->behind_hold = s->hold_give_up != 0;
    hold_settle(s, s->record_late ? (uint64_t)cfg.late_us * 1000u : 0);
    {
        int calib = strcmp(fn->name, "kprof_calibrate") == 0 || strcmp(fn->name, "kprof_calibrate_wide") == 0;
        uint64_t ns = calib ? calib_ns(fn, params)
                      : fn->rule ? fn->rule->seq[fn->launches++ % (uint64_t)fn->rule->nseq] : fn->ns;
        if (!calib && cfg.later_substr && strstr(fn->name, cfg.later_substr) && fn->direct >= cfg.later_after)
            ns = cfg.later_ns;
        if (!calib)
            fn->direct++;
        int lazy = func_load(fn, c);
        /* "Loading kernels might require context synchronization" (CUDA Programming Guide, Lazy Loading):
         * a launch that loads its kernel waits for the context's work, holds included (a hold placed
         * before this launch and released after it would hang a real GPU). */
        if (lazy)
            holds_wait(ANY_STREAM, ANY_STREAM);
        uint64_t param_ns = cfg.param_ns_per_kib ? cfg.param_ns_per_kib * func_param_bytes(fn) / 1024 : 0; /* FAKEGPU_PARAM_NS_PER_KIB */
        uint64_t t0 = kernel_advance(s, (lazy ? cfg.lazy_load_ns : 0) + param_ns, (uint64_t)gx * gy * gz, ns,
                                     !calib && strncmp(fn->name, "kprof_", 6) != 0, (uint64_t)bx * by * bz);

        if (calib)
            calib_out(params, t0, ns);
        kernel_ran(fn->name, ns);
    }
    RETURN(CUDA_SUCCESS);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    (void)extra;
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 0,
                  kernelParams);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                             unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                             unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    (void)extra;
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 1,
                  kernelParams);
}

static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, int ptds, void **params)
{
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    return launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                  c->sharedMemBytes, c->hStream, ptds, params);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    (void)extra;
    return launch_ex(config, f, 0, kernelParams);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    (void)extra;
    return launch_ex(config, f, 1, kernelParams);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                   unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 0,
                  kernelParams);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                        void **kernelParams)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 1,
                  kernelParams);
}

/* ------------------------------------------------------------------ memory */

/* The bytes mapped for pinned host memory of `size` bytes: whole pages. */
static size_t host_bytes(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size + page - 1) / page * page;
}

/* Gives back the memory of allocation a: pinned host memory unmapped, as the driver does (a write to it
 * after cuMemFreeHost or the end of its context faults, as on a real GPU's host); the caller's own
 * registered memory left alone. */
static void mem_release(struct alloc *a)
{
    if (a->registered)
        return;
    if (a->type == A_HOST)
        munmap((void *)a->base, host_bytes(a->size));
    else
        free((void *)a->base);
}

static CUresult mem_alloc(void **out, size_t size, enum alloc_type type, struct CUctx_st *c)
{
    struct alloc *a;
    void *p;

    if (!out || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (size > cfg.mem_bytes || (type != A_HOST && size > cfg.mem_bytes - g.mem_used))
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (type == A_HOST) { /* pinned host memory is mapped for it, and unmapped when freed */
        p = mmap(NULL, host_bytes(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            p = NULL;
    } else {
        p = aligned_alloc(ALIGN, (size + ALIGN - 1) / ALIGN * ALIGN);
    }
    a = calloc(1, sizeof *a);
    if (!p || !a) {
        if (p && type == A_HOST)
            munmap(p, host_bytes(size));
        else
            free(p);
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->base = (uintptr_t)p;
    a->size = size;
    a->type = type;
    a->ctx = c;
    HASH_ADD(hh, g.allocs, base, sizeof a->base, a);
    if (type != A_HOST)
        g.mem_used += size;
    g.allocs_by_type[type].count++;
    g.allocs_by_type[type].bytes += size;
    *out = p;
    return CUDA_SUCCESS;
}

static CUresult mem_free(uintptr_t base, int host)
{
    struct alloc *a;

    HASH_FIND(hh, g.allocs, &base, sizeof base, a);
    if (!a || (a->type == A_HOST) != host || a->registered)
        return CUDA_ERROR_INVALID_VALUE;
    if (a->type != A_HOST)
        g.mem_used -= a->size;
    HASH_DEL(g.allocs, a);
    mem_release(a);
    free(a);
    return CUDA_SUCCESS;
}

/* The allocation that contains p, or NULL for memory the fake did not hand out (pageable host memory). */
static struct alloc *alloc_of(uintptr_t p)
{
    struct alloc *a, *tmp;

    HASH_ITER(hh, g.allocs, a, tmp)
        if (p >= a->base && p - a->base < a->size)
            return a;
    return NULL;
}

static CUresult alloc_api(void **out, size_t size, enum alloc_type type)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = unsafe_call()))
        RETURN(rc);
    RETURN(mem_alloc(out, size, type, c));
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    return alloc_api((void **)dptr, bytesize, A_DEVICE);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    (void)flags;
    return alloc_api((void **)dptr, bytesize, A_MANAGED);
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return alloc_api(pp, bytesize, A_HOST);
}

CUresult cuMemAllocHost(void **pp, unsigned int bytesize)
{
    return alloc_api(pp, bytesize, A_HOST);
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    (void)Flags;
    return alloc_api(pp, bytesize, A_HOST);
}

static CUresult free_api(uintptr_t p, int host)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = unsafe_call()))
        RETURN(rc);
    if (!p)
        RETURN(CUDA_SUCCESS);
    RETURN(mem_free(p, host));
}

CUresult cuMemFree_v2(CUdeviceptr dptr) { return free_api(dptr, 0); }
CUresult cuMemFreeHost(void *p) { return free_api((uintptr_t)p, 1); }

/* Registers [p, p + bytesize) as pinned host memory of the current context (unified addressing: its
 * device pointer is p); the memory stays the caller's, and a destroyed context's registrations end with
 * it.  Ranges that overlap one known already are refused, as the driver does
 * (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED). */
CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    struct CUctx_st *c;
    struct alloc *a, *tmp;
    CUresult rc;

    (void)Flags;
    lock();
    if ((rc = need_ctx(&c)) || (rc = unsafe_call()))
        RETURN(rc);
    if (!p || bytesize == 0)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    HASH_ITER(hh, g.allocs, a, tmp)
        if ((uintptr_t)p < a->base + a->size && a->base < (uintptr_t)p + bytesize)
            RETURN(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    if (!(a = calloc(1, sizeof *a)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    a->base = (uintptr_t)p;
    a->size = bytesize;
    a->type = A_HOST;
    a->registered = 1;
    a->ctx = c;
    HASH_ADD(hh, g.allocs, base, sizeof a->base, a);
    RETURN(CUDA_SUCCESS);
}

CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    return cuMemHostRegister_v2(p, bytesize, Flags);
}

CUresult cuMemHostUnregister(void *p)
{
    struct CUctx_st *c;
    struct alloc *a;
    uintptr_t base = (uintptr_t)p;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = unsafe_call()))
        RETURN(rc);
    HASH_FIND(hh, g.allocs, &base, sizeof base, a);
    if (!a || !a->registered)
        RETURN(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    holds_drop_in(a->base, a->size);
    HASH_DEL(g.allocs, a);
    free(a);
    RETURN(CUDA_SUCCESS);
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t size, CUstream h, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    RETURN(mem_alloc((void **)dptr, size, A_DEVICE, s->ctx));
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, hStream, 0);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, hStream, 1);
}

static CUresult free_async(CUdeviceptr p, CUstream h, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    RETURN(mem_free(p, 0));
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) { return free_async(dptr, hStream, 0); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) { return free_async(dptr, hStream, 1); }

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    struct CUctx_st *c;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)))
        RETURN(rc);
    if (!free_bytes || !total)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *free_bytes = cfg.mem_bytes - g.mem_used;
    *total = cfg.mem_bytes;
    RETURN(CUDA_SUCCESS);
}

CUresult cuMemGetInfo(unsigned int *free_bytes, unsigned int *total)
{
    size_t f, t;
    CUresult rc = cuMemGetInfo_v2(&f, &t);

    if (rc == CUDA_SUCCESS && free_bytes && total) {
        *free_bytes = f > 0xffffffffu ? 0xffffffffu : (unsigned int)f;
        *total = t > 0xffffffffu ? 0xffffffffu : (unsigned int)t;
    }
    return rc;
}

/* One attribute of a known allocation a (NULL: unknown pointer, answered with defaults when
 * lenient, as cuPointerGetAttributes does). IS_MANAGED and MEMORY_TYPE are written as unsigned int. */
static CUresult pointer_attribute(void *data, CUpointer_attribute attr, struct alloc *a, CUdeviceptr ptr, int lenient)
{
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    if (!a && !lenient)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = !a ? 0 : a->type == A_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = a ? a->ctx : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = a ? a->ctx->device : -2;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(unsigned int *)data = a && a->type == A_MANAGED;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = a ? ptr : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        *(void **)data = a && a->type != A_DEVICE ? (void *)ptr : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = a ? a->base : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = a ? a->size : 0;
        return CUDA_SUCCESS;
    default:
        return lenient ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    RETURN(pointer_attribute(data, attribute, alloc_of(ptr), ptr, 0));
}

CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr)
{
    struct alloc *a;
    CUresult rc;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!attributes || !data)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    a = alloc_of(ptr);
    for (unsigned i = 0; i < numAttributes; i++)
        if ((rc = pointer_attribute(data[i], attributes[i], a, ptr, 1)))
            RETURN(rc);
    RETURN(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------ copies and memsets */

static int is_device(uintptr_t p)
{
    struct alloc *a = alloc_of(p);

    return a && a->type != A_HOST;
}

static enum copy_kind resolve_kind(uintptr_t dst, uintptr_t src)
{
    int d = is_device(dst), s = is_device(src);

    return s ? (d ? C_DTOD : C_DTOH) : (d ? C_HTOD : C_HTOH);
}

/* Accounts for a copy whose bytes have moved: the stream's clock advances by the transfer time
 * and the truth counters see it. */
static void copy_done(struct CUstream_st *s, enum copy_kind kind, uint64_t bytes)
{
    if (bytes == 0)
        return;
    uint64_t t0 = advance(s, bytes_ns(bytes));
    if (kind == C_HTOD) {
        s->htod_t0 = t0;
        s->htod_t1 = t0 + bytes_ns(bytes);
    }
    work_put(s, kind == C_HTOD ? W_HTOD : kind == C_DTOH ? W_DTOH : W_DTOD);
    g.copies[kind].count++;
    g.copies[kind].bytes += bytes;
}

/* async: a *Async entry point, which may be captured; the others are synchronous, so "unsafe". */
static CUresult copy_api(enum copy_kind kind, uintptr_t dst, uintptr_t src, size_t n, CUstream h, int ptds, int async)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (!async && (rc = unsafe_call())) || (rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (s->ctx != c)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (n && (!dst || !src))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (kind == C_AUTO)
        kind = resolve_kind(dst, src);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        struct CUgraphNode_st *n1 = capture_node(s, CU_GRAPH_NODE_TYPE_MEMCPY, &rc);
        if (n1) {
            n1->kind = kind;
            n1->dst = dst;
            n1->src = src;
            n1->bytes = n;
        }
        RETURN(rc);
    }
    if (n)
        memmove((void *)dst, (const void *)src, n); /* device memory is host memory here */
    copy_done(s, kind, n);
    RETURN(CUDA_SUCCESS);
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy_api(C_AUTO, dst, src, n, NULL, 0, 0); }
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy_api(C_AUTO, dst, src, n, NULL, 1, 0); }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h)
{
    return copy_api(C_AUTO, dst, src, n, h, 0, 1);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h)
{
    return copy_api(C_AUTO, dst, src, n, h, 1, 1);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { return copy_api(C_HTOD, d, (uintptr_t)s, n, NULL, 0, 0); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { return copy_api(C_HTOD, d, (uintptr_t)s, n, NULL, 1, 0); }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { return copy_api(C_DTOH, (uintptr_t)d, s, n, NULL, 0, 0); }
CUresult cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { return copy_api(C_DTOH, (uintptr_t)d, s, n, NULL, 1, 0); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy_api(C_DTOD, d, s, n, NULL, 0, 0); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy_api(C_DTOD, d, s, n, NULL, 1, 0); }

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream h)
{
    return copy_api(C_HTOD, d, (uintptr_t)s, n, h, 0, 1);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream h)
{
    return copy_api(C_HTOD, d, (uintptr_t)s, n, h, 1, 1);
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream h)
{
    return copy_api(C_DTOH, (uintptr_t)d, s, n, h, 0, 1);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream h)
{
    return copy_api(C_DTOH, (uintptr_t)d, s, n, h, 1, 1);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h)
{
    return copy_api(C_DTOD, d, s, n, h, 0, 1);
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h)
{
    return copy_api(C_DTOD, d, s, n, h, 1, 1);
}

/* Peer copies run on the destination context's stream here; the contexts are otherwise ignored. */
CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
    (void)dc;
    (void)sc;
    return copy_api(C_DTOD, d, s, n, NULL, 0, 0);
}
CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
    (void)dc;
    (void)sc;
    return copy_api(C_DTOD, d, s, n, NULL, 1, 0);
}
CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h)
{
    (void)dc;
    (void)sc;
    return copy_api(C_DTOD, d, s, n, h, 0, 1);
}
CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h)
{
    (void)dc;
    (void)sc;
    return copy_api(C_DTOD, d, s, n, h, 1, 1);
}

/* Base address of one side of a 2D/3D copy; arrays are not modelled. */
static CUresult side(CUmemorytype type, const void *host, CUdeviceptr dev, CUarray array, uintptr_t *base, int *device)
{
    switch (type) {
    case CU_MEMORYTYPE_HOST:
        *base = (uintptr_t)host;
        *device = 0;
        return host ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_MEMORYTYPE_DEVICE:
        *base = dev;
        *device = 1;
        return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_MEMORYTYPE_UNIFIED:
        *base = dev;
        *device = is_device(dev);
        return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        (void)array;
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* Checks a 2D/3D copy; with s, also performs it on s. */
static CUresult copy3d_run(const CUDA_MEMCPY3D *p, struct CUstream_st *s)
{
    uintptr_t sb, db;
    int sd, dd;
    size_t sh, dh, depth;
    CUresult rc;

    if ((rc = side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, &sb, &sd)) ||
        (rc = side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, &db, &dd)))
        return rc;
    if ((p->srcPitch && p->srcPitch < p->WidthInBytes) || (p->dstPitch && p->dstPitch < p->WidthInBytes))
        return CUDA_ERROR_INVALID_VALUE;
    if (!s)
        return CUDA_SUCCESS;
    sh = p->srcHeight ? p->srcHeight : p->Height;
    dh = p->dstHeight ? p->dstHeight : p->Height;
    depth = p->Depth ? p->Depth : 1;
    sb += (p->srcZ * sh + p->srcY) * p->srcPitch + p->srcXInBytes;
    db += (p->dstZ * dh + p->dstY) * p->dstPitch + p->dstXInBytes;
    for (size_t z = 0; z < depth; z++)
        for (size_t r = 0; r < p->Height; r++)
            memmove((void *)(db + (z * dh + r) * p->dstPitch), (const void *)(sb + (z * sh + r) * p->srcPitch),
                    p->WidthInBytes);
    copy_done(s, sd ? (dd ? C_DTOD : C_DTOH) : (dd ? C_HTOD : C_HTOH), (uint64_t)depth * p->Height * p->WidthInBytes);
    return CUDA_SUCCESS;
}

static CUresult copy3d(const CUDA_MEMCPY3D *p, CUstream h, int ptds, int async)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (!async && (rc = unsafe_call())) || (rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (s->ctx != c)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!p)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if ((rc = copy3d_run(p, NULL)))
        RETURN(rc);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        struct CUgraphNode_st *n = capture_node(s, CU_GRAPH_NODE_TYPE_MEMCPY, &rc);
        if (n) {
            n->is3d = 1;
            n->p3 = *p;
        }
        RETURN(rc);
    }
    RETURN(copy3d_run(p, s));
}

static CUresult copy2d(const CUDA_MEMCPY2D *p, CUstream h, int ptds, int async)
{
    CUDA_MEMCPY3D q;

    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    memset(&q, 0, sizeof q);
    q.srcXInBytes = p->srcXInBytes;
    q.srcY = p->srcY;
    q.srcMemoryType = p->srcMemoryType;
    q.srcHost = p->srcHost;
    q.srcDevice = p->srcDevice;
    q.srcArray = p->srcArray;
    q.srcPitch = p->srcPitch;
    q.dstXInBytes = p->dstXInBytes;
    q.dstY = p->dstY;
    q.dstMemoryType = p->dstMemoryType;
    q.dstHost = p->dstHost;
    q.dstDevice = p->dstDevice;
    q.dstArray = p->dstArray;
    q.dstPitch = p->dstPitch;
    q.WidthInBytes = p->WidthInBytes;
    q.Height = p->Height;
    q.Depth = 1;
    return copy3d(&q, h, ptds, async);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy) { return copy2d(pCopy, NULL, 0, 0); }
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return copy2d(pCopy, NULL, 1, 0); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream h) { return copy2d(pCopy, h, 0, 1); }
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream h) { return copy2d(pCopy, h, 1, 1); }
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy) { return copy3d(pCopy, NULL, 0, 0); }
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy) { return copy3d(pCopy, NULL, 1, 0); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream h) { return copy3d(pCopy, h, 0, 1); }
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream h) { return copy3d(pCopy, h, 1, 1); }

/* Sets n elements of elem bytes at d to value. */
static void memset_run_rows(uintptr_t d, unsigned value, size_t elem, size_t n)
{
    if (elem == 1)
        memset((void *)d, (int)(uint8_t)value, n); /* libkprof's calibration sets 1 MiB at a time */
    for (size_t i = 0; elem != 1 && i < n; i++) {
        if (elem == 2)
            ((uint16_t *)d)[i] = (uint16_t)value;
        else
            ((uint32_t *)d)[i] = value;
    }
}

/* A memset of `bytes` on s as one piece of GPU work: its time, its hand-off kind, the truth's count. */
static void memset_work(struct CUstream_st *s, size_t bytes)
{
    advance(s, bytes_ns(bytes));
    work_put(s, W_MEMSET);
    g.memsets.count++;
    g.memsets.bytes += bytes;
}

/* A memset of n elements at d on s. */
static void memset_run(struct CUstream_st *s, uintptr_t d, unsigned value, size_t elem, size_t n)
{
    memset_run_rows(d, value, elem, n);
    memset_work(s, n * elem);
}

static CUresult memset_api(CUdeviceptr d, unsigned value, size_t elem, size_t n, CUstream h, int ptds, int async)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    (void)async; /* a synchronous memset is not "unsafe"; on the legacy stream it is an implicit sync */
    if (s->ctx != c)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (n && !d)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (n == 0)
        RETURN(CUDA_SUCCESS);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        struct CUgraphNode_st *n1 = capture_node(s, CU_GRAPH_NODE_TYPE_MEMSET, &rc);
        if (n1) {
            n1->dst = d;
            n1->value = value;
            n1->elem = (unsigned)elem;
            n1->bytes = n;
        }
        RETURN(rc);
    }
    memset_run(s, d, value, elem, n);
    RETURN(CUDA_SUCCESS);
}

CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return memset_api(d, v, 1, n, NULL, 0, 0); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) { return memset_api(d, v, 1, n, NULL, 1, 0); }
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return memset_api(d, v, 2, n, NULL, 0, 0); }
CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) { return memset_api(d, v, 2, n, NULL, 1, 0); }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) { return memset_api(d, v, 4, n, NULL, 0, 0); }
CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) { return memset_api(d, v, 4, n, NULL, 1, 0); }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream h) { return memset_api(d, v, 1, n, h, 0, 1); }
CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream h) { return memset_api(d, v, 1, n, h, 1, 1); }
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream h) { return memset_api(d, v, 2, n, h, 0, 1); }
CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream h) { return memset_api(d, v, 2, n, h, 1, 1); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream h) { return memset_api(d, v, 4, n, h, 0, 1); }
CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream h) { return memset_api(d, v, 4, n, h, 1, 1); }

/* 2D memsets: w elements in each of h rows, pitch bytes apart; one piece of work on the stream (no
 * capture: the fake records none). */
static CUresult memset2d_api(CUdeviceptr d, size_t pitch, unsigned value, size_t elem, size_t w, size_t h,
                             CUstream hs, int ptds)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = get_stream(hs, ptds, &s)))
        RETURN(rc);
    if (s->ctx != c)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (w && h && (!d || pitch < w * elem))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!w || !h)
        RETURN(CUDA_SUCCESS);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    for (size_t row = 0; row < h; row++)
        memset_run_rows(d + row * pitch, value, elem, w);
    memset_work(s, w * h * elem);
    RETURN(CUDA_SUCCESS);
}

/* The four entry points of one width: legacy-stream (_v2, _v2_ptds) and stream-ordered (Async, _ptsz). */
#define MEMSET2D_API(bits, type, elem)                                                                  \
    CUresult cuMemsetD2D##bits##_v2(CUdeviceptr d, size_t p, type v, size_t w, size_t h)                  \
    { return memset2d_api(d, p, v, elem, w, h, NULL, 0); }                                            \
    CUresult cuMemsetD2D##bits##_v2_ptds(CUdeviceptr d, size_t p, type v, size_t w, size_t h)             \
    { return memset2d_api(d, p, v, elem, w, h, NULL, 1); }                                            \
    CUresult cuMemsetD2D##bits##Async(CUdeviceptr d, size_t p, type v, size_t w, size_t h, CUstream s)    \
    { return memset2d_api(d, p, v, elem, w, h, s, 0); }                                               \
    CUresult cuMemsetD2D##bits##Async_ptsz(CUdeviceptr d, size_t p, type v, size_t w, size_t h, CUstream s) \
    { return memset2d_api(d, p, v, elem, w, h, s, 1); }
MEMSET2D_API(8, unsigned char, 1)
MEMSET2D_API(16, unsigned short, 2)
MEMSET2D_API(32, unsigned int, 4)

/* ------------------------------------------------------------------ graphs */

static struct CUgraph_st *graph_new(void)
{
    struct CUgraph_st *gr = calloc(1, sizeof *gr);

    if (!gr)
        return NULL;
    gr->tail = &gr->head;
    if (reg(gr, K_GRAPH)) {
        free(gr);
        return NULL;
    }
    return gr;
}

static struct CUgraphNode_st *node_add(struct CUgraph_st *gr, CUgraphNodeType type)
{
    struct CUgraphNode_st *n = calloc(1, sizeof *n);

    if (!n)
        return NULL;
    if (reg(n, K_NODE)) {
        free(n);
        return NULL;
    }
    n->graph = gr;
    n->type = type;
    *gr->tail = n;
    gr->tail = &n->next;
    gr->n++;
    return n;
}

static void graph_free(struct CUgraph_st *gr)
{
    struct CUgraphNode_st *n, *next;

    for (n = gr->head; n; n = next) {
        next = n->next;
        if (n->child)
            graph_free(n->child);
        for (unsigned i = 0; i < n->nbodies; i++)
            if (n->bodies[i])
                graph_free(n->bodies[i]);
        free(n->bodies);
        unreg(n);
        free(n->name);
        free(n);
    }
    unreg(gr);
    free(gr);
}

static struct CUgraph_st *graph_clone(const struct CUgraph_st *src)
{
    struct CUgraph_st *gr = graph_new();

    if (!gr)
        return NULL;
    for (const struct CUgraphNode_st *o = src->head; o; o = o->next) {
        struct CUgraphNode_st *n = node_add(gr, o->type), *next;

        if (!n)
            goto fail;
        next = n->next;
        *n = *o;
        n->graph = gr;
        n->next = next;
        n->name = NULL;
        n->child = NULL;
        n->bodies = NULL;
        n->nbodies = 0;
        n->origin = o;
        if ((o->name && !(n->name = strdup(o->name))) || (o->child && !(n->child = graph_clone(o->child))))
            goto fail;
        if (o->nbodies) {
            if (!(n->bodies = calloc(o->nbodies, sizeof *n->bodies)))
                goto fail;
            n->nbodies = o->nbodies;
            for (unsigned i = 0; i < o->nbodies; i++)
                if (!(n->bodies[i] = graph_clone(o->bodies[i])))
                    goto fail;
        }
    }
    gr->origin = src;
    return gr;
fail:
    graph_free(gr);
    return NULL;
}

/* Conditional node handles (cuGraphConditionalHandleCreate): handle h is conds[h - 1]. */
static struct cond_handle {
    const struct CUgraph_st *graph;
    unsigned value; /* the default launch value */
} *conds;
static size_t nconds;

static const struct cond_handle *cond_of(CUgraphConditionalHandle h)
{
    return h >= 1 && h <= nconds ? &conds[h - 1] : NULL;
}

static void graph_run(const struct CUgraph_st *gr, struct CUstream_st *s);

/* A conditional node runs deterministically on its handle's default value (no device code sets it here):
 * IF runs body 0 when it is non-zero (else body 1, if any), WHILE runs body 0 FAKEGPU_WHILE_ITERS times,
 * SWITCH runs body <value> when there is one. */
static void cond_run(const struct CUgraphNode_st *n, struct CUstream_st *s)
{
    const struct cond_handle *h = cond_of(n->cond_handle);
    unsigned v = h ? h->value : 0;

    if (!n->nbodies) /* a node whose bodies could not be made */
        return;
    switch (n->cond_type) {
    case CU_GRAPH_COND_TYPE_IF:
        if (v)
            graph_run(n->bodies[0], s);
        else if (n->nbodies > 1)
            graph_run(n->bodies[1], s);
        break;
    case CU_GRAPH_COND_TYPE_WHILE:
        for (unsigned i = 0; i < cfg.while_iters; i++)
            graph_run(n->bodies[0], s);
        break;
    case CU_GRAPH_COND_TYPE_SWITCH:
        if (v < n->nbodies)
            graph_run(n->bodies[v], s);
        break;
    default:
        break;
    }
}

/* Replays a graph's nodes in order on s, as if each had been issued to s now. */
static void graph_run(const struct CUgraph_st *gr, struct CUstream_st *s)
{
    for (const struct CUgraphNode_st *n = gr->head; n; n = n->next) {
        struct CUevent_st *e;

        switch (n->type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            advance(s, n->ns);
            kernel_ran(n->name, n->ns);
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            if ((e = find(n->event, K_EVENT)) && event_alive(e) && e->ctx == s->ctx)
                event_stamp(e, s);
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            if (n->is3d) {
                copy3d_run(&n->p3, s);
            } else if (n->bytes) {
                memmove((void *)n->dst, (const void *)n->src, n->bytes);
                copy_done(s, (enum copy_kind)n->kind, n->bytes);
            }
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            memset_run(s, n->dst, n->value, n->elem, n->bytes);
            break;
        case CU_GRAPH_NODE_TYPE_GRAPH:
            graph_run(n->child, s);
            break;
        case CU_GRAPH_NODE_TYPE_CONDITIONAL:
            cond_run(n, s);
            break;
        default:
            break;
        }
    }
}

static CUresult get_graph(CUgraph h, struct CUgraph_st **out)
{
    if (!g.inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!(*out = find(h, K_GRAPH)))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult get_node(CUgraphNode h, struct CUgraphNode_st **out)
{
    if (!g.inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!(*out = find(h, K_NODE)))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* Dependencies must be nodes of the graph; order is what counts here, so they are only checked. */
static CUresult check_deps(const struct CUgraph_st *gr, const CUgraphNode *deps, size_t ndeps)
{
    if (ndeps && !deps)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < ndeps; i++) {
        const struct CUgraphNode_st *d = find(deps[i], K_NODE);
        if (!d || d->graph != gr)
            return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    struct CUgraph_st *gr;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!phGraph || flags)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(gr = graph_new()))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    *phGraph = gr;
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphDestroy(CUgraph hGraph)
{
    struct CUgraph_st *gr;
    CUresult rc;

    lock();
    if ((rc = get_graph(hGraph, &gr)))
        RETURN(rc);
    graph_free(gr);
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    struct CUgraph_st *gr;
    struct CUgraphNode_st *n;
    size_t i = 0;
    CUresult rc;

    lock();
    if ((rc = get_graph(hGraph, &gr)))
        RETURN(rc);
    if (!numNodes)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!nodes) {
        *numNodes = gr->n;
        RETURN(CUDA_SUCCESS);
    }
    for (n = gr->head; n && i < *numNodes; n = n->next)
        nodes[i++] = n;
    for (size_t j = i; j < *numNodes; j++)
        nodes[j] = NULL;
    *numNodes = i;
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    struct CUgraphNode_st *n;
    CUresult rc;

    lock();
    if ((rc = get_node(hNode, &n)))
        RETURN(rc);
    if (!type)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *type = n->type;
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *p)
{
    struct CUgraphNode_st *n;
    CUresult rc;

    lock();
    if ((rc = get_node(hNode, &n)))
        RETURN(rc);
    if (!p || n->type != CU_GRAPH_NODE_TYPE_KERNEL)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    memset(p, 0, sizeof *p);
    p->func = (CUfunction)n->func;
    p->kern = (CUkernel)n->func; /* one struct for both here */
    p->gridDimX = n->grid[0];
    p->gridDimY = n->grid[1];
    p->gridDimZ = n->grid[2];
    p->blockDimX = n->block[0];
    p->blockDimY = n->block[1];
    p->blockDimZ = n->block[2];
    p->sharedMemBytes = n->shmem;
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    CUDA_KERNEL_NODE_PARAMS q;
    CUresult rc;

    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = cuGraphKernelNodeGetParams_v2(hNode, &q)))
        return rc;
    memset(p, 0, sizeof *p);
    p->func = q.func;
    p->gridDimX = q.gridDimX;
    p->gridDimY = q.gridDimY;
    p->gridDimZ = q.gridDimZ;
    p->blockDimX = q.blockDimX;
    p->blockDimY = q.blockDimY;
    p->blockDimZ = q.blockDimZ;
    p->sharedMemBytes = q.sharedMemBytes;
    return CUDA_SUCCESS;
}

CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
    struct CUgraphNode_st *n;
    CUresult rc;

    lock();
    if ((rc = get_node(hNode, &n)))
        RETURN(rc);
    if (!phGraph || n->type != CU_GRAPH_NODE_TYPE_GRAPH)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *phGraph = n->child;
    RETURN(CUDA_SUCCESS);
}

static CUresult add_kernel_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
                                CUfunction func, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned shmem)
{
    struct CUgraph_st *gr;
    struct CUgraphNode_st *n;
    struct CUfunc_st *fn;
    CUresult rc;

    lock();
    if ((rc = get_graph(hGraph, &gr)) || (rc = check_deps(gr, deps, ndeps)))
        RETURN(rc);
    if (!phGraphNode)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(fn = find(func, K_FUNC)))
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(n = node_add(gr, CU_GRAPH_NODE_TYPE_KERNEL)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    if (!(n->name = strdup(fn->name)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    n->func = fn;
    n->ns = fn->ns;
    n->grid[0] = gx, n->grid[1] = gy, n->grid[2] = gz;
    n->block[0] = bx, n->block[1] = by, n->block[2] = bz;
    n->shmem = shmem;
    *phGraphNode = n;
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                 size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    /* Since CUDA 12 either func or kern names the kernel. */
    return add_kernel_node(phGraphNode, hGraph, dependencies, numDependencies,
                           p->func ? p->func : (CUfunction)p->kern, p->gridDimX, p->gridDimY, p->gridDimZ,
                           p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes);
}

CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return add_kernel_node(phGraphNode, hGraph, dependencies, numDependencies, p->func, p->gridDimX, p->gridDimY,
                           p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes);
}

/* The child graph is cloned into the node, as with the real driver. */
CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                  size_t numDependencies, CUgraph childGraph)
{
    struct CUgraph_st *gr, *child;
    struct CUgraphNode_st *n;
    CUresult rc;

    lock();
    if ((rc = get_graph(hGraph, &gr)) || (rc = get_graph(childGraph, &child)) ||
        (rc = check_deps(gr, dependencies, numDependencies)))
        RETURN(rc);
    if (!phGraphNode || child == gr)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(n = node_add(gr, CU_GRAPH_NODE_TYPE_GRAPH)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    if (!(n->child = graph_clone(child)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    *phGraphNode = n;
    RETURN(CUDA_SUCCESS);
}

/* flags (CU_GRAPH_COND_ASSIGN_DEFAULT) are accepted and ignored: the default value is always the value. */
CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph, CUcontext ctx,
                                        unsigned int defaultLaunchValue, unsigned int flags)
{
    struct CUgraph_st *gr;
    struct cond_handle *h;
    CUresult rc;

    lock();
    if ((rc = get_graph(hGraph, &gr)))
        RETURN(rc);
    if (!pHandle_out || (flags & ~(unsigned)CU_GRAPH_COND_ASSIGN_DEFAULT))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (ctx && !find(ctx, K_CTX))
        RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!(h = realloc(conds, (nconds + 1) * sizeof *h)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    conds = h;
    conds[nconds].graph = gr;
    conds[nconds].value = defaultLaunchValue;
    *pHandle_out = ++nconds;
    RETURN(CUDA_SUCCESS);
}

/* A conditional node: its body graphs are made here, owned by the node, and handed back through
 * p->phGraph_out (an array the node owns, as with the real driver). */
static CUresult add_cond_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
                              CUDA_CONDITIONAL_NODE_PARAMS *p)
{
    struct CUgraph_st *gr;
    struct CUgraphNode_st *n;
    CUresult rc;

    lock();
    if ((rc = get_graph(hGraph, &gr)) || (rc = check_deps(gr, deps, ndeps)))
        RETURN(rc);
    if (!phGraphNode || !cond_of(p->handle) || p->size == 0 ||
        (p->type == CU_GRAPH_COND_TYPE_IF && p->size > 2) || (p->type == CU_GRAPH_COND_TYPE_WHILE && p->size != 1) ||
        (unsigned)p->type > CU_GRAPH_COND_TYPE_SWITCH)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(n = node_add(gr, CU_GRAPH_NODE_TYPE_CONDITIONAL)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    n->cond_handle = p->handle;
    n->cond_type = p->type;
    if (!(n->bodies = calloc(p->size, sizeof *n->bodies)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    for (; n->nbodies < p->size; n->nbodies++)
        if (!(n->bodies[n->nbodies] = graph_new()))
            RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    p->phGraph_out = (CUgraph *)n->bodies;
    *phGraphNode = n;
    RETURN(CUDA_SUCCESS);
}

/* Kernel and conditional nodes; other types answer CUDA_ERROR_NOT_SUPPORTED. Edge data is ignored. */
CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                           const CUgraphEdgeData *dependencyData, size_t numDependencies,
                           CUgraphNodeParams *nodeParams)
{
    (void)dependencyData;
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    switch (nodeParams->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        const CUDA_KERNEL_NODE_PARAMS_v3 *k = &nodeParams->kernel;
        return add_kernel_node(phGraphNode, hGraph, dependencies, numDependencies,
                               k->func ? k->func : (CUfunction)k->kern, k->gridDimX, k->gridDimY, k->gridDimZ,
                               k->blockDimX, k->blockDimY, k->blockDimZ, k->sharedMemBytes);
    }
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return add_cond_node(phGraphNode, hGraph, dependencies, numDependencies, &nodeParams->conditional);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    return cuGraphAddNode_v2(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams);
}

/* A copy of every node (child graphs and conditional bodies deep-copied). */
CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
    struct CUgraph_st *gr, *c;
    CUresult rc;

    lock();
    if ((rc = get_graph(originalGraph, &gr)))
        RETURN(rc);
    if (!phGraphClone)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(c = graph_clone(gr)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    *phGraphClone = c;
    RETURN(CUDA_SUCCESS);
}

/* The node of hClonedGraph cloned from hOriginalNode; INVALID_VALUE when that graph is not a clone of the
 * node's graph. */
CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph)
{
    struct CUgraph_st *gr;
    struct CUgraphNode_st *o, *n;
    CUresult rc;

    lock();
    if ((rc = get_node(hOriginalNode, &o)) || (rc = get_graph(hClonedGraph, &gr)))
        RETURN(rc);
    if (!phNode || gr->origin != o->graph)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    for (n = gr->head; n; n = n->next)
        if (n->origin == o) {
            *phNode = n;
            RETURN(CUDA_SUCCESS);
        }
    RETURN(CUDA_ERROR_INVALID_VALUE);
}

/* An executable graph belongs to the context current at instantiation and dies with it. */
static CUresult instantiate(CUgraphExec *phGraphExec, CUgraph hGraph)
{
    struct CUctx_st *c;
    struct CUgraph_st *gr;
    struct CUgraphExec_st *x;
    CUresult rc;

    lock();
    if ((rc = need_ctx(&c)) || (rc = get_graph(hGraph, &gr)))
        RETURN(rc);
    if (!phGraphExec)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(x = calloc(1, sizeof *x)))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    if (!(x->graph = graph_clone(gr)) || reg(x, K_EXEC)) {
        if (x->graph)
            graph_free(x->graph);
        free(x);
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    x->ctx = c;
    x->gen = c->gen;
    graph_load(x->graph, c); /* instantiation loads the graph's kernels: no lazy loading at launch */
    *phGraphExec = x;
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    (void)flags;
    return instantiate(phGraphExec, hGraph);
}

/* CUDA 10/11's form; cuda.h now maps the name cuGraphInstantiate to cuGraphInstantiateWithFlags. */
CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                            size_t bufferSize)
{
    if (phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = '\0';
    return instantiate(phGraphExec, hGraph);
}

CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                               size_t bufferSize)
{
    return cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    struct CUgraphExec_st *x;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!(x = find(hGraphExec, K_EXEC)))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    unreg(x);
    graph_free(x->graph);
    free(x);
    RETURN(CUDA_SUCCESS);
}

static CUresult graph_launch(CUgraphExec hGraphExec, CUstream hStream, int ptds)
{
    struct CUgraphExec_st *x;
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if (!g.inited)
        RETURN(CUDA_ERROR_NOT_INITIALIZED);
    if (!(x = find(hGraphExec, K_EXEC)))
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if ((rc = get_stream(hStream, ptds, &s)))
        RETURN(rc);
    if (!x->ctx->active || x->gen != x->ctx->gen)
        RETURN(CUDA_ERROR_CONTEXT_IS_DESTROYED);
    if (s->ctx != x->ctx)
        RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE) {
        /* Launching into a capture adds the graph as a child graph node. */
        struct CUgraphNode_st *n = capture_node(s, CU_GRAPH_NODE_TYPE_GRAPH, &rc);
        if (n && !(n->child = graph_clone(x->graph)))
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        RETURN(rc);
    }
    graph_run(x->graph, s);
    work_put(s, W_KERNEL); /* FAKEGPU_HANDOFF_NS: a graph launch counts as a kernel */
    RETURN(CUDA_SUCCESS);
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) { return graph_launch(hGraphExec, hStream, 0); }
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) { return graph_launch(hGraphExec, hStream, 1); }

/* ------------------------------------------------------------------ stream capture */

static CUresult begin_capture(CUstream h, CUstreamCaptureMode mode, int ptds)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (s->kind == S_LEGACY)
        RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_ERROR_ILLEGAL_STATE);
    if (!(s->cap_graph = graph_new()))
        RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    s->cap_status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    s->cap_mode = mode;
    s->cap_thread = thread_id();
    s->cap_id = ++g.next_capture_id;
    s->cap_last = NULL;
    s->cap_next = g.capturing;
    g.capturing = s;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) { return begin_capture(hStream, mode, 0); }
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin_capture(hStream, mode, 1);
}
/* CUDA 10.0's form, without a mode: global. */
CUresult cuStreamBeginCapture(CUstream hStream) { return begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, 0); }
CUresult cuStreamBeginCapture_ptsz(CUstream hStream)
{
    return begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, 1);
}

static CUresult end_capture(CUstream h, CUgraph *phGraph, int ptds)
{
    struct CUstream_st *s;
    struct CUgraph_st *gr;
    CUresult rc;

    lock();
    if ((rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (!phGraph)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *phGraph = NULL;
    if (s->cap_status == CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_ERROR_ILLEGAL_STATE);
    if (s->cap_mode != CU_STREAM_CAPTURE_MODE_RELAXED && s->cap_thread != thread_id())
        RETURN(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    if (s->cap_status == CU_STREAM_CAPTURE_STATUS_INVALIDATED) {
        capture_drop(s);
        RETURN(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    }
    gr = s->cap_graph;
    s->cap_graph = NULL;
    capture_drop(s);
    *phGraph = gr;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) { return end_capture(hStream, phGraph, 0); }
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) { return end_capture(hStream, phGraph, 1); }

static CUresult capture_info(CUstream h, int ptds, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *ndeps)
{
    struct CUstream_st *s;
    CUresult rc;

    lock();
    if ((rc = get_stream(h, ptds, &s)))
        RETURN(rc);
    if (!status)
        RETURN(CUDA_ERROR_INVALID_VALUE);
    *status = s->cap_status;
    if (s->cap_status == CU_STREAM_CAPTURE_STATUS_NONE)
        RETURN(CUDA_SUCCESS);
    if (id)
        *id = s->cap_id;
    if (s->cap_status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        RETURN(CUDA_SUCCESS);
    if (graph)
        *graph = s->cap_graph;
    if (deps)
        *deps = s->cap_last ? (const CUgraphNode *)&s->cap_last : NULL;
    if (edges)
        *edges = NULL;
    if (ndeps)
        *ndeps = s->cap_last ? 1 : 0;
    RETURN(CUDA_SUCCESS);
}

CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out);
}

CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                        const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out);
}

CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   size_t *numDependencies_out)
{
    return capture_info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out, NULL,
                        numDependencies_out);
}

CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                        size_t *numDependencies_out)
{
    return capture_info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out, NULL,
                        numDependencies_out);
}

CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{
    return capture_info(hStream, 0, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{
    return capture_info(hStream, 1, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------ cuGetProcAddress */

/* The one lookup table: base name as cudart asks for it, the first CUDA version that gets this
 * entry point, the default-stream export and the per-thread-default-stream export (NULL: none). */
struct proc {
    const char *name;
    int version;
    void *fn;
    void *ptds;
};

#define P(name, version, fn) { name, version, (void *)fn, NULL }
#define T(name, version, fn, ptfn) { name, version, (void *)fn, (void *)ptfn }

static const struct proc procs[] = {
    P("cuGetProcAddress", 11030, cuGetProcAddress),
    P("cuGetProcAddress", 12000, cuGetProcAddress_v2),
    P("cuInit", 2000, cuInit),
    P("cuDriverGetVersion", 2020, cuDriverGetVersion),
    P("cuDeviceGet", 2000, cuDeviceGet),
    P("cuDeviceGetCount", 2000, cuDeviceGetCount),
    P("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
    P("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
    P("cuDeviceGetName", 2000, cuDeviceGetName),
    P("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    P("cuDeviceTotalMem", 2000, cuDeviceTotalMem),
    P("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    P("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    P("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    P("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    P("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    P("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    P("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    P("cuCtxCreate", 2000, cuCtxCreate),
    P("cuCtxCreate", 3020, cuCtxCreate_v2),
    P("cuCtxCreate", 11040, cuCtxCreate_v3),
    P("cuCtxCreate", 12050, cuCtxCreate_v4),
    P("cuCtxDestroy", 2000, cuCtxDestroy),
    P("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    P("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    P("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    P("cuCtxPushCurrent", 2000, cuCtxPushCurrent),
    P("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    P("cuCtxPopCurrent", 2000, cuCtxPopCurrent),
    P("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    P("cuCtxGetDevice", 2000, cuCtxGetDevice),
    P("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
    P("cuCtxSynchronize", 2000, cuCtxSynchronize),
    P("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    P("cuGetErrorString", 6000, cuGetErrorString),
    P("cuGetErrorName", 6000, cuGetErrorName),
    P("cuStreamCreate", 2000, cuStreamCreate),
    P("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority),
    P("cuStreamDestroy", 2000, cuStreamDestroy),
    P("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    T("cuStreamSynchronize", 2000, cuStreamSynchronize, cuStreamSynchronize_ptsz),
    T("cuStreamWaitEvent", 3020, cuStreamWaitEvent, cuStreamWaitEvent_ptsz),
    T("cuStreamWaitValue32", 12000, cuStreamWaitValue32_v2, cuStreamWaitValue32_v2_ptsz),
    T("cuLaunchHostFunc", 10000, cuLaunchHostFunc, cuLaunchHostFunc_ptsz),
    T("cuStreamQuery", 2000, cuStreamQuery, cuStreamQuery_ptsz),
    T("cuStreamGetCtx", 9020, cuStreamGetCtx, cuStreamGetCtx_ptsz),
    T("cuStreamGetFlags", 5050, cuStreamGetFlags, cuStreamGetFlags_ptsz),
    T("cuStreamGetPriority", 5050, cuStreamGetPriority, cuStreamGetPriority_ptsz),
    T("cuStreamIsCapturing", 10000, cuStreamIsCapturing, cuStreamIsCapturing_ptsz),
    P("cuThreadExchangeStreamCaptureMode", 10010, cuThreadExchangeStreamCaptureMode),
    T("cuStreamBeginCapture", 10000, cuStreamBeginCapture, cuStreamBeginCapture_ptsz),
    T("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz),
    T("cuStreamEndCapture", 10000, cuStreamEndCapture, cuStreamEndCapture_ptsz),
    T("cuStreamGetCaptureInfo", 10010, cuStreamGetCaptureInfo, cuStreamGetCaptureInfo_ptsz),
    T("cuStreamGetCaptureInfo", 11030, cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo_v2_ptsz),
    T("cuStreamGetCaptureInfo", 12030, cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz),
    P("cuGraphCreate", 10000, cuGraphCreate),
    P("cuGraphDestroy", 10000, cuGraphDestroy),
    P("cuGraphGetNodes", 10000, cuGraphGetNodes),
    P("cuGraphNodeGetType", 10000, cuGraphNodeGetType),
    P("cuGraphKernelNodeGetParams", 10000, cuGraphKernelNodeGetParams),
    P("cuGraphKernelNodeGetParams", 12000, cuGraphKernelNodeGetParams_v2),
    P("cuGraphAddKernelNode", 10000, cuGraphAddKernelNode),
    P("cuGraphAddKernelNode", 12000, cuGraphAddKernelNode_v2),
    P("cuGraphChildGraphNodeGetGraph", 10000, cuGraphChildGraphNodeGetGraph),
    P("cuGraphAddNode", 12020, cuGraphAddNode),
    P("cuGraphAddNode", 12030, cuGraphAddNode_v2),
    P("cuGraphConditionalHandleCreate", 12030, cuGraphConditionalHandleCreate),
    P("cuGraphClone", 10000, cuGraphClone),
    P("cuGraphNodeFindInClone", 10000, cuGraphNodeFindInClone),
    P("cuGraphAddChildGraphNode", 10000, cuGraphAddChildGraphNode),
    P("cuGraphInstantiate", 10000, cuGraphInstantiate),
    P("cuGraphInstantiate", 11000, cuGraphInstantiate_v2),
    P("cuGraphInstantiate", 12000, cuGraphInstantiateWithFlags),
    P("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags),
    P("cuGraphExecDestroy", 10000, cuGraphExecDestroy),
    T("cuGraphLaunch", 10000, cuGraphLaunch, cuGraphLaunch_ptsz),
    P("cuEventCreate", 2000, cuEventCreate),
    P("cuEventDestroy", 2000, cuEventDestroy),
    P("cuEventDestroy", 4000, cuEventDestroy_v2),
    T("cuEventRecord", 2000, cuEventRecord, cuEventRecord_ptsz),
    T("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz),
    P("cuEventQuery", 2000, cuEventQuery),
    P("cuEventSynchronize", 2000, cuEventSynchronize),
    P("cuEventElapsedTime", 2000, cuEventElapsedTime),
    P("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    P("cuLibraryLoadData", 12000, cuLibraryLoadData),
    P("cuLibraryUnload", 12000, cuLibraryUnload),
    P("cuLibraryGetKernel", 12000, cuLibraryGetKernel),
    P("cuKernelGetFunction", 12000, cuKernelGetFunction),
    P("cuKernelGetName", 12030, cuKernelGetName),
    P("cuFuncGetName", 12030, cuFuncGetName),
    P("cuFuncLoad", 12040, cuFuncLoad),
    P("cuFuncIsLoaded", 12040, cuFuncIsLoaded),
    P("cuFuncGetParamInfo", 12040, cuFuncGetParamInfo),
    P("cuModuleLoadData", 2000, cuModuleLoadData),
    P("cuModuleGetFunction", 2000, cuModuleGetFunction),
    P("cuModuleUnload", 2000, cuModuleUnload),
    T("cuLaunchKernel", 4000, cuLaunchKernel, cuLaunchKernel_ptsz),
    T("cuLaunchKernelEx", 11060, cuLaunchKernelEx, cuLaunchKernelEx_ptsz),
    T("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz),
    P("cuMemAlloc", 3020, cuMemAlloc_v2),
    P("cuMemFree", 3020, cuMemFree_v2),
    P("cuMemAllocHost", 2000, cuMemAllocHost),
    P("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    P("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2),
    P("cuMemHostAlloc", 2020, cuMemHostAlloc),
    P("cuMemFreeHost", 2000, cuMemFreeHost),
    P("cuMemHostRegister", 4000, cuMemHostRegister),
    P("cuMemHostRegister", 6050, cuMemHostRegister_v2),
    P("cuMemHostUnregister", 4000, cuMemHostUnregister),
    P("cuMemAllocManaged", 6000, cuMemAllocManaged),
    T("cuMemAllocAsync", 11020, cuMemAllocAsync, cuMemAllocAsync_ptsz),
    T("cuMemFreeAsync", 11020, cuMemFreeAsync, cuMemFreeAsync_ptsz),
    P("cuMemGetInfo", 2000, cuMemGetInfo),
    P("cuMemGetInfo", 3020, cuMemGetInfo_v2),
    P("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    P("cuPointerGetAttributes", 7000, cuPointerGetAttributes),
    T("cuMemcpy", 4000, cuMemcpy, cuMemcpy_ptds),
    T("cuMemcpyAsync", 4000, cuMemcpyAsync, cuMemcpyAsync_ptsz),
    T("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds),
    T("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds),
    T("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds),
    T("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz),
    T("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz),
    T("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz),
    T("cuMemcpyPeer", 4000, cuMemcpyPeer, cuMemcpyPeer_ptds),
    T("cuMemcpyPeerAsync", 4000, cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz),
    T("cuMemcpy2D", 3020, cuMemcpy2D_v2, cuMemcpy2D_v2_ptds),
    T("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz),
    T("cuMemcpy3D", 3020, cuMemcpy3D_v2, cuMemcpy3D_v2_ptds),
    T("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz),
    T("cuMemsetD8", 3020, cuMemsetD8_v2, cuMemsetD8_v2_ptds),
    T("cuMemsetD16", 3020, cuMemsetD16_v2, cuMemsetD16_v2_ptds),
    T("cuMemsetD32", 3020, cuMemsetD32_v2, cuMemsetD32_v2_ptds),
    T("cuMemsetD8Async", 3020, cuMemsetD8Async, cuMemsetD8Async_ptsz),
    T("cuMemsetD16Async", 3020, cuMemsetD16Async, cuMemsetD16Async_ptsz),
    T("cuMemsetD32Async", 3020, cuMemsetD32Async, cuMemsetD32Async_ptsz),
    T("cuMemsetD2D8", 3020, cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds),
    T("cuMemsetD2D16", 3020, cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds),
    T("cuMemsetD2D32", 3020, cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds),
    T("cuMemsetD2D8Async", 3020, cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz),
    T("cuMemsetD2D16Async", 3020, cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz),
    T("cuMemsetD2D32Async", 3020, cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz),
};

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    const struct proc *best = NULL;
    int known = 0;

    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    /* The newest entry that the caller's version is entitled to. */
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        if (strcmp(procs[i].name, symbol) != 0)
            continue;
        known = 1;
        if (procs[i].version <= cudaVersion && (!best || procs[i].version > best->version))
            best = &procs[i];
    }
    if (!best) {
        if (symbolStatus)
            *symbolStatus = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->ptds ? best->ptds : best->fn;
    if (symbolStatus)
        *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}

/* ------------------------------------------------------------------ ground truth at exit */

static int by_name(struct kernel_truth *a, struct kernel_truth *b)
{
    return strcmp(a->name, b->name);
}

/* Runs from the ELF destructor, so after every atexit handler (cudart's teardown included) and
 * on both return from main and exit(). One write() with O_APPEND keeps a process's lines together. */
static void write_truth(void)
{
    static const char *copy_names[] = { "HtoD", "DtoH", "DtoD", "HtoH" };
    static const char *alloc_names[] = { "device", "host", "managed" };
    struct kernel_truth *k, *tmp;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    int fd;

    if (!cfg.truth_path || !*cfg.truth_path || g.truth_written)
        return;
    g.truth_written = 1;
    f = open_memstream(&buf, &len);
    if (!f)
        return;
    HASH_SORT(g.kernels, by_name);
    HASH_ITER(hh, g.kernels, k, tmp)
        fprintf(f, "kernel %s %llu %llu\n", k->name, (unsigned long long)k->launches, (unsigned long long)k->ns);
    for (int i = 0; i < 4; i++)
        fprintf(f, "copy %s %llu %llu\n", copy_names[i], (unsigned long long)g.copies[i].count,
                (unsigned long long)g.copies[i].bytes);
    fprintf(f, "memset %llu %llu\n", (unsigned long long)g.memsets.count, (unsigned long long)g.memsets.bytes);
    if (cfg.truth_queries)
        fprintf(f,
                "queries main_after_first_kernel %llu\nqueries other_threads_after_first_kernel %llu\n"
                "queries harvester_after_first_kernel %llu\n",
                g.main_queries, g.other_queries, g.harvester_queries);
    for (int i = 0; i < 3; i++)
        fprintf(f, "alloc %s %llu %llu\n", alloc_names[i], (unsigned long long)g.allocs_by_type[i].count,
                (unsigned long long)g.allocs_by_type[i].bytes);
    fclose(f);
    fd = open(cfg.truth_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "fakegpu: cannot open FAKEGPU_TRUTH=%s: %s\n", cfg.truth_path, strerror(errno));
    } else {
        if (write(fd, buf, len) != (ssize_t)len)
            fprintf(stderr, "fakegpu: short write to %s\n", cfg.truth_path);
        close(fd);
    }
    free(buf);
}

/* fork(): the child gets no usable driver (every call answers CUDA_ERROR_NOT_INITIALIZED, cuInit included)
 * and never writes the truth file, whose counts are the parent's. */
static void fork_prepare(void)
{
    lock();
}

static void fork_parent(void)
{
    unlock();
}

static void fork_child(void)
{
    if (g.inited) {
        g.forked = 1;
        g.truth_written = 1;
    }
    g.inited = 0;
    tl_depth = 0;
    unlock();
}

static pid_t loaded_pid;

/* The process that loaded the driver writes FAKEGPU_ERRORS_FILE (a forked child's calls are its own). */
static void write_errors(void)
{
    const char *path = getenv("FAKEGPU_ERRORS_FILE");
    FILE *f;

    if (!path || !*path || getpid() != loaded_pid)
        return;
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "fakegpu: cannot open FAKEGPU_ERRORS_FILE=%s: %s\n", path, strerror(errno));
        return;
    }
    for (int i = 0; i < nerrors; i++)
        fprintf(f, "error %s %d %lu\n", errors[i].fn, (int)errors[i].rc, errors[i].n);
    fclose(f);
}

__attribute__((constructor)) static void fake_driver_init(void)
{
    loaded_pid = getpid();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

__attribute__((destructor)) static void fake_driver_fini(void)
{
    pthread_once(&config_once, load_config);
    pthread_mutex_lock(&g.lock);
    write_truth();
    write_errors();
    if (cfg.report_holds)
        fprintf(stderr, "fakegpu: longest kprof_hold timeout: %llu ns\n", (unsigned long long)g.hold_timeout_max);
    pthread_mutex_unlock(&g.lock);
}
