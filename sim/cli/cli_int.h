/*
 * cli_int.h — what the command files of the CLI share (internal to sim/).
 *
 * Each command is one file (cmd_*.c) with a function and a help text, listed
 * in cli.c's command table: adding a command is one file and one line there.
 */
#ifndef TARMAC_CLI_INT_H
#define TARMAC_CLI_INT_H

#include "cli/cli.h"

#include <stdio.h>

/* Set by SIGINT/SIGTERM once sim__cli_install_signals ran; runs stop at it. */
extern volatile int sim__cli_stop;
void sim__cli_install_signals(void);

/* Print "tarmac: WHERE: MESSAGE" and return the exit code of rc. */
int sim__cli_error(int rc, const tm_diag *d);
/* Print "tarmac CMD: MESSAGE" and the --help hint; return the usage exit code. */
int sim__cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse a decimal integer in [0, max]; 0 on success, -1 otherwise. */
int sim__cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Load SCENARIO, or the embedded default when path is NULL. */
int sim__cli_load_scenario(sim_scenario *sc, const char *path, tm_diag *d);
/* Seconds as a compact human duration ("0 s", "42.0 s", "3.5 min", "2.1 h", "4.0 d"). */
void sim__cli_fmt_duration(char *buf, size_t n, double s);

/* Parse a duration: seconds, or a number with a unit (us, ms, s, m, min, h, d,
 * w), as in scenarios. 0 on success, -1 otherwise. */
int sim__cli_parse_duration(const char *s, int64_t *us);

/* ------------------------------------------------------------------------- */
/* Output for people and for scripts (cli_out.c)                              */

/* A progress bar on stderr: simulated time, events/s and an ETA from the
 * fraction of simulated time done. Draws only when enabled (a terminal and
 * no --quiet), at most ten times a second, and erases itself at the end. */
typedef struct sim__cli_progress {
    int enabled, drawn;
    int64_t horizon_us;
    size_t run, n_runs;
    uint64_t events_done; /* events of the runs already finished */
    double t0_wall, last_draw;
    char label[96];
} sim__cli_progress;

/* 1 when stderr is a terminal. */
int sim__cli_stderr_is_tty(void);
void sim__cli_progress_init(sim__cli_progress *p, int enabled, int64_t horizon_us, size_t n_runs);
/* Run `run` (0-based) begins; the events of the previous runs are added up. */
void sim__cli_progress_run(sim__cli_progress *p, size_t run, uint64_t events_before,
                           const char *label);
/* sim_run_opts.progress for a progress bar (ud is the sim__cli_progress). */
void sim__cli_progress_cb(void *ud, int64_t now_us, uint64_t events);
/* Erase the bar (if drawn). */
void sim__cli_progress_end(sim__cli_progress *p);

/* A double in the fewest digits (15 to 17, %g) that read back to the same
 * value: "74.647845", not "74.647845000000004". */
void sim__cli_fmt_double(char *buf, size_t n, double v);
/* JSON for --json: a string with escapes, a number (null for NaN and
 * infinities; sim__cli_fmt_double, so values read back exactly). */
void sim__cli_json_str(FILE *f, const char *s);
void sim__cli_json_num(FILE *f, double v);

typedef struct sim__cli_command {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
    const char *help;
} sim__cli_command;

extern const sim__cli_command sim__cmd_run, sim__cmd_validate, sim__cmd_compare, sim__cmd_plot,
    sim__cmd_export, sim__cmd_replay, sim__cmd_synth, sim__cmd_size, sim__cmd_breakeven;
extern const sim__cli_command sim__cmd_place;
extern const sim__cli_command sim__cmd_sweep;

#endif
