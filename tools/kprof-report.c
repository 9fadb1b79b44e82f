/* kprof-report.c: `kprof report`: renders saved libkprof JSON reports (KPROF_FORMAT=json, KPROF_SAVE) again,
 * as nsys stats does a saved report: one report in text, CSV or JSON with libkprof's own report writers
 * (src/report/columns.c, src/report/report_*.c, linked in), so that its text is byte for byte the text report of the
 * run; several reports merged by kprof-merge's code (report-merge.c); or one HTML page of them (--html,
 * report-html.c). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "kprof_config.h"
#include "snapshot.h"
#include "report/report_writers.h"
#include "report-read.h"
#include "report-html.h"

/* kprof-merge's main (report-merge.c): merges the reports named in argv and writes its summary. */
int kprof_merge_main(int argc, char **argv);

/* Writes the --help text to f. */
static void usage(FILE *f)
{
    fprintf(f,
            "Usage: kprof report [-f text|csv|json] [--top N] [-o FILE] REPORT.json...\n"
            "       kprof report --html [--top N] [-o FILE] REPORT.json...\n"
            "Renders a libkprof JSON report saved by a run (kprof -f json -o FILE, or kprof --save FILE) again:\n"
            "its text is the text report of that run, byte for byte. Several reports are merged into one summary,\n"
            "as kprof-merge writes it (text or json). --html writes one self-contained page (inline SVG, no script,\n"
            "nothing fetched) of one report or several: the top kernels by GPU time, copies by direction, each\n"
            "device's busy share and, for several processes, each kernel's time per process.\n"
            "\n"
            "  -f, --format FORMAT   text (default), csv or json (one report: the run's own report in that\n"
            "                        format; csv: files FILE.kernels.csv..., FILE defaulting to REPORT\n"
            "                        without .json)\n"
            "      --top N           kernels shown in the text report's table, 0 (all) to 1073741824\n"
            "                        (as KPROF_TOP; default: the run's own KPROF_TOP, as saved in the\n"
            "                        report; several reports: every kernel); with --html, kernels\n"
            "                        in the page (default 20, 0 for all)\n"
            "      --html            write the HTML page (to stdout, or FILE)\n"
            "  -o, --output FILE     write to FILE, not stdout (csv: the base name of its files)\n"
            "  -h, --help            show this help and exit\n"
            "  -V, --version         show the version and exit\n"
            "\n"
            "Exit status: 0, 1 when a report cannot be read or the output written, 2 for a usage error.\n"
            "See kprof(1).\n");
}

/* A usage error: one "kprof: " line, exit status 2. */
static int usage_error(const char *fmt, const char *arg)
{
    fputs("kprof: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* Closes f (stdout is only flushed); false, after a message, when anything written to it was lost. */
static bool finish(FILE *f, const char *output)
{
    bool ok = !ferror(f);
    ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
    if (!ok)
        fprintf(stderr, "kprof: error writing %s: %s\n", output ? output : "stdout", strerror(errno ? errno : EIO));
    return ok;
}

/* One report, rendered by libkprof's writers with the settings it was written with (its `top` too, unless
 * top >= 0: --top given); exit status 0 or 1. */
static int render_one(const char *path, char format, const char *output, long top)
{
    struct kprof_saved r;
    if (!kprof_saved_read(&r, path))
        return 1;
    kprof_saved_apply(&r);
    if (top >= 0)
        kprof_config.top = top;
    int rc = 0;
    if (format == 'c') {
        /* FILE.json -> FILE.kernels.csv...; kprof_report_csv writes over files as KPROF_OUTPUT does. */
        size_t n = strlen(path);
        char *base = output ? strdup(output) : strndup(path, n > 5 && !strcmp(path + n - 5, ".json") ? n - 5 : n);
        char *failed = NULL;
        const char *why = "out of memory";
        if (!base || !kprof_report_csv(base, 0, &r.s, &failed, &why)) {
            fprintf(stderr, "kprof: cannot write %s: %s\n", failed ? failed : base ? base : "the CSV files", why);
            rc = 1;
        } else if (!output) { /* named after the report: say where (a new-user helper looked for them) */
            fprintf(stderr, "kprof: CSV report written to %s.*.csv (-o names it)\n", base);
        }
        free(failed);
        free(base);
    } else {
        FILE *f = stdout;
        errno = 0;
        if (output && !(f = fopen(output, "w"))) {
            fprintf(stderr, "kprof: cannot write %s: %s\n", output, strerror(errno));
            kprof_saved_free(&r);
            return 1;
        }
        if (format == 'j')
            kprof_report_json(f, &r.s);
        else
            kprof_report_text(f, &r.s);
        rc = finish(f, output) ? 0 : 1;
    }
    kprof_saved_free(&r);
    return rc;
}

/* Several reports: kprof-merge's summary, in text or JSON; its exit status. */
static int render_merged(char **files, int nfiles, char format, const char *output, long top)
{
    char **av = calloc((size_t)nfiles + 8, sizeof *av);
    char topv[24];
    if (!av) {
        fputs("kprof: out of memory\n", stderr);
        return 1;
    }
    int ac = 0;
    av[ac++] = "kprof-merge";
    av[ac++] = "-f";
    av[ac++] = format == 'j' ? "json" : "text";
    if (output) {
        av[ac++] = "-o";
        av[ac++] = (char *)output;
    }
    if (top >= 0) {
        snprintf(topv, sizeof topv, "%ld", top);
        av[ac++] = "--top";
        av[ac++] = topv;
    }
    av[ac++] = "--";
    for (int i = 0; i < nfiles; i++)
        av[ac++] = files[i];
    optind = 0; /* getopt_long starts again on the new argv */
    int rc = kprof_merge_main(ac, av);
    free(av);
    return rc;
}

/* The HTML page of the reports files[0..nfiles) (every one must be read); exit status 0 or 1. */
static int render_html(char **files, int nfiles, long top, const char *output)
{
    struct kprof_saved *r = calloc((size_t)nfiles, sizeof *r);
    if (!r) {
        fputs("kprof: out of memory\n", stderr);
        return 1;
    }
    int rc = 0, n = 0;
    for (int i = 0; i < nfiles && rc == 0; i++) {
        if (!kprof_saved_read(&r[n], files[i])) {
            rc = 1;
            n++; /* freed below */
            break;
        }
        /* A process given twice (the same file, or a copy): skipped with a warning, as kprof-merge does
         * (the page counted it twice: a breaker helper). */
        int again = -1;
        for (int j = 0; j < n && again < 0; j++)
            if (r[j].s.pid == r[n].s.pid && r[j].s.rank == r[n].s.rank && strcmp(r[j].s.host, r[n].s.host) == 0)
                again = j;
        if (again >= 0) {
            fprintf(stderr, "kprof: %s: process %ld@%s again (its report is %s); skipped\n", files[i], r[n].s.pid,
                    r[n].s.host, r[again].file);
            kprof_saved_free(&r[n]);
            continue;
        }
        n++;
    }
    FILE *f = stdout;
    errno = 0;
    if (rc == 0 && output && !(f = fopen(output, "w"))) {
        fprintf(stderr, "kprof: cannot write %s: %s\n", output, strerror(errno));
        rc = 1;
    }
    if (rc == 0) {
        kprof_html_write(f, r, (size_t)n, top < 0 ? 20 : top);
        rc = finish(f, output) ? 0 : 1;
    }
    for (int i = 0; i < n; i++)
        kprof_saved_free(&r[i]);
    free(r);
    return rc;
}

/* Parses the options and renders; exit status 0, 1 (a report unread, the output not written) or 2 (a usage
 * error). */
int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "top", required_argument, NULL, 't' },
        { "html", no_argument, NULL, 'H' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    char format = 't';
    const char *output = NULL;
    long top = -1;
    bool html = false, format_given = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!strcasecmp(optarg, "text") || !strcasecmp(optarg, "csv") || !strcasecmp(optarg, "json"))
                format = (char)tolower((unsigned char)optarg[0]), format_given = true; /* any case, as KPROF_FORMAT */
            else
                return usage_error("unknown format '%s' for -f (text, csv or json)", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 't': {
            char *end;
            errno = 0;
            top = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || top < 0 || top > 1073741824L || optarg[0] == '-' || optarg[0] == '+')
                return usage_error("--top needs a whole number from 0 to 1073741824, not '%s'", optarg);
            break;
        }
        case 'H':
            html = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("kprof report (libkprof) %s\n", PACKAGE_VERSION);
            return 0;
        case ':':
            return usage_error("%s needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option %s (see kprof report --help)", argv[optind - 1]);
        }
    }
    int nfiles = argc - optind;
    if (nfiles < 1)
        return usage_error("%s", "no report given (kprof report --help lists the options)");
    if (html && format_given)
        return usage_error("%s", "--html writes a page: -f does not apply to it");
    if (html)
        return render_html(argv + optind, nfiles, top, output);
    if (nfiles == 1)
        return render_one(argv[optind], format, output, top);
    if (format == 'c')
        return usage_error("%s", "-f csv renders one report; several are merged as text or json");
    return render_merged(argv + optind, nfiles, format, output, top);
}
