/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.c — the command line: git-style subcommands over the sim library.
 *
 *     tarmac COMMAND [ARGS]     (tarmac --help lists the commands)
 *
 * Every failure prints "tarmac: WHERE: MESSAGE" on stderr and exits with the
 * code of its status (docs/cli.md, traces/status.h): 64 usage, 65 bad input,
 * 66 missing input, 69 gnuplot missing or failing, 70 a bug (internal error
 * only), 71 out of memory or another system error, 73 cannot create an
 * output, 74 I/O error, 130 interrupted. Commands live one per file (cmd_*.c)
 * and parse their options with the one parser of cli_opts.c; this file holds
 * the table and what they share.
 */
#include "cli/cli_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The commands, in the order --help lists them. */
static const sim__cli_command *const commands[] = {
    &sim__cmd_run,  &sim__cmd_validate,  &sim__cmd_replay, &sim__cmd_synth,       &sim__cmd_compare,
    &sim__cmd_plot, &sim__cmd_report,    &sim__cmd_export, &sim__cmd_place,       &sim__cmd_sweep,
    &sim__cmd_size, &sim__cmd_breakeven, &sim__cmd_plan,   &sim__cmd_sensitivity,
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

volatile int sim__cli_stop = 0;

static void on_signal(int sig)
{
    (void)sig;
    sim__cli_stop = 1;
}

void sim__cli_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int sim__cli_error(int rc, const tm_diag *d)
{
    if (d->where[0])
        fprintf(stderr, "tarmac: %s: %s\n", d->where, d->msg[0] ? d->msg : tm_strerror(rc));
    else
        fprintf(stderr, "tarmac: %s\n", d->msg[0] ? d->msg : tm_strerror(rc));
    return tm_status_exit_code(rc);
}

int sim__cli_parse_duration(const char *s, int64_t *us)
{
    /* the units of scenario durations (scenarios/SCHEMA.md) */
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1},        {"m", 60}, {"min", 60},
                 {"h", 3600},  {"d", 86400}, {"w", 604800.0}, {"", 1}};
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !(x >= 0))
        return -1;
    for (const char *q = s; q < end; q++) /* decimal only: strtod reads "0x10" too */
        if (*q == 'x' || *q == 'X')
            return -1;
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            double v = x * units[i].s * 1e6;
            if (!(v < 9.2e18))
                return -1;
            *us = (int64_t)llround(v);
            if (*us == 0 && v > 0)
                *us = 1; /* above zero stays above zero: 0 often means "no limit" */
            return 0;
        }
    return -1;
}

int sim__cli_load_scenario(sim_scenario *sc, const char *path, tm_diag *d)
{
    if (path)
        return sim_scenario_load_file(sc, path, d);
    return sim_scenario_load_default(sc, d);
}

void sim__cli_fmt_duration(char *buf, size_t n, double s)
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

static void main_help(FILE *f)
{
    fputs("tarmac — discrete-event simulation of GPU fleets for capacity planning\n\n"
          "Usage: tarmac COMMAND [ARGS]\n\nCommands:\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
    fputs("  help COMMAND help for a command\n\n"
          "Options: --help, --version\n"
          "Exit codes: 0 ok, 64 usage, 65 bad input, 66 input not found, 69 gnuplot missing\n"
          "            or failing, 70 internal error (a bug), 71 out of memory or system error,\n"
          "            73 cannot create output, 74 I/O error, 130 interrupted. See docs/cli.md.\n",
          f);
}

/* A command that succeeded but whose output did not reach stdout (a full disk,
 * a closed pipe, /dev/full) has failed: say so and exit 74, never 0. */
static int stdout_check(int code)
{
    if ((fflush(stdout) != 0 || ferror(stdout)) && code == 0) {
        fprintf(stderr, "tarmac: stdout: write error: %s\n", strerror(errno));
        return tm_status_exit_code(TM_ERR_IO);
    }
    return code;
}

static int cli_dispatch(int argc, char **argv)
{
    gsl_set_error_handler_off();
    /* Past a file-size limit (RLIMIT_FSIZE) a write then fails with EFBIG
     * instead of the process being killed, so the writers report it, naming
     * the file, and remove their temporary files. */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, NULL);
    if (argc < 2) {
        main_help(stderr);
        return tm_status_exit_code(TM_ERR_USAGE);
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        main_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tarmac %s (GSL %s, cJSON %s)\n", TARMAC_VERSION, sim_lib_version_gsl(),
               sim_lib_version_cjson());
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        for (size_t i = 0; argc > 2 && i < N_COMMANDS; i++)
            if (strcmp(argv[2], commands[i]->name) == 0) {
                sim__cli_help(commands[i], stdout);
                return 0;
            }
        main_help(stdout);
        return argc > 2 ? tm_status_exit_code(TM_ERR_USAGE) : 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(cmd, commands[i]->name) == 0)
            return stdout_check(commands[i]->fn(argc - 1, argv + 1));
    fprintf(stderr, "tarmac: unknown command '%s'\n\n", cmd);
    main_help(stderr);
    return tm_status_exit_code(TM_ERR_USAGE);
}

int sim_cli_main(int argc, char **argv)
{
    /* every file the command writes records the command line; the record
     * lives as long as the command (a program may call this many times) */
    sim__provenance_command_line(argc, argv);
    int code = cli_dispatch(argc, argv);
    sim__provenance_command_line(0, NULL);
    return code;
}

void sim__cli_warn_no_gpus(const sim_scenario *sc, const char *name)
{
    if (sim_fleet_gpus_ever(sc) == 0)
        fprintf(stderr,
                "tarmac: warning: %s: fleet.pools: no GPU is in service at any time of the run "
                "(no pool has nodes, or every one is delivered after the horizon or retired on "
                "delivery): every job will be rejected and every utilization is 0\n",
                name);
}
