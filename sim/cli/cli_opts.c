/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_opts.c — the one option parser of every command, over getopt_long.
 *
 * A command describes its options (sim__cli_spec: the shared ones it takes,
 * by flag, and a table of its own) and loops over sim__cli_next, which hands
 * back its own options one at a time and parses the shared ones (seed,
 * output, jobs, replication, quiet, json, verbose, help) itself, so their
 * syntax, ranges and messages are the same everywhere. The conventions
 * (docs/cli.md, "Options"):
 *
 *   --seed=7 and --seed 7 are the same; a long option may be shortened to
 *   any unambiguous prefix (GNU getopt_long);
 *   short options group: -qj2 is -q -j 2, -qo FILE is -q -o FILE;
 *   options and operands mix in any order; "--" ends the options;
 *   "-o -" is standard output where the output is text, a usage error
 *   (exit 64) where it is HDF5 or a folder.
 *
 * getopt_long runs in return-in-order mode ("-" first in the option string):
 * an operand comes back as option 1 and is moved down to argv[1..], in the
 * order given, so nothing depends on POSIXLY_CORRECT and the operands end up
 * in argv[1 .. 1 + n). argv's array is rewritten (its strings are not), as
 * GNU getopt's own permutation would. ":" after it makes a missing value
 * come back as ':' and opterr = 0 keeps getopt quiet: every message is ours.
 * optind = 0 before the first call makes GNU getopt start over, so
 * sim_cli_main may run many times in one process (tests, fuzzers).
 */
#include "cli/cli_int.h"

#include <assert.h>
#include <getopt.h> /* getopt_long: glibc and musl declare it here without _GNU_SOURCE */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The usage message every command ends with, and the integer reader every
 * option uses: here, so that the parser needs nothing of cli.c. */
int sim__cli_usage(const char *cmd, const char *fmt, ...)
{
    fprintf(stderr, "tarmac %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'tarmac %s --help'.\n", cmd);
    return tm_status_exit_code(TM_ERR_USAGE);
}

int sim__cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
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

/* The shared options: long name, key (the short letter or a number >= 256),
 * the flag that turns them on, whether they take a value, what it must be. */
enum { K_SEED = SIM__CLI_KEY_SHARED, K_REPLICATION, K_JSON, K_LIMIT };

static const struct shared_opt {
    const char *name;
    int key;
    unsigned flag;
    int has_arg;
    const char *needs;
} shared_opts[] = {
    {"help", 'h', 0, 0, NULL},
    {"output", 'o', SIM__CLI_OUTPUT, 1, "a file name"},
    {"seed", K_SEED, SIM__CLI_SEED, 1, "an integer in [0, 2^53)"},
    {"replication", K_REPLICATION, SIM__CLI_REPLICATION, 1, "an integer in [0, 2^32)"},
    {"jobs", 'j', SIM__CLI_JOBS, 1, "a number of workers in [1, 4096]"},
    {"quiet", 'q', SIM__CLI_QUIET, 0, NULL},
    {"json", K_JSON, SIM__CLI_JSON, 0, NULL},
    {"verbose", 'v', SIM__CLI_VERBOSE, 0, NULL},
    {"limit", K_LIMIT, SIM__CLI_LIMIT, 1,
     "NAME=VALUE (arrivals, request_rate, nodes, gpus, tables, series, events)"},
};

#define N_SHARED   (sizeof shared_opts / sizeof shared_opts[0])
#define MAX_OPTS   64 /* shared and own; replay has the most, about 25 */
#define MAX_SHORTS 64

/* One option as the parser sees it, shared or the command's own. */
typedef struct opt_view {
    const char *name;
    int key, has_arg, shared;
    const char *needs;
} opt_view;

static const char *cmd_name(const sim__cli_args *a)
{
    return a->spec->cmd->name;
}

/* The i-th option the command takes (shared first); 0 past the end. */
static int opt_at(const sim__cli_spec *s, size_t i, opt_view *v)
{
    size_t k = 0;
    for (size_t j = 0; j < N_SHARED; j++) {
        const struct shared_opt *o = &shared_opts[j];
        if (o->flag && !(s->shared & o->flag))
            continue;
        if (k++ == i) {
            *v = (opt_view){o->name, o->key, o->has_arg, 1, o->needs};
            if (o->key == 'o' && s->output_needs)
                v->needs = s->output_needs;
            return 1;
        }
    }
    for (const sim__cli_opt *o = s->opts; o && o->name; o++)
        if (k++ == i) {
            *v = (opt_view){o->name, o->key, o->has_arg, 0, o->needs ? o->needs : "a value"};
            return 1;
        }
    return 0;
}

static int opt_by_key(const sim__cli_spec *s, int key, opt_view *v)
{
    for (size_t i = 0; opt_at(s, i, v); i++)
        if (v->key == key)
            return 1;
    return 0;
}

/* getopt_long's tables, rebuilt on each call from the spec (a few dozen
 * entries; getopt keeps no pointer into them between calls). */
static void build_tables(const sim__cli_spec *s, struct option *lo, char *shorts)
{
    size_t n = 0, ns = 0;
    shorts[ns++] = '-'; /* operands in order, as option 1 */
    shorts[ns++] = ':'; /* a missing value as ':' */
    opt_view v;
    for (size_t i = 0; opt_at(s, i, &v); i++) {
        if (n == MAX_OPTS || ns + 2 >= MAX_SHORTS)
            break; /* sim__cli_args_init asserts this never happens */
        lo[n++] = (struct option){v.name, v.has_arg ? required_argument : no_argument, NULL, v.key};
        if (v.key < 256) {
            shorts[ns++] = (char)v.key;
            if (v.has_arg)
                shorts[ns++] = ':';
        }
    }
    lo[n] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';
}

void sim__cli_args_init(sim__cli_args *a, const sim__cli_spec *s, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->spec = s;
    a->argc = argc;
    a->argv = argv;
    a->next_operand = 1;
    sim_limits_default(&a->limits);
    opt_view v, w;
    size_t n = 0;
    while (opt_at(s, n, &v)) {
        /* keys name options: one each (own long-only keys below the shared) */
        assert(opt_by_key(s, v.key, &w) && strcmp(w.name, v.name) == 0);
        assert(v.shared || v.key < SIM__CLI_KEY_SHARED);
        n++;
    }
    (void)w; /* asserts only */
    assert(n < MAX_OPTS && "a command with more options than MAX_OPTS");
    optind = 0; /* GNU: start over (a new argv) */
    opterr = 0;
}

/* The option as the user would write it in full: "--seed" or "-j". */
static void set_spelling(sim__cli_args *a, const opt_view *v, int as_long)
{
    if (as_long || v->key >= 256)
        snprintf(a->opt, sizeof a->opt, "--%s", v->name);
    else
        snprintf(a->opt, sizeof a->opt, "-%c", v->key);
    a->needs = v->needs;
}

static int stop(sim__cli_args *a, int code)
{
    a->code = code;
    return SIM__CLI_STOP;
}

/* A long option getopt refused: unknown, ambiguous, or given a value it
 * does not take. tok is the argument as typed. */
static int bad_long(sim__cli_args *a, const char *tok)
{
    const char *eq = strchr(tok, '=');
    int len = eq ? (int)(eq - tok) : (int)strlen(tok);
    opt_view v;
    if (eq)
        for (size_t i = 0; opt_at(a->spec, i, &v); i++)
            if (strlen(v.name) == (size_t)len - 2 && strncmp(v.name, tok + 2, (size_t)len - 2) == 0)
                return stop(a, sim__cli_usage(cmd_name(a), "--%s takes no value", v.name));
    char list[256] = "";
    size_t matches = 0, used = 0;
    for (size_t i = 0; opt_at(a->spec, i, &v); i++)
        if (len > 2 && strncmp(v.name, tok + 2, (size_t)len - 2) == 0) {
            int w =
                snprintf(list + used, sizeof list - used, "%s--%s", matches ? ", " : "", v.name);
            if (w > 0 && (size_t)w < sizeof list - used)
                used += (size_t)w;
            matches++;
        }
    if (matches > 1)
        return stop(a, sim__cli_usage(cmd_name(a), "ambiguous option '%.*s' (%s)", len, tok, list));
    if (matches == 1) /* a prefix of an option that takes no value, given one */
        return stop(a, sim__cli_usage(cmd_name(a), "%s takes no value", list));
    return stop(a, sim__cli_usage(cmd_name(a), "unknown option '%.*s'", len, tok));
}

/* A shared option: parse its value into the args. 0, or SIM__CLI_STOP. */
static int take_shared(sim__cli_args *a, int key, const char *val)
{
    switch (key) {
    case 'h':
        sim__cli_help(a->spec->cmd, stdout);
        return stop(a, 0);
    case 'o':
        if (strcmp(val, "-") == 0 && a->spec->no_stdout)
            return stop(a, sim__cli_usage(cmd_name(a),
                                          "%s -: the output is %s, which cannot go to standard "
                                          "output",
                                          a->opt, a->spec->no_stdout));
        a->output = val;
        return 0;
    case K_SEED:
        if (sim__cli_parse_u64(val, (1ull << 53) - 1, &a->seed))
            return stop(a, sim__cli_bad_value(a));
        a->have_seed = 1;
        return 0;
    case K_REPLICATION:
        if (sim__cli_parse_u64(val, UINT32_MAX, &a->replication))
            return stop(a, sim__cli_bad_value(a));
        return 0;
    case 'j':
        if (sim__cli_parse_u64(val, 4096, &a->jobs) || a->jobs == 0)
            return stop(a, sim__cli_bad_value(a));
        a->have_jobs = 1;
        return 0;
    case 'q':
        a->quiet = 1;
        return 0;
    case K_JSON:
        a->json = 1;
        return 0;
    case 'v':
        a->verbose = 1;
        return 0;
    case K_LIMIT: {
        char err[300];
        if (sim_limits_set(&a->limits, val, err, sizeof err))
            return stop(a, sim__cli_usage(cmd_name(a), "%s needs %s", a->opt, err));
        return 0;
    }
    }
    return 0;
}

/* The options are done: the rest of argv are operands too (after "--"). */
static int finish(sim__cli_args *a)
{
    for (int i = optind > 0 ? optind : 1; i < a->argc; i++)
        a->argv[a->next_operand++] = a->argv[i];
    a->operands = a->argv + 1;
    a->n_operands = a->next_operand - 1;
    const sim__cli_spec *s = a->spec;
    if (s->max_operands >= 0 && a->n_operands > s->max_operands) {
        const char *extra = a->operands[s->max_operands];
        if (s->max_operands == 1)
            return stop(a, sim__cli_usage(cmd_name(a), "more than one %s given ('%s')",
                                          s->operand ? s->operand : "argument", extra));
        return stop(a, sim__cli_usage(cmd_name(a), "too many arguments ('%s')", extra));
    }
    return 0;
}

int sim__cli_next(sim__cli_args *a, const char **val)
{
    struct option lo[MAX_OPTS + 1];
    char shorts[MAX_SHORTS];
    build_tables(a->spec, lo, shorts);
    *val = NULL;
    for (;;) {
        /* the argument getopt is on: a group of short options stays at
         * optind until its last letter is taken */
        int at = optind > 0 ? optind : 1;
        const char *tok = at < a->argc ? a->argv[at] : "";
        int li = -1;
        int c = getopt_long(a->argc, a->argv, shorts, lo, &li);
        if (c == -1)
            return finish(a);
        if (c == 1) { /* an operand; argv[next_operand] was read already */
            a->argv[a->next_operand++] = optarg;
            continue;
        }
        opt_view v;
        if (c == '?') {
            if (optopt == 0 || (strncmp(tok, "--", 2) == 0 && opt_by_key(a->spec, optopt, &v)))
                return bad_long(a, tok);
            if (strlen(tok) > 2)
                return stop(
                    a, sim__cli_usage(cmd_name(a), "unknown option '-%c' (in '%s')", optopt, tok));
            return stop(a, sim__cli_usage(cmd_name(a), "unknown option '-%c'", optopt));
        }
        if (c == ':') { /* the option was the last argument */
            opt_by_key(a->spec, optopt, &v);
            set_spelling(a, &v, strncmp(tok, "--", 2) == 0);
            return stop(a, sim__cli_bad_value(a));
        }
        if (!opt_by_key(a->spec, c, &v))
            return stop(a, sim__cli_usage(cmd_name(a), "unknown option '%s'", tok));
        set_spelling(a, &v, li >= 0);
        if (v.shared) {
            if (take_shared(a, c, optarg) == SIM__CLI_STOP)
                return SIM__CLI_STOP;
            continue;
        }
        *val = optarg;
        return c;
    }
}

int sim__cli_parse(sim__cli_args *a, const sim__cli_spec *s, int argc, char **argv)
{
    sim__cli_args_init(a, s, argc, argv);
    const char *val;
    int key;
    while ((key = sim__cli_next(a, &val)) > 0)
        assert(0 && "an option of the command's own: use sim__cli_next");
    return key;
}

int sim__cli_bad_value(const sim__cli_args *a)
{
    return sim__cli_usage(a->spec->cmd->name, "%s needs %s", a->opt,
                          a->needs ? a->needs : "a value");
}

void sim__cli_help(const sim__cli_command *c, FILE *f)
{
    if (c->print_help)
        c->print_help(f);
    else
        fputs(c->help, f);
}
