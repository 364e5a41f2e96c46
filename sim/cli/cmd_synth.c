/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_synth.c — `tarmac synth`: a scenario's synthesized workload written as
 * a tarmac trace (traces/FORMAT.md), so that it can be inspected, edited and
 * replayed with `tarmac replay --format tarmac`.
 *
 * Each class is synthesized with the random streams the engine uses for it
 * (docs/rng.md), and the classes are merged in submit order, ties by class
 * index: the jobs are the ones `tarmac run` would see for the same seed and
 * replication.
 */
#include "cli/cli_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char synth_help[] =
    "Usage: tarmac synth [SCENARIO] -o FILE [--seed N] [--replication R] [--quiet]\n"
    "                    [--limit NAME=VALUE]...\n"
    "\n"
    "Synthesize the workload of SCENARIO (the embedded default if none) up to its\n"
    "horizon and write it as a tarmac trace (CSV, traces/FORMAT.md; gzip when FILE\n"
    "ends in .gz). `tarmac replay FILE --format tarmac --fleet SCENARIO` replays it.\n"
    "\n"
    "  -o, --output FILE    the trace to write (required; - for standard output)\n"
    "  --seed N             override the scenario's seed\n"
    "  --replication R      use the random streams of replication R\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; repeatable)\n";

typedef struct cls_src {
    trace_source src;
    trace_job next;
    int has;
} cls_src;

static const sim__cli_spec synth_spec = {
    .cmd = &sim__cmd_synth,
    .shared =
        SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_REPLICATION | SIM__CLI_QUIET | SIM__CLI_LIMIT,
    .operand = "scenario",
    .max_operands = 1,
};

/* Where the trace writer writes for `-o -`. It writes a temporary file and
 * renames it over its path, or writes a path that exists and is not a
 * regular file directly. Standard output on a pipe or a terminal is such a
 * path (/dev/stdout), and the trace streams; on a regular file it is not
 * (the rename would replace /dev/stdout), so the trace goes to a private
 * temporary folder first and is copied out when complete (stdout_copy). */
typedef struct stdout_sink {
    char dir[512];  /* the private folder, "" when streaming */
    char path[560]; /* what the writer is given */
} stdout_sink;

static int stdout_sink_open(stdout_sink *k, tm_diag *d)
{
    struct stat st;
    k->dir[0] = '\0';
    if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(k->path, sizeof k->path, "/dev/stdout");
        return TM_OK;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(k->dir, sizeof k->dir, "%s/tarmac-synth.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(k->dir)) {
        int e = errno;
        k->dir[0] = '\0';
        return tm_diag_set(d, TM_ERR_IO, "synth", "cannot create a temporary folder: %s",
                           strerror(e));
    }
    snprintf(k->path, sizeof k->path, "%s/trace.csv", k->dir);
    return TM_OK;
}

/* Copy the finished trace to standard output (when it went to a folder). */
static int stdout_sink_copy(const stdout_sink *k, tm_diag *d)
{
    if (!k->dir[0])
        return TM_OK;
    FILE *f = fopen(k->path, "rb");
    if (!f)
        return tm_diag_set(d, TM_ERR_IO, k->path, "cannot open: %s", strerror(errno));
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, n, stdout) != n)
            break;
    int rc =
        ferror(f) ? tm_diag_set(d, TM_ERR_IO, k->path, "cannot read: %s", strerror(errno)) : TM_OK;
    fclose(f);
    if (rc == TM_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = tm_diag_set(d, TM_ERR_IO, "stdout", "write error: %s", strerror(errno));
    return rc;
}

static void stdout_sink_close(const stdout_sink *k)
{
    if (!k->dir[0])
        return;
    remove(k->path);
    rmdir(k->dir);
}

static int cmd_synth(int argc, char **argv)
{
    sim__cli_args a;
    if (sim__cli_parse(&a, &synth_spec, argc, argv) == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL, *out = a.output;
    uint64_t rep = a.replication;
    if (!out)
        return sim__cli_usage("synth", "an output file is required (-o FILE, or -o - for stdout)");
    int to_stdout = strcmp(out, "-") == 0;
    stdout_sink sink = {"", ""};
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int rc = sim__cli_load_scenario(&sc, path, &d);
    if (rc != TM_OK)
        return sim__cli_error(rc, &d);
    int admit = sim__cli_admit(&sc, &a);
    if (admit) {
        sim_scenario_fini(&sc);
        return admit;
    }
    if (a.have_seed)
        sc.seed = a.seed;
    cls_src *cs = calloc(sc.n_classes, sizeof *cs);
    trace_tarmac_writer *w = NULL;
    uint64_t n = 0;
    if (!cs) {
        rc = tm_diag_set(&d, TM_ERR_NOMEM, "synth", "out of memory");
        goto out;
    }
    for (size_t c = 0; c < sc.n_classes; c++) {
        if ((rc = sim_class_source_open(&sc, c, (uint32_t)rep, &cs[c].src, &d)))
            goto out;
        rc = cs[c].src.next(cs[c].src.ud, &cs[c].next, &d);
        if (rc != TM_OK && rc != TRACE_END)
            goto out;
        cs[c].has = rc == TM_OK;
    }
    sim__cli_install_signals();
    if (to_stdout && (rc = stdout_sink_open(&sink, &d)))
        goto out;
    if ((rc = trace_tarmac_writer_open(&w, to_stdout ? sink.path : out, &d)))
        goto out;
    /* merge: O(classes) per job, classes are few */
    for (;;) {
        size_t best = sc.n_classes;
        for (size_t c = 0; c < sc.n_classes; c++)
            if (cs[c].has &&
                (best == sc.n_classes || cs[c].next.submit_us < cs[best].next.submit_us))
                best = c;
        if (best == sc.n_classes)
            break;
        if ((rc = trace_tarmac_write(w, &cs[best].next, &d)))
            goto out;
        if (sim__cli_stop) {
            rc = tm_diag_set(&d, TM_ERR_INTERRUPTED, "synth", "interrupted; %s not written", out);
            goto out;
        }
        n++;
        rc = cs[best].src.next(cs[best].src.ud, &cs[best].next, &d);
        if (rc != TM_OK && rc != TRACE_END)
            goto out;
        cs[best].has = rc == TM_OK;
    }
    rc = trace_tarmac_writer_close(w, &d);
    w = NULL;
    if (rc == TM_OK && to_stdout)
        rc = stdout_sink_copy(&sink, &d);
    /* with the trace on stdout, the summary goes to stderr */
    if (rc == TM_OK && !a.quiet)
        fprintf(to_stdout ? stderr : stdout,
                "wrote %llu jobs of %zu classes to %s (scenario \"%s\", seed %llu, replication "
                "%llu)\n",
                (unsigned long long)n, sc.n_classes, to_stdout ? "stdout" : out, sc.name,
                (unsigned long long)sc.seed, (unsigned long long)rep);
out:
    trace_tarmac_writer_abort(w); /* a failure: the temporary goes, `out` is untouched */
    stdout_sink_close(&sink);
    for (size_t c = 0; cs && c < sc.n_classes; c++) {
        if (cs[c].src.close)
            cs[c].src.close(cs[c].src.ud);
    }
    free(cs);
    sim_scenario_fini(&sc);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_synth = {
    "synth",    cmd_synth, "synthesize a scenario's workload into a tarmac trace (CSV)",
    synth_help, NULL,
};
