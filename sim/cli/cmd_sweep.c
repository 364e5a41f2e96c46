/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sweep.c — `tarmac sweep`: plan, run (a shard, one point, on local
 * workers or under MPI) and merge a parameter sweep (sweep.c does the work;
 * docs/sweeps.md is the user's guide).
 *
 *   tarmac sweep plan SWEEP.json     the points, their parameters and seeds
 *   tarmac sweep run SWEEP.json      run (a share of) the points
 *   tarmac sweep merge SWEEP.json    one file over all the points
 *   tarmac sweep SWEEP.json          run every point here, then merge
 *
 * Exit status: 0 when every point in question is ok; 1 when the command did
 * its work but some points failed (run) or are failed or missing (merge);
 * otherwise the status of what went wrong (docs/cli.md).
 */
#include "cli/cli_int.h"
#include "config/json_out.h"
#include "output/provenance_int.h"
#include "studies/sweep_int.h"
#include "studies/work_int.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_INCOMPLETE 1

static const char sweep_help[] =
    "Usage: tarmac sweep plan SWEEP.json [--shard K/N] [--json] [-o DIR]\n"
    "       tarmac sweep run SWEEP.json [--shard K/N | --point I] [-j N] [--resume]\n"
    "                        [-o DIR] [--merge FILE] [--mpi] [--quiet]\n"
    "       tarmac sweep merge SWEEP.json [-o FILE] [--dir DIR] [--quiet]\n"
    "       tarmac sweep SWEEP.json [-j N] [--resume] [-o DIR] [--quiet]\n"
    "\n"
    "A sweep file (docs/sweeps.md) names a base -- a scenario, or an openb packing\n"
    "run -- a grid and/or a list of parameter values at JSON paths into it, and a\n"
    "number of replications. Its points are numbered: point i is combination\n"
    "i / R at replication i mod R. A point's result depends only on the sweep\n"
    "file and i, so shards, workers, MPI ranks and reruns all agree.\n"
    "\n"
    "plan    prints the points: combination, replication, seed, the seed of the\n"
    "        first random stream, the parameter values.\n"
    "run     runs the points (or shard K of N of them: the points with i mod N = K),\n"
    "        writing DIR/pNNNNNN.h5 for each, atomically; a failed point leaves\n"
    "        DIR/pNNNNNN.failed with its error and the others go on.\n"
    "merge   writes one HDF5 file with a table of every point's parameters and key\n"
    "        results, means over replications, failures, links to the point files\n"
    "        and, for packing sweeps, every curve (docs/output.md, \"Sweep files\").\n"
    "Without a verb: run every point on this machine, then merge into DIR/merged.h5.\n"
    "\n"
    "  --shard K/N          plan, run: only the points i with i mod N = K (0 <= K < N);\n"
    "                       Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\n"
    "  --point I            run: point I alone (gives what the whole sweep gives)\n"
    "  -j, --jobs N         run: N worker processes (default: the online cores)\n"
    "  --resume             run: skip points whose file is valid and complete\n"
    "  -o, --output DIR|FILE  plan, run: the points folder (default: the sweep's\n"
    "                       \"output\", else SWEEP without .json plus .points);\n"
    "                       merge: the merged file (default DIR/merged.h5)\n"
    "  --dir DIR            merge: the points folder\n"
    "  --merge FILE         run: merge into FILE afterwards\n"
    "  --mpi                run: under mpirun; rank 0 hands out points to the other\n"
    "                       ranks as they finish and merges (into --merge FILE, or\n"
    "                       DIR/merged.h5 for a whole sweep; needs -DTARMAC_MPI=ON)\n"
    "  --json               plan: the points as JSON on stdout\n"
    "  --limit NAME=VALUE   run: raise a limit each point's scenario is held to before\n"
    "                       any point runs (docs/cli.md, \"Limits\"; repeatable)\n"
    "  -q, --quiet          print nothing but errors\n"
    "\n"
    "Exit status: 0 every point ok; 1 some points failed or are missing (see the\n"
    ".failed records, or /sweep/failed); otherwise as for every command.\n";

typedef struct sweep_cli {
    const char *verb, *file, *dir, *out, *merge;
    uint32_t shard_k, shard_n;
    long point;
    uint64_t jobs;
    int have_jobs, resume, mpi, json, quiet;
    const sim_limits *limits;
} sweep_cli;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_shard(const char *s, uint32_t *k, uint32_t *n)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    if (!slash || slash == s || slash - s > 20)
        return -1;
    char a[24];
    memcpy(a, s, (size_t)(slash - s));
    a[slash - s] = '\0';
    uint64_t kk, nn;
    if (sim__cli_parse_u64(a, 1u << 30, &kk) || sim__cli_parse_u64(slash + 1, 1u << 30, &nn) ||
        nn == 0 || kk >= nn)
        return -1;
    *k = (uint32_t)kk;
    *n = (uint32_t)nn;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* plan                                                                       */

static int do_plan(const sweep_cli *c)
{
    sim__sweep sw;
    tm_diag d;
    int rc = sim__sweep_open(&sw, c->file, c->dir, &d);
    if (rc)
        return sim__cli_error(rc, &d);
    const sim_sweep_spec *s = &sw.spec;
    const char *kind = s->kind == SIM_SWEEP_PACK ? "pack" : "scenario";
    size_t in_shard = 0;
    for (size_t i = 0; i < sw.n_points; i++)
        in_shard += (size_t)sim__sweep_in_shard(i, c->shard_k, c->shard_n);
    /* --json: the document is built whole and printed at the end, so that
     * a failure half-way prints nothing */
    sim__jnode *root = NULL, *pts = NULL;
    sim__jout *j = NULL;
    if (c->json) {
        j = sim__jout_new(&root);
        sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
        sim__jout_str(j, root, "sweep", s->path);
        sim__jout_str(j, root, "kind", kind);
        sim__jout_str(j, root, "base", s->base_name);
        sim__jout_str(j, root, "points_dir", sw.dir);
        sim__jout_uint(j, root, "combinations", s->n_combos);
        sim__jout_uint(j, root, "replications", s->replications);
        sim__jout_uint(j, root, "n_points", sw.n_points);
        sim__jnode *sh = sim__jout_array(j, root, "shard");
        sim__jout_uint(j, sh, NULL, c->shard_k);
        sim__jout_uint(j, sh, NULL, c->shard_n);
        sim__jnode *pa = sim__jout_array(j, root, "params");
        for (size_t p = 0; p < s->n_params; p++)
            sim__jout_str(j, pa, NULL, s->params[p]);
        pts = sim__jout_array(j, root, "points");
    } else if (!c->quiet) {
        printf("sweep %s: kind %s, %zu parameter%s, %zu combination%s x %u replication%s = %zu "
               "points",
               s->path, kind, s->n_params, s->n_params == 1 ? "" : "s", s->n_combos,
               s->n_combos == 1 ? "" : "s", s->replications, s->replications == 1 ? "" : "s",
               sw.n_points);
        if (c->shard_n > 1)
            printf("; shard %u/%u: %zu points", c->shard_k, c->shard_n, in_shard);
        printf("\nbase %s; points folder %s\n", s->base_name, sw.dir);
        printf("%8s %7s %5s %12s %11s", "point", "combo", "rep", "seed", "stream0");
        for (size_t p = 0; p < s->n_params; p++)
            printf("  %s", s->params[p]);
        printf("\n");
    }
    size_t k = 0;
    for (size_t i = 0; i < sw.n_points; i++) {
        if (!sim__sweep_in_shard(i, c->shard_k, c->shard_n))
            continue;
        sim__sweep_point_info pi;
        if ((rc = sim__sweep_point_info_get(&sw, i, &pi, &d))) {
            sim__jout_free(j);
            sim__sweep_close(&sw);
            return sim__cli_error(rc, &d);
        }
        const sim_sweep_value *row = &s->values[pi.combo * s->n_params];
        if (c->json) {
            char file[1100];
            sim__sweep_point_path(&sw, i, file, sizeof file);
            sim__jnode *po = sim__jout_object(j, pts, NULL);
            sim__jout_uint(j, po, "point", i);
            sim__jout_uint(j, po, "combo", pi.combo);
            sim__jout_uint(j, po, "replication", pi.replication);
            sim__jout_uint(j, po, "seed", pi.seed);
            sim__jout_uint(j, po, "stream_seed", pi.stream_seed);
            sim__jout_str(j, po, "fingerprint", pi.fingerprint);
            sim__jout_str(j, po, "file", file);
            sim__jnode *pp = sim__jout_object(j, po, "params");
            for (size_t p = 0; p < s->n_params; p++) {
                if (row[p].json)
                    sim__jout_parsed(j, pp, s->params[p], row[p].json);
                else
                    sim__jout_null(j, pp, s->params[p]);
            }
        } else if (!c->quiet) {
            printf("%8zu %7zu %5u %12llu %11lu", i, pi.combo, pi.replication,
                   (unsigned long long)pi.seed, pi.stream_seed);
            for (size_t p = 0; p < s->n_params; p++)
                printf("  %s", row[p].json ? row[p].text : "(base)");
            printf("\n");
        }
        k++;
    }
    sim__sweep_close(&sw);
    if (c->json) {
        rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, &d);
        sim__jout_free(j);
        if (rc != TM_OK)
            return sim__cli_error(rc, &d);
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* run and merge                                                              */

static int report_merge(const char *path, const sim__sweep_merge_counts *mc, int quiet)
{
    if (!quiet)
        printf("merged %zu points into %s: %zu ok, %zu failed, %zu missing\n",
               mc->ok + mc->failed + mc->missing, path, mc->ok, mc->failed, mc->missing);
    return mc->failed || mc->missing ? EXIT_INCOMPLETE : 0;
}

static void report_run(const sweep_cli *c, const sim__sweep_counts *n, double wall)
{
    if (c->quiet)
        return;
    printf("%zu point%s run in %.2f s: %zu ok, %zu failed, %zu interrupted", n->todo,
           n->todo == 1 ? "" : "s", wall, n->ok, n->failed, n->interrupted);
    if (c->resume)
        printf("; %zu valid already, skipped", n->skipped);
    printf("\n");
}

/* Admission of the points to run, before any runs: each combination's
 * scenario is held to the limits (a pack sweep has none). A scenario that
 * does not load is left to fail as its point, with its reason, as before. */
static int admit_points(const sweep_cli *c, const sim__sweep *sw, const size_t *todo, size_t n,
                        tm_diag *d)
{
    if (sw->spec.kind != SIM_SWEEP_SCENARIO)
        return TM_OK;
    size_t last = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t combo;
        uint32_t rep;
        sim__sweep_point_of(sw, todo[k], &combo, &rep);
        if (combo == last)
            continue;
        last = combo;
        char *json = NULL;
        sim_scenario sc;
        tm_diag sub;
        if (sim_sweep_apply(&sw->spec, combo, &json, NULL, &sub) != TM_OK ||
            sim_scenario_load_text(&sc, json, strlen(json), sw->spec.base_name, &sub) != TM_OK) {
            free(json);
            continue;
        }
        free(json);
        int rc = sim_scenario_admit(&sc, c->limits, NULL, d);
        sim_scenario_fini(&sc);
        if (rc != TM_OK) {
            char msg[sizeof d->msg];
            snprintf(msg, sizeof msg, "%s", d->msg);
            snprintf(d->msg, sizeof d->msg, "sweep point %zu (combination %zu): %.400s", todo[k],
                     combo, msg);
            return rc;
        }
    }
    return TM_OK;
}

#ifdef TARMAC_MPI
/* admit_points for sim__sweep_mpi (rank 0 admits the points to run). */
static int admit_cb(const void *ud, const sim__sweep *sw, const size_t *todo, size_t n, tm_diag *d)
{
    return admit_points(ud, sw, todo, n, d);
}
#endif

static int do_run(const sweep_cli *c, int merge_after)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim__cli_install_signals();
    sim__sweep_run_opts o = {c->shard_k, c->shard_n, c->point, c->resume, 0, &sim__cli_stop, NULL};
    o.workers = c->have_jobs ? (unsigned)c->jobs : 0;
    if (!c->quiet)
        o.log = stdout;
    sim__sweep_counts n;
    sim__sweep_merge_counts mc;
    memset(&n, 0, sizeof n);
    memset(&mc, 0, sizeof mc);
    double t0 = now_s();
    int rc;
    char merged[1200] = "";
    if (c->mpi) {
#ifdef TARMAC_MPI
        int rank = 0;
        /* rank 0 merges: into --merge FILE, or DIR/merged.h5 when the job runs
         * the whole sweep (no --shard, no --point) */
        const char *mpath = c->merge;
        if (!mpath && c->shard_n <= 1 && c->point < 0) {
            sim__sweep probe;
            if ((rc = sim__sweep_open(&probe, c->file, c->dir, &d)))
                return sim__cli_error(rc, &d);
            snprintf(merged, sizeof merged, "%s/merged.h5", probe.dir);
            sim__sweep_close(&probe);
            mpath = merged;
        }
        rc = sim__sweep_mpi(c->file, c->dir, &o, admit_cb, c, mpath, &rank, &n, &mc, &d);
        if (rank != 0) /* rank 0 speaks for the job */
            return rc == TM_OK || rc == TM_ERR_INTERRUPTED ? 0 : sim__cli_error(rc, &d);
        if (rc)
            return sim__cli_error(rc, &d);
        report_run(c, &n, now_s() - t0);
        int code = n.failed ? EXIT_INCOMPLETE : 0;
        if (mpath) {
            int m = report_merge(mpath, &mc, c->quiet);
            code = code ? code : m;
        }
        return code;
#else
        return sim__cli_usage("sweep", "--mpi needs a build with MPI (cmake -DTARMAC_MPI=ON)");
#endif
    }
    sim__sweep sw;
    if ((rc = sim__sweep_open(&sw, c->file, c->dir, &d)))
        return sim__cli_error(rc, &d);
    size_t *todo = NULL, n_todo = 0;
    if ((rc = sim__sweep_todo(&sw, &o, &todo, &n_todo, &n, &d)) ||
        (rc = admit_points(c, &sw, todo, n_todo, &d)))
        goto out;
    if (!c->quiet)
        printf("sweep %s: %zu point%s to run on %u worker%s%s\n", sw.spec.path, n_todo,
               n_todo == 1 ? "" : "s", o.workers ? o.workers : sim__work_cores(),
               (o.workers ? o.workers : sim__work_cores()) == 1 ? "" : "s",
               c->resume && n.skipped ? " (the others are valid already)" : "");
    rc = sim__sweep_run_local(&sw, todo, n_todo, &o, &n, &d);
    if (rc)
        goto out;
    report_run(c, &n, now_s() - t0);
    if (c->merge)
        snprintf(merged, sizeof merged, "%s", c->merge);
    else if (merge_after)
        snprintf(merged, sizeof merged, "%s/merged.h5", sw.dir);
    if (merged[0] && (rc = sim__sweep_merge(&sw, merged, &mc, &sim__cli_stop, &d)))
        goto out;
out:
    free(todo);
    sim__sweep_close(&sw);
    if (rc)
        return sim__cli_error(rc, &d);
    int code = n.failed ? EXIT_INCOMPLETE : 0;
    if (merged[0]) {
        int m = report_merge(merged, &mc, c->quiet);
        code = code ? code : m;
    }
    return code;
}

static int do_merge(const sweep_cli *c)
{
    tm_diag d;
    sim__sweep sw;
    int rc = sim__sweep_open(&sw, c->file, c->dir, &d);
    if (rc)
        return sim__cli_error(rc, &d);
    char out[1200];
    if (c->out)
        snprintf(out, sizeof out, "%s", c->out);
    else
        snprintf(out, sizeof out, "%s/merged.h5", sw.dir);
    sim__sweep_merge_counts mc;
    sim__cli_install_signals();
    rc = sim__sweep_merge(&sw, out, &mc, &sim__cli_stop, &d);
    sim__sweep_close(&sw);
    if (rc)
        return sim__cli_error(rc, &d);
    return report_merge(out, &mc, c->quiet);
}

enum { O_SHARD = 256, O_POINT, O_RESUME, O_DIR, O_MERGE, O_MPI };

static const sim__cli_opt sweep_opts[] = {
    {"shard", O_SHARD, 1, "K/N with 0 <= K < N"},
    {"point", O_POINT, 1, "a point index"},
    {"resume", O_RESUME, 0, NULL},
    {"dir", O_DIR, 1, "a folder"},
    {"merge", O_MERGE, 1, "a file name"},
    {"mpi", O_MPI, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec sweep_spec = {
    .cmd = &sim__cmd_sweep,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_JOBS | SIM__CLI_JSON | SIM__CLI_QUIET | SIM__CLI_LIMIT,
    .output_needs = "a folder (plan, run) or a file name (merge)",
    .no_stdout = "a folder of point files or an HDF5 file",
    .max_operands = -1, /* [VERB] SWEEP.json, checked below */
    .opts = sweep_opts,
};

static int is_verb(const char *s)
{
    return strcmp(s, "plan") == 0 || strcmp(s, "run") == 0 || strcmp(s, "merge") == 0;
}

static int cmd_sweep(int argc, char **argv)
{
    /* A sweep's files record no command line: a point's file is the same
     * bytes however it was made (one process, -j N, a Slurm array task, a
     * resumed or redone point, `sweep point`), and the merged file equals
     * one process's; the sweep file and the point's scenario say what ran. */
    sim__provenance_command_line(0, NULL);
    sweep_cli c;
    memset(&c, 0, sizeof c);
    c.shard_n = 1;
    c.point = -1;
    sim__cli_args a;
    sim__cli_args_init(&a, &sweep_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        switch (key) {
        case O_SHARD:
            if (parse_shard(v, &c.shard_k, &c.shard_n))
                return sim__cli_usage("sweep", "--shard needs K/N with 0 <= K < N, got '%s'", v);
            break;
        case O_POINT: {
            uint64_t p;
            if (sim__cli_parse_u64(v, (uint64_t)1 << 40, &p))
                return sim__cli_usage("sweep", "--point needs a point index, got '%s'", v);
            c.point = (long)p;
            break;
        }
        case O_RESUME:
            c.resume = 1;
            break;
        case O_DIR:
            c.dir = v;
            break;
        case O_MERGE:
            /* "-" is not standard output here: the merged file is HDF5 */
            if (strcmp(v, "-") == 0)
                return sim__cli_usage("sweep", "--merge -: the merged file is an HDF5 file, "
                                               "which cannot go to standard output");
            c.merge = v;
            break;
        case O_MPI:
            c.mpi = 1;
            break;
        }
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    c.out = a.output;
    c.jobs = a.jobs;
    c.have_jobs = a.have_jobs;
    c.json = a.json;
    c.quiet = a.quiet;
    c.limits = &a.limits;
    int k = 0;
    if (k < a.n_operands && is_verb(a.operands[k]))
        c.verb = a.operands[k++];
    if (k < a.n_operands)
        c.file = a.operands[k++];
    if (k < a.n_operands)
        return sim__cli_usage("sweep", "more than one sweep file given ('%s')", a.operands[k]);
    const char *verb = c.verb ? c.verb : "";
    if (!c.file)
        return sim__cli_usage("sweep", "a sweep file is required");
    int is_plan = strcmp(verb, "plan") == 0, is_run = strcmp(verb, "run") == 0,
        is_merge = strcmp(verb, "merge") == 0, is_all = !c.verb;
    /* options that do not belong to the verb are mistakes, not no-ops */
    if (c.shard_n > 1 && !(is_plan || is_run))
        return sim__cli_usage("sweep", "--shard is for plan and run");
    if ((c.point >= 0 || c.merge || c.mpi) && !is_run)
        return sim__cli_usage("sweep", "--point, --merge and --mpi are for run");
    if ((c.have_jobs || c.resume) && !(is_run || is_all))
        return sim__cli_usage("sweep", "-j and --resume are for run");
    if (c.dir && !is_merge)
        return sim__cli_usage("sweep", "--dir is for merge (plan and run take -o DIR)");
    if (c.json && !is_plan)
        return sim__cli_usage("sweep", "--json is for plan");
    if (c.point >= 0 && c.shard_n > 1)
        return sim__cli_usage("sweep", "give --shard or --point, not both");
    if (c.mpi && c.have_jobs)
        return sim__cli_usage("sweep", "with --mpi the ranks are the workers: no -j");
    if (!is_merge) {
        c.dir = c.out;
        c.out = NULL;
    }
    if (is_plan)
        return do_plan(&c);
    if (is_merge)
        return do_merge(&c);
    return do_run(&c, is_all);
}

const sim__cli_command sim__cmd_sweep = {
    "sweep",    cmd_sweep, "run a parameter grid: plan, run (shards, workers, MPI) and merge",
    sweep_help, NULL,
};
