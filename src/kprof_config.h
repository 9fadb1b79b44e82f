/* kprof_config.h: the effective configuration (KPROF_* variables), read once by config.c. */
#ifndef KPROF_CONFIG_H
#define KPROF_CONFIG_H

#include <stdint.h>
#include <regex.h>
#include "log.h"

enum kprof_format { KPROF_FORMAT_TEXT, KPROF_FORMAT_CSV, KPROF_FORMAT_JSON };
enum kprof_group { KPROF_GROUP_NAME, KPROF_GROUP_SHAPE };
enum kprof_names { KPROF_NAMES_DEMANGLED, KPROF_NAMES_MANGLED, KPROF_NAMES_BASE };

/* The effective configuration: defaults, then KPROF_* environment variables (config.c is the only code
 * that reads the environment).  Filled once by kprof_config_load() before any hook runs; read-only after.
 * man/libkprof.7 (ENVIRONMENT) documents each variable. */
struct kprof_config {
    enum kprof_format format;   /* KPROF_FORMAT: text (default), csv or json */
    const char *output;         /* KPROF_OUTPUT: report path pattern; NULL means stderr (csv: kprof.%p) */
    const char *trace;          /* KPROF_TRACE: Chrome trace path pattern; NULL means no trace */
    const char *save;           /* KPROF_SAVE: path pattern of a JSON copy of the report; NULL means none */
    long trace_limit;           /* KPROF_TRACE_LIMIT: most trace events kept */
    enum kprof_log_level log;   /* KPROF_LOG: warn (default), info, debug */
    int disabled;               /* KPROF_DISABLE=1: every wrapper passes straight through */
    int start_paused;           /* KPROF_START=paused: nothing profiled until cudaProfilerStart */
    int signals;                /* KPROF_SIGNALS=1: write the report on SIGINT/SIGTERM too */
    long exit_timeout_ms;       /* KPROF_EXIT_TIMEOUT: longest wait for pending events at exit, ms */
    long max_events;            /* KPROF_MAX_EVENTS: events per context (two per timed call) */
    enum kprof_group group;     /* KPROF_GROUP: one row per kernel name, or per name and launch shape */
    enum kprof_names names;     /* KPROF_NAMES: show demangled (default) or mangled names, or (text report)
                                   the base name, the full one staying in JSON, CSV and the trace */
    long name_width;            /* KPROF_NAME_WIDTH: text report, longest kernel name shown (longer ones cut,
                                   ending "..."); 0 = whole names */
    long top;                   /* KPROF_TOP: kernels shown in the text table; 0 = all */
    long sample;                /* KPROF_SAMPLE: time 1 launch in N per kernel (the first always); 1 = all;
                                   0 = auto (sampling.h) */
    long sample_budget;         /* KPROF_SAMPLE_BUDGET: auto, most timed launches per second */
    long seed;                  /* KPROF_SEED: auto, the draws' seed; 0 = chosen at start */
    int auto_check;             /* KPROF_AUTO_CHECK: every launch timed (sample 1), auto's draws made alongside
                                   and its estimates reported beside the measured totals (sampling.h) */
    int one_event;              /* KPROF_ONE_EVENT: a launch on a busy stream starts at the previous stop */
    int calibrate;              /* KPROF_CALIBRATE: measure and take off each context's event hand-off */
    int hold;                   /* KPROF_HOLD: hold streams until a timed launch is queued (struct kprof_hold):
                                 * 0 never, 1 every launch, N the first of each shape then 1 in N */
    const char *tool_attached;  /* another tool that counts kernels (CUDA_INJECTION64_PATH...), or NULL */
    int64_t invocation_ns;      /* KPROF_INVOCATION: start of the kprof(1) invocation, ns since the epoch by
                                   the file system's clock; 0 = none.  Reports are never written over a
                                   file modified since (another process of the invocation wrote it) */
    int exec_image;             /* KPROF_EXEC_IMAGE: which program of this process this is, 1 for the first;
                                   n > 1 after n - 1 execs that followed a report (hook_exec.c), whose files
                                   this one's are named apart from (report.c) */
    long launched_pid;          /* KPROF_LAUNCHED_PID: the process kprof(1) started (0: not under kprof).
                                   Under kprof, a process that profiled nothing says why at exit */
    long rank;                  /* the process's rank as its launcher set it (OMPI_COMM_WORLD_RANK, PMIX_RANK,
                                   PMI_RANK, SLURM_PROCID, RANK: the first set to a number from 0 to
                                   2^31 - 1), for the report's labels; -1 = none */
    int has_include, has_exclude;
    regex_t include, exclude;   /* KPROF_INCLUDE / KPROF_EXCLUDE: extended regexes on demangled names */
};
extern struct kprof_config kprof_config;

/* Under KPROF_SAMPLE, each thread reads the host time of 1 in KPROF_HOST_SAMPLE of the launches left
 * untimed (kprof_call_host in call.h); the api table estimates the others' from them. */
#define KPROF_HOST_SAMPLE 64

/* Reads the KPROF_* variables into kprof_config, warning once (on stderr) about unknown names and bad
 * values, each of which falls back to its default.  Not thread-safe: called once from the constructor. */
void kprof_config_load(void);

/* Expands a KPROF_OUTPUT/KPROF_TRACE/KPROF_SAVE pattern: %p the pid, %h the host name, %q{VAR} the value of the
 * environment variable VAR (empty if unset; its name of any length), %% a percent sign; any other %
 * sequence is kept as it is.
 * Returns a malloc'd string the caller frees, or NULL when out of memory. */
char *kprof_expand_path(const char *pattern);

/* 1 when a kernel of this demangled name is to be profiled (KPROF_INCLUDE / KPROF_EXCLUDE, which never
 * hold back-references: the match is polynomial, but may still take a while on a long name, so call it
 * without libkprof's locks held).  Thread-safe. */
int kprof_name_selected(const char *demangled);

/* Whether KPROF_HOLD=N's draw applies: N above 1, and launches timed every one or one in a fixed number
 * (KPROF_SAMPLE=N: the draw is among the timed launches, which all weigh N).  Not under KPROF_SAMPLE=auto,
 * where each launch due a hold is held: the learned offsets would weigh alike launches that its sampling
 * weighs apart. */
static inline int kprof_hold_sampled(void)
{
    return kprof_config.hold > 1 && kprof_config.sample >= 1;
}

#endif
