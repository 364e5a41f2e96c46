/*
 * cli_int.h — what the command files of the CLI share (internal to sim/).
 *
 * Each command is one file (cmd_*.c) with a function and a help text, listed
 * in cli.c's command table: adding a command is one file and one line there.
 */
#ifndef TARMAC_CLI_INT_H
#define TARMAC_CLI_INT_H

#include "sim.h"

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

typedef struct sim__cli_command {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
    const char *help;
} sim__cli_command;

extern const sim__cli_command sim__cmd_run, sim__cmd_validate;
extern const sim__cli_command sim__cmd_replay, sim__cmd_synth;
extern const sim__cli_command sim__cmd_place;

#endif
