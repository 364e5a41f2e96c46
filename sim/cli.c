/*
 * cli.c — the command line: git-style subcommands over the sim library.
 *
 *     tarmac run [SCENARIO] [-o FILE] [--seed N] [--quiet]
 *     tarmac validate SCENARIO...
 *     tarmac --help | --version | help COMMAND
 *
 * Every failure prints "tarmac: WHERE: MESSAGE" on stderr and exits with the
 * code of its status (docs/cli.md): 64 usage, 65 bad input, 66 missing file,
 * 70 internal, 74 I/O, 130 interrupted. Output files are written atomically
 * by the report module, so a failed or interrupted run leaves none.
 */
#include "sim.h"
#include "version.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_version.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int stop_requested = 0;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int report_error(int rc, const tm_diag *d)
{
    if (d->where[0])
        fprintf(stderr, "tarmac: %s: %s\n", d->where, d->msg[0] ? d->msg : tm_strerror(rc));
    else
        fprintf(stderr, "tarmac: %s\n", d->msg[0] ? d->msg : tm_strerror(rc));
    return tm_status_exit_code(rc);
}

static int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const char *cmd, const char *fmt, ...)
{
    fprintf(stderr, "tarmac %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'tarmac %s --help'.\n", cmd);
    return tm_status_exit_code(TM_ERR_USAGE);
}

static const char main_help[] =
    "tarmac — discrete-event simulation of GPU fleets for capacity planning\n"
    "\n"
    "Usage: tarmac COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  run [SCENARIO]      run a scenario (the embedded default if none) and write HDF5\n"
    "  validate SCENARIO   check a scenario without running it\n"
    "  help COMMAND        help for a command\n"
    "\n"
    "Options: --help, --version\n"
    "Exit codes: 0 ok, 64 usage, 65 bad input, 66 file not found, 70 internal error,\n"
    "            74 I/O error, 130 interrupted. See docs/cli.md.\n";

static const char run_help[] =
    "Usage: tarmac run [SCENARIO] [-o FILE] [--seed N] [--replication R] [--quiet]\n"
    "\n"
    "Run SCENARIO (a JSON file; without one, the embedded default scenario) and\n"
    "write the results to FILE (default tarmac-out.h5), atomically: the file\n"
    "appears only when complete. Prints a summary table unless --quiet.\n"
    "\n"
    "  -o, --output FILE    HDF5 output file (docs/output.md describes its layout)\n"
    "  --seed N             override the scenario's seed\n"
    "  --replication R      use the independent random streams of replication R\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --check              check engine invariants after every event (slow)\n";

static const char validate_help[] =
    "Usage: tarmac validate SCENARIO...\n"
    "\n"
    "Load each scenario and report the first error in each (with its JSON path),\n"
    "without running anything. Exit 0 when all are valid.\n";

/* ------------------------------------------------------------------------- */
/* the summary table                                                          */

static void print_thousands(FILE *f, uint64_t v, int width)
{
    char raw[32], out[48];
    snprintf(raw, sizeof raw, "%llu", (unsigned long long)v);
    size_t n = strlen(raw), o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    out[o] = '\0';
    fprintf(f, "%*s", width, out);
}

/* Seconds as a compact human duration ("0 s", "42 s", "3.5 min", "2.1 h", "4.0 d"). */
static void fmt_duration(char *buf, size_t n, double s)
{
    if (s < 0.0005)
        snprintf(buf, n, "0 s");
    else if (s < 60)
        snprintf(buf, n, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, n, "%.1f min", s / 60);
    else if (s < 86400 * 2)
        snprintf(buf, n, "%.1f h", s / 3600);
    else
        snprintf(buf, n, "%.1f d", s / 86400);
}

static void print_summary(const sim_scenario *sc, const sim_result *r, const char *out)
{
    char span[32];
    fmt_duration(span, sizeof span, (double)r->t_end_us / SIM_US_PER_S);
    printf("tarmac %s: scenario \"%s\" (%s), seed %llu\n", TARMAC_VERSION, sc->name, sc->source,
           (unsigned long long)sc->seed);
    printf("policy: %s\n", sc->policy);
    printf("simulated %s in %.2f s of wall time: %llu events (%.2f million/s)\n\n", span,
           r->wall_s, (unsigned long long)r->events,
           r->wall_s > 0 ? (double)r->events / r->wall_s / 1e6 : 0.0);
    double hours = (double)r->t_end_us / SIM_US_PER_S / 3600;
    printf("fleet: %.1f GPUs in service on average, %.0f GPU-hours allocated of %.0f\n",
           hours > 0 ? r->gpu_s_up / 3600 / hours : 0.0, r->gpu_s_alloc / 3600,
           r->gpu_s_up / 3600);
    printf("allocation utilization %.1f %%, mean queue %.1f jobs, mean running %.1f jobs\n\n",
           100 * r->alloc_util, r->queue_len_mean, r->running_mean);
    int w = 12;
    for (size_t c = 0; c < sc->n_classes; c++) {
        int l = (int)strlen(sc->classes[c].name);
        if (l > w)
            w = l;
    }
    printf("%-*s %9s %9s %9s %8s %8s %8s %9s %9s %9s %9s\n", w, "class", "arrived", "started",
           "completed", "rejected", "queued", "running", "wait mean", "p50", "p95", "p99");
    for (size_t c = 0; c <= sc->n_classes; c++) {
        const sim_class_result *cr = &r->classes[c];
        const char *name = c < sc->n_classes ? sc->classes[c].name : "all";
        if (c == sc->n_classes && sc->n_classes == 1)
            break;
        char m[24], p50[24], p95[24], p99[24];
        fmt_duration(m, sizeof m, cr->wait_mean_s);
        fmt_duration(p50, sizeof p50, cr->wait_p50_s);
        fmt_duration(p95, sizeof p95, cr->wait_p95_s);
        fmt_duration(p99, sizeof p99, cr->wait_p99_s);
        printf("%-*s ", w, name);
        print_thousands(stdout, cr->arrived, 9);
        putchar(' ');
        print_thousands(stdout, cr->started, 9);
        putchar(' ');
        print_thousands(stdout, cr->completed, 9);
        putchar(' ');
        print_thousands(stdout, cr->rejected, 8);
        putchar(' ');
        print_thousands(stdout, cr->queued_end, 8);
        putchar(' ');
        print_thousands(stdout, cr->running_end, 8);
        printf(" %9s %9s %9s %9s\n", m, p50, p95, p99);
    }
    if (r->policy_errors)
        printf("\npolicy errors: %llu invalid decisions refused\n",
               (unsigned long long)r->policy_errors);
    if (out)
        printf("\nwrote %s\n", out);
}

/* ------------------------------------------------------------------------- */
/* commands                                                                   */

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

static int load_scenario(sim_scenario *sc, const char *path, tm_diag *d)
{
    if (path)
        return sim_scenario_load_file(sc, path, d);
    return sim_scenario_load_default(sc, d);
}

static int cmd_run(int argc, char **argv)
{
    const char *path = NULL, *out = "tarmac-out.h5";
    uint64_t seed = 0, rep = 0;
    int have_seed = 0, quiet = 0, check = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(run_help, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i >= argc)
                return usage_error("run", "%s needs a file name", a);
            out = argv[i];
        } else if (strcmp(a, "--seed") == 0) {
            if (++i >= argc || parse_u64(argv[i], (1ull << 53) - 1, &seed))
                return usage_error("run", "%s needs an integer in [0, 2^53)", a);
            have_seed = 1;
        } else if (strcmp(a, "--replication") == 0) {
            if (++i >= argc || parse_u64(argv[i], UINT32_MAX, &rep))
                return usage_error("run", "%s needs an integer in [0, 2^32)", a);
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--check") == 0) {
            check = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("run", "unknown option '%s'", a);
        } else if (!path) {
            path = a;
        } else {
            return usage_error("run", "more than one scenario given ('%s')", a);
        }
    }
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int rc = load_scenario(&sc, path, &d);
    if (rc != TM_OK)
        return report_error(rc, &d);
    if (have_seed)
        sc.seed = seed;
    install_signals();
    sim_run_opts opts = {.replication = (uint32_t)rep,
                         .check_invariants = check,
                         .stop_flag = &stop_requested};
    sim_result res;
    rc = sim_report_run(&sc, &opts, out, &res, &d);
    if (rc != TM_OK) {
        sim_scenario_fini(&sc);
        return report_error(rc, &d);
    }
    if (!quiet)
        print_summary(&sc, &res, out);
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
    return 0;
}

static int cmd_validate(int argc, char **argv)
{
    int files = 0, bad = 0, code = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(validate_help, stdout);
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return usage_error("validate", "unknown option '%s'", argv[i]);
    }
    for (int i = 1; i < argc; i++) {
        files++;
        tm_diag d;
        tm_diag_clear(&d);
        sim_scenario sc;
        int rc = sim_scenario_load_file(&sc, argv[i], &d);
        if (rc != TM_OK) {
            code = report_error(rc, &d);
            bad++;
            continue;
        }
        printf("%s: ok (%zu pools, %zu classes, policy %s)\n", argv[i], sc.n_pools, sc.n_classes,
               sc.policy);
        sim_scenario_fini(&sc);
    }
    if (!files)
        return usage_error("validate", "%s", "needs at least one scenario file");
    return bad ? code : 0;
}

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"run", cmd_run, run_help},
    {"validate", cmd_validate, validate_help},
};

int sim_cli_main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc < 2) {
        fputs(main_help, stderr);
        return tm_status_exit_code(TM_ERR_USAGE);
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(main_help, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tarmac %s (GSL %s)\n", TARMAC_VERSION, GSL_VERSION);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        for (size_t i = 0; argc > 2 && i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0) {
                fputs(commands[i].help, stdout);
                return 0;
            }
        fputs(main_help, stdout);
        return argc > 2 ? tm_status_exit_code(TM_ERR_USAGE) : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "tarmac: unknown command '%s'\n\n%s", cmd, main_help);
    return tm_status_exit_code(TM_ERR_USAGE);
}
