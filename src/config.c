/* config.c: the only code that reads the environment; fills struct kprof_config from the KPROF_* variables of
 * config.def. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "log.h"
#include "kprof_config.h"


struct kprof_config kprof_config = {
    .format = KPROF_FORMAT_TEXT,
    .log = KPROF_LOG_WARN,
    .exit_timeout_ms = 5000,
    .max_events = 65536,
    .trace_limit = 1000000,
    .calibrate = 1,
    .hold = 8,
};

/* The variables of config.def, by index; parsing calls name them so. */
enum config_var {
#define KPROF_VAR(name, kind, dflt, doc) VAR_##name,
#include "config.def"
#undef KPROF_VAR
    VAR_COUNT
};

/* Every variable libkprof understands (for the unknown-name check and the debug print), with its default
 * as the debug print shows it. */
static const struct {
    const char *name, *dflt;
} vars[VAR_COUNT] = {
#define KPROF_VAR(name, kind, dflt, doc) [VAR_##name] = { #name, dflt },
#include "config.def"
#undef KPROF_VAR
};

/* Each variable's effective value as text, as its parser left it, for the KPROF_LOG=debug print; NULL
 * (shown as "(default)") for a path, regex or time stamp unset or refused.  Written once, by
 * kprof_config_load. */
static const char *effective[VAR_COUNT];
static char effective_number[VAR_COUNT][24]; /* the text of NUMBER variables */

static void bad_value(const char *var, const char *value, const char *expected, const char *dflt)
{
    kprof_warn("ignoring %s='%s' (expected %s); using %s", var, value, expected, dflt);
}

/* 1 when v is `word`, in any case, with nothing but white space around it (as strtol reads numbers). */
static int word_is(const char *v, const char *word)
{
    while (isspace((unsigned char)*v))
        v++;
    size_t n = strlen(word);
    if (strncasecmp(v, word, n) != 0)
        return 0;
    for (v += n; isspace((unsigned char)*v); v++)
        ;
    return *v == '\0';
}

/* Variable `id` as one of `choices` (NULL-terminated, white space around the value ignored); the index,
 * or `dflt` (with a warning if set but bad). */
static int env_choice(enum config_var id, const char *const *choices, const char *expected, int dflt)
{
    const char *var = vars[id].name;
    const char *v = secure_getenv(var);
    int r = dflt;
    if (v) {
        for (r = 0; choices[r] && !word_is(v, choices[r]); r++)
            ;
        if (!choices[r]) {
            bad_value(var, v, expected, choices[dflt]);
            r = dflt;
        }
    }
    effective[id] = choices[r];
    return r;
}

/* Variable `id` as a whole decimal number in [lo, hi] (white space around it ignored), or `dflt` (with a
 * warning if set but bad). */
static long env_long(enum config_var id, long lo, long hi, const char *expected, long dflt)
{
    const char *var = vars[id].name;
    const char *v = secure_getenv(var);
    long n = dflt;
    if (v) {
        char *end;
        errno = 0;
        n = strtol(v, &end, 10);
        while (end != v && isspace((unsigned char)*end))
            end++;
        if (errno || end == v || *end != '\0' || n < lo || n > hi) {
            char d[32];
            snprintf(d, sizeof d, "%ld", dflt);
            bad_value(var, v, expected, d);
            n = dflt;
        }
    }
    snprintf(effective_number[id], sizeof effective_number[id], "%ld", n);
    effective[id] = effective_number[id];
    return n;
}

/* KPROF_SAMPLE: a period from 1 to 2^30, or "auto" (0), white space around either ignored. */
static long env_sample(enum config_var id)
{
    const char *v = secure_getenv(vars[id].name);
    if (v && word_is(v, "auto")) {
        effective[id] = "auto";
        return 0;
    }
    return env_long(id, 1, 1L << 30, "a period from 1 (every launch) to 1073741824, or auto", 1);
}

/* Variable `id` as a path pattern; NULL when unset or empty (with a warning). */
/* The path pattern that the % at p starts (kprof_expand_path): 'p', 'h', 'q' (%q{VAR}, its } present) or
 * '%'; 0 for none (the % is written as it is). */
static char path_pattern(const char *p)
{
    if (p[1] == 'p' || p[1] == 'h' || p[1] == '%' || (p[1] == 'q' && p[2] == '{' && strchr(p + 3, '}')))
        return p[1];
    return 0;
}

static const char *env_path(enum config_var id, const char *dflt_name)
{
    const char *var = vars[id].name;
    const char *v = secure_getenv(var);
    if (v && *v == '\0') {
        bad_value(var, v, "a file path", dflt_name);
        v = NULL;
    }
    /* A % that starts none of the patterns (kprof_expand_path) is written as it is: said once, as a typo
     * would otherwise go unseen (a new user's -o 'o.%x.json'). */
    for (const char *p = v; p && (p = strchr(p, '%')) != NULL; p++) {
        char known = path_pattern(p);
        if (known) {
            p += known == '%'; /* "%%" is one character */
            continue;
        }
        if (p[1])
            kprof_warn("%s='%s': '%%%c' is no path pattern (%%p, %%h, %%q{VAR}, %%%%); written as it is", var, v, p[1]);
        else
            kprof_warn("%s='%s': a '%%' at its end is no path pattern (%%p, %%h, %%q{VAR}, %%%%); written as it is",
                       var, v);
        break;
    }
    effective[id] = v;
    return v;
}

/* KPROF_INVOCATION, "<seconds>.<nanoseconds>" (the launcher's start by the file system's clock), in ns
 * since the epoch; 0 when unset or bad (with a warning). */
static int64_t env_invocation(enum config_var id)
{
    const char *var = vars[id].name;
    const char *v = secure_getenv(var);
    effective[id] = NULL;
    if (!v)
        return 0;
    const char *p = v;
    int64_t sec = 0, ns = 0;
    int digits = 0, frac = 0;
    for (; *p >= '0' && *p <= '9' && digits < 12; p++, digits++)
        sec = sec * 10 + (*p - '0');
    if (digits > 0 && *p == '.')
        for (p++; *p >= '0' && *p <= '9' && frac < 9; p++, frac++)
            ns = ns * 10 + (*p - '0');
    for (int i = frac; i < 9; i++)
        ns *= 10;
    if (digits == 0 || *p != '\0' || sec == 0) {
        bad_value(var, v, "<seconds>.<nanoseconds>, as kprof(1) sets it", "none");
        return 0;
    }
    effective[id] = v;
    return sec * 1000000000 + ns;
}

/* KPROF_EXEC_IMAGE, "<pid>:<n>" (hook_exec.c sets it before an exec that follows a report): n, 2 to
 * 1000000, when pid is this process's (an exec keeps the pid); 1 when unset, or another process's (a child
 * inherits it; not applied, no word); 1 with a warning when bad. */
static int env_exec_image(enum config_var id)
{
    const char *var = vars[id].name;
    const char *v = secure_getenv(var);
    effective[id] = NULL;
    if (!v)
        return 1;
    char *end;
    errno = 0;
    long pid = strtol(v, &end, 10);
    long n = 0;
    if (v[0] >= '0' && v[0] <= '9' && *end == ':' && end[1] >= '0' && end[1] <= '9' && errno == 0) {
        const char *num = end + 1;
        n = strtol(num, &end, 10);
        if (*end != '\0' || errno != 0 || n < 2 || n > 1000000)
            n = 0;
    }
    if (n == 0) {
        bad_value(var, v, "<pid>:<n>, as libkprof sets it before an exec", "1");
        return 1;
    }
    if (pid != (long)getpid())
        return 1;
    effective[id] = v;
    return (int)n;
}

/* 1 when the extended regular expression re holds a back-reference (\1 to \9, a GNU extension) outside
 * a bracket expression: matching one can take time exponential in the name's length. */
static int has_backreference(const char *re)
{
    for (const char *p = re; *p; p++) {
        if (*p == '\\') {
            if (p[1] >= '1' && p[1] <= '9')
                return 1;
            if (p[1])
                p++;
        } else if (*p == '[') {
            /* Skip the bracket expression: a ']' first (after an optional '^') is literal, and
             * [:class:], [=x=], [.x.] hold ']' of their own. */
            const char *q = p + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                if (*q == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
                    const char *end = strchr(q + 2, q[1]);
                    while (end && end[1] != ']')
                        end = strchr(end + 1, q[1]);
                    if (!end)
                        break;
                    q = end + 2;
                } else {
                    q++;
                }
            }
            if (!*q)
                return 0; /* unterminated: regcomp rejects it */
            p = q;
        }
    }
    return 0;
}

/* Variable `id` as an extended regular expression; 1 when set and valid.  Back-references are refused
 * (with a warning, and no filter) because matching them can take exponential time at a kernel's first
 * launch. */
static int env_regex(enum config_var id, regex_t *re)
{
    const char *var = vars[id].name;
    const char *v = secure_getenv(var);
    effective[id] = NULL;
    if (!v)
        return 0;
    if (has_backreference(v)) {
        kprof_warn("ignoring %s='%s' (back-references such as \\1 are not supported: matching them can take "
                   "exponential time); using no filter", var, v);
        return 0;
    }
    int rc = regcomp(re, v, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[128];
        regerror(rc, re, msg, sizeof msg);
        kprof_warn("ignoring %s='%s' (not an extended regular expression: %s); using no filter", var, v, msg);
        return 0;
    }
    effective[id] = v;
    return 1;
}

/* The rank in environment variable `name`: a whole number from 0 to 2147483647, else -1 (a label only: a
 * value that is no number is passed over without a word). */
static long env_rank(const char *name)
{
    const char *v = secure_getenv(name);
    char *end;
    errno = 0;
    long r = v && *v >= '0' && *v <= '9' ? strtol(v, &end, 10) : -1;
    return r >= 0 && !errno && *end == '\0' && r <= 2147483647L ? r : -1;
}

void kprof_config_load(void)
{
    static const char *const logs[] = { "warn", "info", "debug", NULL };
    static const char *const formats[] = { "text", "csv", "json", NULL };
    static const char *const bools[] = { "0", "1", NULL };
    static const char *const bools_on[] = { "1", "0", NULL }; /* default 1 */
    static const char *const starts[] = { "running", "paused", NULL };
    static const char *const groups[] = { "name", "shape", NULL };
    static const char *const names[] = { "demangled", "mangled", "base", NULL };
    struct kprof_config *c = &kprof_config;

    /* KPROF_LOG first, so the rest can be logged at the chosen level. */
    c->log = (enum kprof_log_level)env_choice(VAR_KPROF_LOG, logs, "warn, info or debug", 0);
    kprof_log_set_level(c->log);
    c->format = (enum kprof_format)env_choice(VAR_KPROF_FORMAT, formats, "text, csv or json", 0);
    c->output = env_path(VAR_KPROF_OUTPUT, c->format == KPROF_FORMAT_CSV ? "kprof.%p" : "stderr");
    c->trace = env_path(VAR_KPROF_TRACE, "no trace");
    c->save = env_path(VAR_KPROF_SAVE, "no JSON copy");
    c->trace_limit = env_long(VAR_KPROF_TRACE_LIMIT, 0, 1L << 30, "a number of calls from 0 to 1073741824",
                              c->trace_limit);
    c->disabled = env_choice(VAR_KPROF_DISABLE, bools, "0 or 1", 0);
    c->start_paused = env_choice(VAR_KPROF_START, starts, "running or paused", 0);
    c->signals = env_choice(VAR_KPROF_SIGNALS, bools, "0 or 1", 0);
    c->exit_timeout_ms = env_long(VAR_KPROF_EXIT_TIMEOUT, 0, 3600000, "milliseconds from 0 to 3600000",
                                  c->exit_timeout_ms);
    c->max_events = env_long(VAR_KPROF_MAX_EVENTS, 2, 1L << 24, "a number of events from 2 to 16777216",
                             c->max_events);
    c->group = (enum kprof_group)env_choice(VAR_KPROF_GROUP, groups, "name or shape", 0);
    c->names = (enum kprof_names)env_choice(VAR_KPROF_NAMES, names, "demangled, mangled or base", 0);
    c->name_width = env_long(VAR_KPROF_NAME_WIDTH, 0, 1L << 30, "0 (whole names) or 10 to 1073741824", 0);
    if (c->name_width > 0 && c->name_width < 10) { /* too short for a name and its "..." */
        char v[24];
        snprintf(v, sizeof v, "%ld", c->name_width);
        bad_value(vars[VAR_KPROF_NAME_WIDTH].name, v, "0 (whole names) or 10 to 1073741824", "0");
        c->name_width = 0;
        snprintf(effective_number[VAR_KPROF_NAME_WIDTH], sizeof effective_number[0], "0");
    }
    c->top = env_long(VAR_KPROF_TOP, 0, 1L << 30, "a number of kernels from 0 (all) to 1073741824", 0);
    c->sample = env_sample(VAR_KPROF_SAMPLE);
    c->sample_budget = env_long(VAR_KPROF_SAMPLE_BUDGET, 1, 1000000000L, "timed launches per second from 1 to 1000000000",
                                2000);
    c->seed = env_long(VAR_KPROF_SEED, 0, (1L << 62) - 1, "a seed from 1 to 4611686018427387903 (0: chosen at start)", 0);
    c->auto_check = env_choice(VAR_KPROF_AUTO_CHECK, bools, "0 or 1", 0);
    if (c->auto_check && c->sample != 1) { /* the check compares against every launch timed */
        kprof_warn("ignoring KPROF_AUTO_CHECK=1: it times every launch to check KPROF_SAMPLE=auto's estimates, "
                   "so it needs KPROF_SAMPLE=1 (the default)");
        c->auto_check = 0;
        effective[VAR_KPROF_AUTO_CHECK] = "0";
    }
    c->one_event = !env_choice(VAR_KPROF_ONE_EVENT, bools_on, "1 or 0", 0);
    c->calibrate = !env_choice(VAR_KPROF_CALIBRATE, bools_on, "1 or 0", 0);
    c->hold = (int)env_long(VAR_KPROF_HOLD, 0, 65536, "0 (no holds), 1 (every launch) or 2 to 65536 (1 launch in N)", 8);
    /* Another tool that counts kernels (Nsight Systems and Compute, compute-sanitizer and CUPTI tracers load
     * through CUDA_INJECTION64_PATH): libkprof's calibration kernels would show in its counts. */
    const char *inj = secure_getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj)
        c->tool_attached = inj;
    c->has_include = env_regex(VAR_KPROF_INCLUDE, &c->include);
    c->has_exclude = env_regex(VAR_KPROF_EXCLUDE, &c->exclude);
    c->invocation_ns = env_invocation(VAR_KPROF_INVOCATION);
    c->exec_image = env_exec_image(VAR_KPROF_EXEC_IMAGE);
    c->launched_pid = env_long(VAR_KPROF_LAUNCHED_PID, 0, 2147483647, "a process id, as kprof(1) sets it", 0);
    /* The rank MPI launchers (Open MPI, PMIx, MPICH and Intel MPI), srun and torchrun give each process: a
     * label only, so a value that is no number is passed over without a word. */
    static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "RANK" };
    /* A worker of torchrun (TORCHELASTIC_RUN_ID set), which may itself run under srun or an MPI launcher:
     * RANK first, the worker's own (SLURM_PROCID there is the node's task, the same for all its workers:
     * a breaker helper). */
    c->rank = secure_getenv("TORCHELASTIC_RUN_ID") ? env_rank("RANK") : -1;
    for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0] && c->rank < 0; i++)
        c->rank = env_rank(rank_vars[i]);

    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "KPROF_", 6) != 0)
            continue;
        size_t len = strcspn(*e, "=");
        int known = 0;
        for (int i = 0; i < VAR_COUNT; i++)
            if (strlen(vars[i].name) == len && strncmp(*e, vars[i].name, len) == 0)
                known = 1;
        if (!known)
            kprof_warn("ignoring unknown variable %.*s", (int)len, *e);
    }

    /* The effective configuration, "configuration: KPROF_FORMAT=text KPROF_OUTPUT=(stderr) ...". */
    if (c->log >= KPROF_LOG_DEBUG) {
        char *line = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&line, &size);
        if (f) {
            for (int i = 0; i < VAR_COUNT; i++)
                fprintf(f, effective[i] ? " %s=%s" : " %s=(%s)", vars[i].name,
                        effective[i] ? effective[i] : vars[i].dflt);
            if (fclose(f) == 0)
                kprof_debug("configuration:%s", line);
            free(line);
        }
    }
}

int kprof_name_selected(const char *demangled)
{
    if (kprof_config.has_include && regexec(&kprof_config.include, demangled, 0, NULL, 0) != 0)
        return 0;
    if (kprof_config.has_exclude && regexec(&kprof_config.exclude, demangled, 0, NULL, 0) == 0)
        return 0;
    return 1;
}

/* Appends n bytes of s to the growing buffer *b (length *len, capacity *cap); 0 when out of memory. */
static int append(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*cap ? *cap * 2 : 64) + n;
        char *nb = realloc(*b, c);
        if (!nb)
            return 0;
        *b = nb;
        *cap = c;
    }
    memcpy(*b + *len, s, n);
    *len += n;
    (*b)[*len] = '\0';
    return 1;
}

char *kprof_expand_path(const char *pattern)
{
    char *b = NULL;
    size_t len = 0, cap = 0;
    int ok = append(&b, &len, &cap, "", 0);
    for (const char *p = pattern; ok && *p; p++) {
        if (*p != '%' || !p[1]) {
            ok = append(&b, &len, &cap, p, 1);
            continue;
        }
        char tmp[256];
        switch (path_pattern(p)) {
        case 'p':
            snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
            ok = append(&b, &len, &cap, tmp, strlen(tmp));
            p++;
            break;
        case 'h':
            if (gethostname(tmp, sizeof tmp) != 0)
                strcpy(tmp, "unknown");
            tmp[sizeof tmp - 1] = '\0';
            ok = append(&b, &len, &cap, tmp, strlen(tmp));
            p++;
            break;
        case '%':
            ok = append(&b, &len, &cap, "%", 1);
            p++;
            break;
        case 'q': {
            const char *close = strchr(p + 3, '}');
            /* The whole name, however long: a name cut short could name another variable. */
            char *var = strndup(p + 3, (size_t)(close - (p + 3)));
            const char *v = var ? secure_getenv(var) : NULL;
            ok = var != NULL;
            if (v)
                ok = append(&b, &len, &cap, v, strlen(v));
            free(var);
            p = close;
            break;
        }
        default:
            ok = append(&b, &len, &cap, p, 1);
        }
    }
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}
