/* SPDX-License-Identifier: Apache-2.0 */
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
/* The default output beside a result file: `result` without its .h5, then
 * `suffix` (".html", "-plots"), into buf. 0, or a usage error (64) naming
 * `cmd` and `flag` when the name does not fit. */
int sim__cli_beside(char *buf, size_t n, const char *result, const char *suffix, const char *cmd,
                    const char *flag);
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

typedef struct sim__cli_command {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
    const char *help;
    /* when not NULL, prints the help instead of `help` (a help text with a
     * part built from a table, such as replay's list of trace formats) */
    void (*print_help)(FILE *f);
} sim__cli_command;

/* Print a command's help (tarmac CMD --help, tarmac help CMD). */
void sim__cli_help(const sim__cli_command *c, FILE *f);

/* ------------------------------------------------------------------------- */
/* Options (cli_opts.c): one parser, over getopt_long, for every command      */

/* The options several commands share, parsed (and their values checked) in
 * one place; a command takes those it names in sim__cli_spec.shared and
 * reads them from sim__cli_args. -h/--help is always there. */
enum {
    SIM__CLI_OUTPUT = 1u << 0,      /* -o, --output FILE ("-": standard output) */
    SIM__CLI_SEED = 1u << 1,        /* --seed N, N in [0, 2^53) */
    SIM__CLI_REPLICATION = 1u << 2, /* --replication R, R in [0, 2^32) */
    SIM__CLI_JOBS = 1u << 3,        /* -j, --jobs N, N in [1, 4096] */
    SIM__CLI_QUIET = 1u << 4,       /* -q, --quiet */
    SIM__CLI_JSON = 1u << 5,        /* --json */
    SIM__CLI_VERBOSE = 1u << 6,     /* -v, --verbose */
    SIM__CLI_LIMIT = 1u << 7,       /* --limit NAME=VALUE, repeatable (admission, config.h) */
};

/* Keys from here on are the shared options' (long-only ones). */
#define SIM__CLI_KEY_SHARED 4096

/* One of a command's own options. */
typedef struct sim__cli_opt {
    const char *name;  /* the long name, without "--" */
    int key;           /* its short letter when it has one, else a number in [256, 4096) */
    int has_arg;       /* 1: takes a value (--name V, --name=V, -kV, -k V) */
    const char *needs; /* what the value must be: "--name needs NEEDS" */
} sim__cli_opt;

typedef struct sim__cli_spec {
    const sim__cli_command *cmd; /* its name (messages) and help (-h) */
    unsigned shared;             /* SIM__CLI_* */
    const char *output_needs;    /* what -o takes when not "a file name" ("a folder") */
    /* when not NULL, "-o -" is a usage error: "the output is NO_STDOUT,
     * which cannot go to standard output"; NULL: "-" is standard output */
    const char *no_stdout;
    const char *operand;      /* what an operand is, for "more than one OPERAND given" */
    int max_operands;         /* -1: any number */
    const sim__cli_opt *opts; /* the command's own, ending with {NULL} */
} sim__cli_spec;

/* The parse of a command line: the shared options' values, then the operands. */
typedef struct sim__cli_args {
    const char *output; /* NULL when not given */
    uint64_t seed, replication, jobs;
    int have_seed, have_jobs, quiet, json, verbose;
    sim_limits limits; /* the defaults, with each --limit applied */
    char **operands;   /* once sim__cli_next returned 0: in the order given */
    int n_operands;
    int code; /* once sim__cli_next returned SIM__CLI_STOP: the exit code */
    /* the option sim__cli_next returned last, as spelt in full ("--seed"),
     * and what its value must be (for sim__cli_bad_value) */
    char opt[64];
    const char *needs;
    /* parser state */
    const sim__cli_spec *spec;
    int argc, next_operand;
    char **argv;
} sim__cli_args;

#define SIM__CLI_STOP (-1)

/* Start parsing argv (argv[0] the command name). argv's array is rewritten
 * as it is parsed (the operands move to its front); its strings are not. */
void sim__cli_args_init(sim__cli_args *a, const sim__cli_spec *s, int argc, char **argv);
/* The next of the command's own options: its key, with its value in *val
 * (NULL when it takes none). 0 when the options are done: the operands are in
 * a->operands. SIM__CLI_STOP when the command is to return a->code at once:
 * after --help (0), or a usage error, already printed (64). */
int sim__cli_next(sim__cli_args *a, const char **val);
/* sim__cli_args_init and sim__cli_next for a command with no options of
 * its own: 0 or SIM__CLI_STOP. */
int sim__cli_parse(sim__cli_args *a, const sim__cli_spec *s, int argc, char **argv);
/* For an option whose value the command found wrong: print "tarmac CMD: OPT
 * needs NEEDS" and the --help hint; return the usage exit code. */
int sim__cli_bad_value(const sim__cli_args *a);

extern const sim__cli_command sim__cmd_run, sim__cmd_validate, sim__cmd_compare, sim__cmd_plot,
    sim__cmd_export, sim__cmd_replay, sim__cmd_synth, sim__cmd_size, sim__cmd_breakeven;
extern const sim__cli_command sim__cmd_place;
extern const sim__cli_command sim__cmd_sweep;
extern const sim__cli_command sim__cmd_report;
extern const sim__cli_command sim__cmd_plan;
extern const sim__cli_command sim__cmd_sensitivity;

/* Admission (cli_admit.c): hold sc to the limits of a (its --limit options)
 * before it runs; 0, or the exit code after printing why not. */
int sim__cli_admit(const sim_scenario *sc, const sim__cli_args *a);
/* A command's scenario: sc loaded from path (NULL: the embedded default),
 * held to a's limits, a's --seed applied. 0, or the exit code after printing
 * why not (sc is then released). */
int sim__cli_open_scenario(sim_scenario *sc, const char *path, const sim__cli_args *a);
/* The same for sc with every arrival and request rate times `demand` (a
 * study that scales the load: breakeven's volumes); a refusal's message
 * starts with `why` (NULL: nothing). */
int sim__cli_admit_scaled(const sim_scenario *sc, const sim__cli_args *a, double demand,
                          const char *why);
/* The pools a study searches (size, plan, breakeven --fleet): the names of
 * the comma-separated `list` into vary[] as pool indices, or every pool when
 * list is NULL; at most `max`. 0, or a usage error (64) naming `cmd`: an
 * unknown or repeated name, too many. */
int sim__cli_pools(const char *cmd, const sim_scenario *sc, const char *list, uint32_t *vary,
                   size_t *n_vary, size_t max);
/* The same, with the messages naming option `opt` instead of --pools (a
 * command with more than one list of pools). */
int sim__cli_pools_opt(const char *cmd, const char *opt, const sim_scenario *sc, const char *list,
                       uint32_t *vary, size_t *n_vary, size_t max);
/* The tokens (input + output) a month that sc's services demand at their
 * load: expected over the horizon (the fluid model's demand), per month. */
double sim__cli_tokens_per_month(const sim_scenario *sc);
/* The estimate of sc, one line per heading, each line starting with
 * `indent`, with the limits it is held to. */
void sim__cli_print_estimate(FILE *f, const sim_estimate *e, const sim_limits *l,
                             const char *indent);

/* On stderr, when scenario sc (named name) has no GPU in service at any time:
 * a run of it rejects every job (sim_fleet_gpus_ever). */
void sim__cli_warn_no_gpus(const sim_scenario *sc, const char *name);

#endif
