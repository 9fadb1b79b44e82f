/* config.c: the only code that reads the environment; fills struct kprof_config from KPROF_* variables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kprof.h"

extern char **environ;

struct kprof_config kprof_config = {
    .format = KPROF_FORMAT_TEXT,
    .output = NULL,
    .log = KPROF_LOG_WARN,
    .disabled = 0,
    .exit_timeout_ms = 5000,
    .max_events = 65536,
};

/* Every variable libkprof understands, for the unknown-name check and the debug dump. */
static const char *const known_vars[] = {
    "KPROF_FORMAT", "KPROF_OUTPUT", "KPROF_LOG", "KPROF_DISABLE", "KPROF_EXIT_TIMEOUT", "KPROF_MAX_EVENTS",
};

/* Parses a whole decimal number in [lo, hi]; returns 0 (and leaves *out) on any junk. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Picks a value from a list of names; returns its index or -1. */
static int parse_choice(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static void bad_value(const char *var, const char *value, const char *expected, const char *dflt)
{
    kprof_warn("ignoring %s='%s' (expected %s); using %s", var, value, expected, dflt);
}

void kprof_config_load(void)
{
    const char *v;

    /* KPROF_LOG first, so the rest can be logged at the chosen level. */
    if ((v = getenv("KPROF_LOG")) != NULL) {
        static const char *const levels[] = { "warn", "info", "debug" };
        int i = parse_choice(v, levels, 3);
        if (i < 0)
            bad_value("KPROF_LOG", v, "warn, info or debug", "warn");
        else
            kprof_config.log = (enum kprof_log_level)i;
    }
    if ((v = getenv("KPROF_FORMAT")) != NULL) {
        static const char *const formats[] = { "text", "json" };
        int i = parse_choice(v, formats, 2);
        if (i < 0)
            bad_value("KPROF_FORMAT", v, "text or json", "text");
        else
            kprof_config.format = (enum kprof_format)i;
    }
    if ((v = getenv("KPROF_OUTPUT")) != NULL) {
        if (*v == '\0')
            bad_value("KPROF_OUTPUT", v, "a file path", "stderr");
        else
            kprof_config.output = v;
    }
    if ((v = getenv("KPROF_DISABLE")) != NULL) {
        long b;
        if (!parse_long(v, 0, 1, &b))
            bad_value("KPROF_DISABLE", v, "0 or 1", "0");
        else
            kprof_config.disabled = (int)b;
    }
    if ((v = getenv("KPROF_EXIT_TIMEOUT")) != NULL) {
        long ms;
        if (!parse_long(v, 0, 3600000, &ms))
            bad_value("KPROF_EXIT_TIMEOUT", v, "milliseconds from 0 to 3600000", "5000");
        else
            kprof_config.exit_timeout_ms = ms;
    }
    if ((v = getenv("KPROF_MAX_EVENTS")) != NULL) {
        long n;
        if (!parse_long(v, 2, 1L << 24, &n))
            bad_value("KPROF_MAX_EVENTS", v, "a number of events from 2 to 16777216", "65536");
        else
            kprof_config.max_events = n;
    }

    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "KPROF_", 6) != 0)
            continue;
        size_t len = strcspn(*e, "=");
        int known = 0;
        for (size_t i = 0; i < sizeof known_vars / sizeof known_vars[0]; i++)
            if (strlen(known_vars[i]) == len && strncmp(*e, known_vars[i], len) == 0)
                known = 1;
        if (!known)
            kprof_warn("ignoring unknown variable %.*s", (int)len, *e);
    }

    kprof_debug("configuration: KPROF_FORMAT=%s KPROF_OUTPUT=%s KPROF_LOG=%s KPROF_DISABLE=%d "
                "KPROF_EXIT_TIMEOUT=%ld KPROF_MAX_EVENTS=%ld",
                kprof_config.format == KPROF_FORMAT_JSON ? "json" : "text",
                kprof_config.output ? kprof_config.output : "(stderr)",
                kprof_config.log == KPROF_LOG_DEBUG ? "debug" : kprof_config.log == KPROF_LOG_INFO ? "info" : "warn",
                kprof_config.disabled, kprof_config.exit_timeout_ms, kprof_config.max_events);
}
