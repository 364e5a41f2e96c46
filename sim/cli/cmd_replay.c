/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_replay.c — `tarmac replay`: a public trace against a fleet, with the
 * experiment protocols of the papers that use it (docs/traces.md).
 *
 *   time     the trace's jobs arrive at their times and run through the
 *            engine; results go to an HDF5 report like `tarmac run`'s
 *   window   SWF window replay: N jobs from index K, machine empty at the
 *            first submit; wait, bounded slowdown, utilization per window
 *   pack     the FGD packing experiment on an openb pod list; curves to HDF5
 *   profile  (azure-llm) requests aggregated into a load profile
 *   serve    (azure-llm with --fleet) requests served by one LLM deployment at
 *            request level (cli_llm.c, docs/llm-serving.md)
 *
 * The fleet is a scenario or fleet file (--fleet), a node list (--nodes), the
 * SWF header (--machine-from-trace), or a Gavel cluster spec.
 *
 * One file, just past a thousand lines: the protocols share one option
 * table and one set of checks of which option goes with which protocol, so
 * that a misplaced option is refused the same way everywhere. The serving
 * protocol's options and run already live in cli_llm.c; the window and pack
 * protocols' printing is the next seam.
 */
#include "cli/cli_int.h"
#include "cli/cli_llm.h"
#include "base/afile_int.h"
#include "studies/work_int.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The help: replay_help_head, the formats of the table (traces/formats.c),
 * replay_help_tail; replay_help is the whole, for what wants one string. */
#define REPLAY_HELP_HEAD                                                                           \
    "Usage: tarmac replay TRACE --format FORMAT [FLEET] [options]\n"                               \
    "\n"                                                                                           \
    "Replay TRACE (plain or gzip) against a fleet. Formats (docs/traces.md):\n"

static const char replay_help_tail[] =
    "\n"
    "Fleet (one of):\n"
    "  --fleet FILE            a scenario file (its fleet and policy) or a fleet-only file\n"
    "  --nodes FILE            a node list: openb_node_list_*.csv, or with\n"
    "  --nodes-format pai      the PAI machine table\n"
    "  --machine-from-trace    the SWF header's MaxNodes/MaxProcs (default for swf)\n"
    "  --gavel-cluster V:P:K   V100, P100 and K80 GPUs in nodes of 8 (Gavel's cluster spec)\n"
    "\n"
    "Options:\n"
    "  --protocol P            time (default), window (swf), pack (openb), profile, serve\n"
    "  --policy SPEC           placement-core specification; repeat to compare (window, pack)\n"
    "  --window K:N            window protocol: N jobs from job index K (repeatable;\n"
    "                          default the whole trace)\n"
    "  --target PCT            pack: requested GPU target, percent of capacity (130)\n"
    "  --seeds N               pack: seeds per policy (5); --seed S: base seed (1)\n"
    "  --step PCT              pack: curve resolution in percent of capacity (1)\n"
    "  --dat FILE              pack: also write the curves as a table for plotting\n"
    "  --bin S                 profile: bin width in seconds (60)\n"
    "  --throughputs FILE      gavel: the throughput matrix; --reference W: worker (v100)\n"
    "  --estimates SOURCE      swf: run-time estimates for backfilling and SJF: requested\n"
    "                          (field 9, default), runtime (the actual run time), or\n"
    "                          requested-else-runtime\n"
    "  --lenient               skip malformed rows (reported) instead of stopping\n"
    "  --max-jobs N            time: replay only the first N jobs of the trace (the rest\n"
    "                          is never read)\n"
    "  --preemptible           time, window: every job may be preempted (a trace records\n"
    "                          none); with --checkpoint D, the interval of its checkpoints\n"
    "                          (default 0: never, a preempted job loses all its work) and\n"
    "                          --restart-overhead D, the cost of each restart (default 0)\n"
    "  --jobs MODE             time: what the file keeps of the jobs: full (default),\n"
    "                          summary (/jobs_summary) or none (docs/output.md)\n"
    "  -o, --output FILE       HDF5 output (time: tarmac-replay.h5, pack: tarmac-pack.h5);\n"
    "                          profile: CSV (default, or -, stdout)\n"
    "  -q, --quiet             print nothing but errors\n"
    "  --limit NAME=VALUE      raise a limit the replay is held to: nodes, gpus, tables\n"
    "                          before the trace is read; arrivals (jobs read) and events as\n"
    "                          it is read (docs/cli.md, \"Limits\"; "
    "repeatable)\n" SIM__CLI_LLM_HELP;

static const char replay_help[] = REPLAY_HELP_HEAD "  (tarmac replay --help lists them)\n";

static void print_replay_help(FILE *f)
{
    fputs(REPLAY_HELP_HEAD, f);
    size_t n;
    const trace_format *t = trace_formats(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-12s %s%s\n", t[i].name, t[i].summary,
                t[i].flags & TRACE_FORMAT_NEEDS_MATRIX ? " (needs --throughputs)"
                : t[i].flags & TRACE_FORMAT_REQUESTS   ? " (requests: --protocol profile or serve)"
                                                       : "");
    fputs(replay_help_tail, f);
}

/* The names of the formats with a flag, for messages: "tarmac or swf". */
static const char *format_names(unsigned flag, char *buf, size_t size)
{
    size_t n, k = 0, used = 0, count = 0;
    const trace_format *t = trace_formats(&n);
    for (size_t i = 0; i < n; i++)
        count += (t[i].flags & flag) != 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!(t[i].flags & flag))
            continue;
        const char *sep = k == 0 ? "" : k + 1 == count ? " or " : ", ";
        int w = snprintf(buf + used, size - used, "%s%s", sep, t[i].name);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
        k++;
    }
    return buf;
}

enum { P_TIME, P_WINDOW, P_PACK, P_PROFILE, P_SERVE };

#define MAX_POLICIES 16
#define MAX_WINDOWS  256
#define MAX_REPORTED 10

typedef struct rcfg {
    const char *trace, *fleet, *nodes, *out, *dat, *tput, *ref;
    const trace_format *format;
    const trace_node_format *nodes_format; /* NULL: openb */
    const char *gavel_cluster;
    int machine_from_trace, lenient, quiet, protocol;
    const char *policies[MAX_POLICIES];
    size_t n_pol;
    sim_window windows[MAX_WINDOWS];
    size_t n_win;
    double target, step, bin;
    uint64_t seeds, seed;
    uint64_t max_jobs; /* 0: the whole trace */
    int estimates;     /* trace_estimate_source; -1: not given */
    int warned_estimates;
    sim_jobs_table jobs;
    int preemptible;                   /* --preemptible: every job of the trace */
    int64_t checkpoint_us, restart_us; /* --checkpoint, --restart-overhead */
    int costs_given;
    /* run state */
    trace_gavel_matrix *matrix;
    const char *type_names[PLACE_MAX_TYPES];
    size_t n_types;
    trace_read_stats stats;
    uint64_t reported;
    const sim_limits *limits; /* --limit */
    sim__cli_llm llm;         /* the serve protocol's options */
    int bin_given;
} rcfg;

static void on_bad(void *ud, const tm_diag *d)
{
    rcfg *c = ud;
    if (c->reported++ < MAX_REPORTED)
        fprintf(stderr, "tarmac: skipped %s: %s\n", d->where, d->msg);
}

static void read_opts(rcfg *c, trace_read_opts *o, int any_order)
{
    trace_read_opts_init(o);
    o->mode = c->lenient ? TRACE_LENIENT : TRACE_STRICT;
    o->on_bad = on_bad;
    o->on_bad_ud = c;
    o->stats = &c->stats;
    o->type_names = c->type_names;
    o->n_types = c->n_types;
    o->any_order = any_order;
    o->swf_estimates =
        c->estimates >= 0 ? (trace_estimate_source)c->estimates : TRACE_EST_REQUESTED;
    o->stop_flag = &sim__cli_stop; /* SIGINT and SIGTERM stop a read, too */
}

/* Whether a policy specification orders or backfills by run-time estimates:
 * SJF order, EASY or conservative backfilling, as components
 * ("backfill=easy") or presets ("easy", "conservative"); the names are the
 * registry's (policies/registry.c). Only a warning depends on it. */
static int uses_estimates(const char *spec)
{
    return strstr(spec, "sjf") || strstr(spec, "easy") || strstr(spec, "conservative");
}

/* Once per replay: jobs without an estimate, under a policy that needs them,
 * make SJF act as FCFS among them and EASY reserve nothing (docs/traces.md,
 * "Estimates"); say so, and how to choose another source. */
static void warn_estimates(rcfg *c, const char *policy)
{
    if (c->warned_estimates || c->stats.no_estimate == 0 || !uses_estimates(policy))
        return;
    c->warned_estimates = 1;
    fprintf(stderr,
            "tarmac: warning: %llu of %llu jobs of %s have no run-time estimate (requested time "
            "-1), which policy '%s' needs: their ends are unknown, so backfilling cannot reserve "
            "behind them (it backfills greedily) and SJF orders them last; --estimates runtime "
            "or requested-else-runtime gives them one (docs/traces.md, \"Estimates\")\n",
            (unsigned long long)c->stats.no_estimate, (unsigned long long)c->stats.records,
            c->trace, policy);
}

/* Admission of a trace as it is read. Its size is known only once read (a
 * FIFO, a gzip stream, rows the format drops): the jobs are counted as they
 * come, and the replay is refused at the job that takes it over a limit, before
 * any output is written: arrivals (jobs read) and events (2 a job). The time
 * series of a replay is bounded by the engine as the jobs arrive (at most 10
 * million bins, a job past the end of simulated time refused), with messages
 * of its own. */
typedef struct counted {
    trace_source inner;
    const rcfg *c;
    uint64_t n;
} counted;

static int over_limit(const counted *k, tm_diag *d, int lim, double x, const char *what)
{
    const sim_limit_info *li = &sim_limit_table[lim];
    char l[32], m[32];
    sim_estimate_fmt(l, sizeof l, k->c->limits->max[lim], 0);
    sim_estimate_fmt(m, sizeof m, li->most, 0);
    if (!(x <= li->most))
        return tm_diag_set(d, TM_ERR_LIMIT, k->c->trace,
                           "job %llu takes the replay to %s, more than the limit %s; a run cannot "
                           "hold more than %s %s (replay the first jobs with --max-jobs N)",
                           (unsigned long long)k->n, what, l, m, li->units);
    return tm_diag_set(d, TM_ERR_LIMIT, k->c->trace,
                       "job %llu takes the replay to %s, more than the limit %s (raise it with "
                       "--limit %s=VALUE, or replay the first jobs with --max-jobs N)",
                       (unsigned long long)k->n, what, l, li->name);
}

static int counted_next(void *ud, trace_job *job, tm_diag *d)
{
    counted *k = ud;
    int rc = k->inner.next(k->inner.ud, job, d);
    if (rc != TM_OK)
        return rc;
    k->n++;
    if (k->c->preemptible)
        job->flags |= TRACE_JOB_PREEMPTIBLE;
    const double *max = k->c->limits->max;
    char what[160];
    double n = (double)k->n;
    if (!(n <= max[SIM_LIMIT_ARRIVALS])) {
        snprintf(what, sizeof what, "%llu jobs", (unsigned long long)k->n);
        return over_limit(k, d, SIM_LIMIT_ARRIVALS, n, what);
    }
    if (!(2 * n <= max[SIM_LIMIT_EVENTS])) {
        snprintf(what, sizeof what, "%.0f events (2 a job)", 2 * n);
        return over_limit(k, d, SIM_LIMIT_EVENTS, 2 * n, what);
    }
    return TM_OK;
}

static void counted_close(void *ud)
{
    counted *k = ud;
    k->inner.close(k->inner.ud);
    free(k);
}

static int count_jobs(const rcfg *c, trace_source *src, tm_diag *d)
{
    counted *k = calloc(1, sizeof *k);
    if (!k) {
        src->close(src->ud);
        return tm_diag_set(d, TM_ERR_NOMEM, "replay", "out of memory");
    }
    k->inner = *src;
    k->c = c;
    src->next = counted_next;
    src->close = counted_close;
    src->ud = k;
    return TM_OK;
}

/* Admission of what is known before the trace is read: the fleet (nodes,
 * GPUs) and the time-series tables (pools, GPU types, classes), held to the
 * limits as a scenario's are, at its JSON paths when the fleet is a file. */
static int admit_fleet(const rcfg *c, const sim_scenario *sc, tm_diag *d)
{
    sim_scenario f = *sc; /* shallow: nothing of the workload is known yet */
    f.horizon_us = 0;
    f.n_services = 0;
    if (!f.source[0])
        snprintf(f.source, sizeof f.source, "%s",
                 c->nodes           ? c->nodes
                 : c->gavel_cluster ? "--gavel-cluster"
                                    : c->trace);
    return sim_scenario_admit(&f, c->limits, NULL, d);
}

static int open_jobs(rcfg *c, trace_source *src, int any_order, tm_diag *d)
{
    trace_read_opts o;
    read_opts(c, &o, any_order);
    c->reported = 0;
    if (!c->format->open)
        return tm_diag_set(d, TM_ERR_USAGE, "replay", "format '%s' has no jobs", c->format->name);
    trace_open_args a = {c->matrix, c->ref};
    int rc = c->format->open(src, c->trace, &o, &a, d);
    if (rc != TM_OK)
        return rc;
    return count_jobs(c, src, d);
}

static int open_cb(void *ud, trace_source *src, tm_diag *d)
{
    return open_jobs(ud, src, 0, d);
}

static void print_stats(const rcfg *c)
{
    if (c->quiet)
        return;
    printf("trace %s (%s): %llu rows, %llu records, %llu dropped by the format's rules, %llu "
           "malformed skipped\n",
           c->trace, c->format->name, (unsigned long long)c->stats.rows,
           (unsigned long long)c->stats.records, (unsigned long long)c->stats.dropped,
           (unsigned long long)c->stats.bad);
    if (c->stats.bad)
        printf("first malformed row: %s: %s\n", c->stats.first_bad.where, c->stats.first_bad.msg);
}

/* K:N, each a decimal integer: a value past uint64 is refused, not saturated
 * (strtoull returns 2^64 - 1 with ERANGE, a window that silently holds no job) */
static int parse_window(const char *s, sim_window *w)
{
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || colon - s >= 32)
        return -1;
    char k_text[32];
    memcpy(k_text, s, (size_t)(colon - s));
    k_text[colon - s] = '\0';
    uint64_t k, c;
    if (sim__cli_parse_u64(k_text, UINT64_MAX, &k) ||
        sim__cli_parse_u64(colon + 1, UINT64_MAX, &c) || c == 0)
        return -1;
    w->first = k;
    w->count = c;
    return 0;
}

/* --gavel-cluster V:P:K: three decimal counts of at most GAVEL_MAX_GPUS */
#define GAVEL_MAX_GPUS (8ull * 10000000ull)
static int parse_gavel_cluster(const char *s, uint64_t n[3])
{
    for (int t = 0; t < 3; t++) {
        const char *end = t < 2 ? strchr(s, ':') : s + strlen(s);
        if (!end || end == s || end - s >= 32)
            return -1;
        char text[32];
        memcpy(text, s, (size_t)(end - s));
        text[end - s] = '\0';
        if (sim__cli_parse_u64(text, GAVEL_MAX_GPUS, &n[t]))
            return -1;
        s = end + 1;
    }
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int build_fleet(rcfg *c, sim_scenario *sc, tm_diag *d)
{
    int rc;
    if (c->fleet) {
        if ((rc = sim_scenario_load_fleet_file(sc, c->fleet, d)))
            return rc;
        /* the trace is the workload: the scenario's services are not replayed */
        sc->n_services = 0;
        sc->stop = SIM_STOP_DRAIN;
        sc->horizon_us = INT64_MAX / 4;
        if (sc->sample_us < 60 * SIM_US_PER_S)
            sc->sample_us = 3600 * SIM_US_PER_S;
        return TM_OK;
    }
    if ((rc = sim_scenario_init_replay(sc, c->format->name, d)))
        return rc;
    if (c->nodes) {
        trace_node_source ns;
        trace_read_opts o;
        read_opts(c, &o, 1);
        const trace_node_format *nf =
            c->nodes_format ? c->nodes_format : trace_node_format_find("openb");
        if ((rc = nf->open(&ns, c->nodes, &o, d)))
            return rc;
        uint64_t cpu_only = 0;
        rc = sim_scenario_add_nodes(sc, &ns, &cpu_only, d);
        ns.close(ns.ud);
        if (rc)
            return rc;
        if (!c->quiet && cpu_only)
            printf("fleet: %llu CPU-only nodes of the node list are not modelled\n",
                   (unsigned long long)cpu_only);
        if (sc->n_pools == 0)
            return tm_diag_set(d, TM_ERR_TRACE, c->nodes, "expected GPU nodes, got none");
        return TM_OK;
    }
    if (c->gavel_cluster) {
        /* each count at most GAVEL_MAX_GPUS: as many nodes of 8 as a scenario's
         * pool may have (a count past uint64, or "-8", was read by %llu as a
         * huge number, and its node count cut to 32 bits) */
        uint64_t n[3];
        if (parse_gavel_cluster(c->gavel_cluster, n))
            return tm_diag_set(d, TM_ERR_USAGE, "--gavel-cluster",
                               "expected V:P:K GPU counts, each an integer in [0, %llu]",
                               (unsigned long long)GAVEL_MAX_GPUS);
        const char *types[3] = {"V100", "P100", "K80"};
        sc->pools = calloc(6, sizeof *sc->pools);
        if (!sc->pools)
            return tm_diag_set(d, TM_ERR_NOMEM, "replay", "out of memory");
        for (int t = 0; t < 3; t++) {
            uint64_t full = n[t] / 8, rest = n[t] % 8;
            for (int k = 0; k < 2; k++) {
                uint64_t nodes = k == 0 ? full : (rest ? 1 : 0);
                if (!nodes)
                    continue;
                sim_pool_cfg *p = &sc->pools[sc->n_pools++];
                snprintf(p->name, sizeof p->name, "%s-%s", types[t], k ? "rest" : "x8");
                p->type = (uint32_t)sim_catalog_find(sc->types, sc->n_types, types[t]);
                p->nodes = (uint32_t)nodes;
                p->gpus_per_node = k ? (uint32_t)rest : 8;
                p->cpu_milli = p->mem_mib = INT64_MAX / 4;
                p->retired_us = -1;
            }
        }
        if (sc->n_pools == 0)
            return tm_diag_set(d, TM_ERR_USAGE, "--gavel-cluster", "expected some GPUs");
        return TM_OK;
    }
    /* the machine the trace's header describes (SWF) */
    if (c->format->machine || c->machine_from_trace) {
        if (!c->format->machine)
            return tm_diag_set(d, TM_ERR_USAGE, "replay",
                               "--machine-from-trace needs a trace whose header describes its "
                               "machine (format swf), not %s",
                               c->format->name);
        trace_swf_info info;
        trace_read_opts o;
        read_opts(c, &o, 0);
        if ((rc = c->format->machine(c->trace, &o, &info, d)))
            return rc;
        if ((rc = sim_scenario_add_swf_machine(sc, &info, d)))
            return rc;
        if (!c->quiet)
            printf("machine from the SWF header: %u nodes of %u processor(s)\n", info.nodes,
                   info.procs_per_node);
        return TM_OK;
    }
    return tm_diag_set(d, TM_ERR_USAGE, "replay",
                       "format '%s' needs a fleet: --fleet FILE, --nodes FILE or --gavel-cluster",
                       c->format->name);
}

/* --preemptible: every class pays the given checkpoint loss and restart
 * overhead when preempted (its jobs are made preemptible as they are read,
 * in counted_next); the resolved scenario in the output says so. */
static void make_preemptible(const rcfg *c, sim_scenario *sc)
{
    for (size_t i = 0; i < sc->n_classes; i++) {
        for (sim_class_cfg *cc = &sc->classes[i]; cc; cc = cc->special) {
            cc->flags |= TRACE_JOB_PREEMPTIBLE;
            cc->checkpoint_us = c->checkpoint_us;
            cc->restart_us = c->restart_us;
        }
    }
}

static int check_policy(const char *spec, tm_diag *d)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    char err[256] = "";
    int rc = place_instance_init(&pi, &env, spec, err, sizeof err);
    place_instance_fini(&pi);
    if (rc != PLACE_OK)
        return tm_diag_set(d, rc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_USAGE, "--policy",
                           "%s: %s", spec, err[0] ? err : place_strerror(rc));
    return TM_OK;
}

/* A source whose first job was read ahead (so that a trace with no job is
 * refused before any output exists, even when it is a FIFO): next() hands
 * out that job, then the inner source's. */
typedef struct peeked {
    trace_source inner;
    trace_job first;
    int has_first;
} peeked;

static int peeked_next(void *ud, trace_job *job, tm_diag *diag)
{
    peeked *pk = ud;
    if (pk->has_first) {
        pk->has_first = 0;
        *job = pk->first;
        return TM_OK;
    }
    return pk->inner.next(pk->inner.ud, job, diag);
}

static void peeked_close(void *ud)
{
    peeked *pk = ud;
    pk->inner.close(pk->inner.ud);
    free(pk);
}

/* Read src's first job ahead. A trace with no job at all (only a header,
 * every row dropped by the format's rules or skipped as malformed) is an
 * error: a run of nothing would look like a result. */
static int peek_first(rcfg *c, trace_source *src, tm_diag *d)
{
    peeked *pk = calloc(1, sizeof *pk);
    if (!pk) {
        src->close(src->ud);
        return tm_diag_set(d, TM_ERR_NOMEM, "replay", "out of memory");
    }
    pk->inner = *src;
    int rc = src->next(src->ud, &pk->first, d);
    if (rc == TRACE_END)
        rc = tm_diag_set(d, TM_ERR_TRACE, c->trace,
                         "no job to replay (%llu rows: %llu dropped by the format's rules, %llu "
                         "malformed skipped)",
                         (unsigned long long)c->stats.rows, (unsigned long long)c->stats.dropped,
                         (unsigned long long)c->stats.bad);
    if (rc != TM_OK) {
        peeked_close(pk);
        return rc;
    }
    pk->has_first = 1;
    src->next = peeked_next;
    src->close = peeked_close;
    src->ud = pk;
    return TM_OK;
}

static int run_time(rcfg *c, sim_scenario *sc, tm_diag *d)
{
    trace_source src;
    int rc = open_jobs(c, &src, 0, d);
    if (rc)
        return rc;
    if ((rc = peek_first(c, &src, d)))
        return rc;
    /* the first N jobs: the window stops before reading the N + 1st */
    if (c->max_jobs && (rc = trace_window_open(&src, src, 0, c->max_jobs, 0, d)))
        return rc;
    /* the trace parsed on a second core, where there is one (the same jobs,
     * errors and diagnostics, in order; trace_ahead_open). Only a regular
     * file: the reading thread blocks signals, and a read from a pipe or a
     * FIFO that waits for its writer is stopped by SIGINT only on the thread
     * that waits (the read's EINTR is how the reader hears of it). */
    struct stat st;
    if (sim__work_cores() >= 2 && stat(c->trace, &st) == 0 && S_ISREG(st.st_mode))
        trace_ahead_open(&src, 1);
    sim__cli_install_signals();
    sim_run_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.sources = &src;
    opts.n_sources = 1;
    opts.stop_flag = &sim__cli_stop;
    sim_result res;
    const char *out = c->out ? c->out : "tarmac-replay.h5";
    rc = sim_study_run_jobs(sc, &opts, out, c->jobs, &res, d);
    src.close(src.ud);
    if (rc)
        return rc;
    print_stats(c);
    warn_estimates(c, sc->policy);
    if (!c->quiet) {
        const sim_class_result *a = &res.classes[res.n_classes];
        printf("policy: %s\n", sc->policy);
        printf("jobs: %llu arrived, %llu completed, %llu rejected; wait mean %.1f s, p95 %.1f s, "
               "bounded slowdown %.3f; allocation utilization %.2f %%; %.3f s wall\n",
               (unsigned long long)a->arrived, (unsigned long long)a->completed,
               (unsigned long long)a->rejected, a->wait_mean_s, a->wait_p95_s, a->slowdown_mean,
               100 * res.alloc_util, res.wall_s);
        printf("wrote %s\n", out);
    }
    sim_result_fini(&res);
    return TM_OK;
}

static int run_window(rcfg *c, sim_scenario *sc, tm_diag *d)
{
    if (c->n_win == 0) {
        c->windows[0].first = 0;
        c->windows[0].count = 0;
        c->n_win = 1;
    }
    sim_window_result *r = calloc(c->n_win, sizeof *r);
    if (!r)
        return tm_diag_set(d, TM_ERR_NOMEM, "replay", "out of memory");
    int rc = TM_OK;
    for (size_t p = 0; p < c->n_pol; p++) {
        snprintf(sc->policy, sizeof sc->policy, "%s", c->policies[p]);
        if ((rc = sim_window_replay(sc, open_cb, c, c->windows, c->n_win, &sim__cli_stop, r, d)))
            break;
        if (p == 0) /* the counts of one pass over the windows */
            for (size_t q = 0; q < c->n_pol; q++)
                warn_estimates(c, c->policies[q]);
        if (c->quiet)
            continue;
        printf("policy: %s\n", sc->policy);
        printf("%8s %10s %8s %8s %12s %10s %8s %12s %9s\n", "window", "first", "jobs", "rejected",
               "wait_mean_s", "bsld_mean", "util", "util_rlsched", "errors");
        double sw = 0, sb = 0, su = 0, sr = 0;
        for (size_t i = 0; i < c->n_win; i++) {
            printf("%8zu %10llu %8llu %8llu %12.1f %10.3f %8.4f %12.4f %9llu\n", i,
                   (unsigned long long)r[i].first, (unsigned long long)r[i].jobs,
                   (unsigned long long)r[i].rejected, r[i].wait_mean_s, r[i].bsld_mean, r[i].util,
                   r[i].util_rlsched, (unsigned long long)r[i].policy_errors);
            sw += r[i].wait_mean_s;
            sb += r[i].bsld_mean;
            su += r[i].util;
            sr += r[i].util_rlsched;
        }
        double n = (double)c->n_win;
        printf("%8s %10s %8s %8s %12.1f %10.3f %8.4f %12.4f\n\n", "mean", "", "", "", sw / n,
               sb / n, su / n, sr / n);
    }
    free(r);
    if (rc == TM_OK)
        print_stats(c);
    return rc;
}

static int run_pack(rcfg *c, sim_scenario *sc, tm_diag *d)
{
    trace_source src;
    int rc = open_jobs(c, &src, 1, d);
    if (rc)
        return rc;
    size_t n = 0, cap = 0;
    trace_job *pods = NULL, j;
    while ((rc = src.next(src.ud, &j, d)) == TM_OK) {
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            trace_job *p = realloc(pods, nc * sizeof *p);
            if (!p) {
                rc = tm_diag_set(d, TM_ERR_NOMEM, "replay", "out of memory");
                break;
            }
            pods = p;
            cap = nc;
        }
        pods[n++] = j;
    }
    src.close(src.ud);
    if (rc != TRACE_END) {
        free(pods);
        return rc;
    }
    sim_pack_cfg cfg = {c->target, c->step, c->seed, (uint32_t)c->seeds, c->policies, c->n_pol, 0};
    sim_pack_result res;
    if ((rc = sim_pack_run_reps(sc, pods, n, &cfg, 0, &sim__cli_stop, &res, d))) {
        free(pods);
        return rc;
    }
    free(pods);
    const char *out = c->out ? c->out : "tarmac-pack.h5";
    if (sim__cli_stop) /* the last look: the files are written whole from here */
        rc = tm_diag_set(d, TM_ERR_INTERRUPTED, "replay", "interrupted; %s not written", out);
    else
        rc = sim_pack_write_h5(&res, &cfg, c->trace, out, d);
    if (rc == TM_OK && c->dat)
        rc = sim_pack_write_dat(&res, &cfg, c->dat, d);
    if (rc == TM_OK && !c->quiet) {
        print_stats(c);
        printf("cluster %.0f GPUs, %zu pods in the list, %zu workload shapes, %zu seeds\n",
               res.capacity_gpus, n, res.n_classes, res.n_seeds);
        printf("%-52s %8s %14s %14s %12s\n", "policy", "arrived", "alloc % (sd)", "frag % (sd)",
               "failed pods");
        for (size_t p = 0; p < res.n_policies; p++) {
            double marks[4] = {50, 80, 100, c->target};
            for (int m = 0; m < 4; m++) {
                size_t k = (size_t)floor(marks[m] / c->step + 1e-9);
                if (k >= res.n_points)
                    k = res.n_points - 1;
                double am, as, fm, fs, xm, xs, lo, hi;
                sim_pack_stats(&res, p, SIM_PACK_ALLOC, k, &am, &as, &lo, &hi);
                sim_pack_stats(&res, p, SIM_PACK_FRAG, k, &fm, &fs, &lo, &hi);
                sim_pack_stats(&res, p, SIM_PACK_FAILED, k, &xm, &xs, &lo, &hi);
                printf("%-52.52s %7.1f%% %7.2f (%4.2f) %7.2f (%4.2f) %12.1f\n",
                       m == 0 ? c->policies[p] : "", res.arrived_pct[k], am, as, fm, fs, xm);
            }
        }
        printf("wrote %s%s%s\n", out, c->dat ? " and " : "", c->dat ? c->dat : "");
    }
    sim_pack_result_fini(&res);
    return rc;
}

static int run_profile(rcfg *c, tm_diag *d)
{
    trace_request_source rs;
    trace_read_opts o;
    read_opts(c, &o, 0);
    int rc = c->format->open_requests(&rs, c->trace, &o, d);
    if (rc)
        return rc;
    trace_load_profile p;
    rc = trace_load_profile_build(&p, &rs, c->bin, d);
    rs.close(rs.ud);
    if (rc)
        return rc;
    sim__afile af = {0};
    if (c->out && (rc = sim__afile_open(&af, c->out, d)) != TM_OK) {
        trace_load_profile_fini(&p);
        return rc;
    }
    FILE *f = c->out ? af.f : stdout;
    fprintf(f, "t_s,requests_per_s,prompt_tokens_per_s,output_tokens_per_s\n");
    for (size_t i = 0; i < p.n_bins; i++) {
        /* up to 10^7 lines: a look at the stop flag every 65536 */
        if ((i & 65535) == 0 && sim__cli_stop) {
            rc = tm_diag_set(d, TM_ERR_INTERRUPTED, c->out ? c->out : "stdout",
                             "interrupted while writing the load profile (%zu of %zu bins)%s", i,
                             p.n_bins, c->out ? "; not written" : "");
            break;
        }
        fprintf(f, "%.3f,%.6f,%.3f,%.3f\n", (double)i * p.bin_s, p.requests_per_s[i],
                p.prompt_tokens_per_s[i], p.output_tokens_per_s[i]);
    }
    if (rc != TM_OK)
        sim__afile_abort(&af);
    else if (c->out)
        rc = sim__afile_commit(&af, d);
    else if (fflush(stdout) != 0 || ferror(stdout))
        rc = tm_diag_set(d, TM_ERR_IO, "stdout", "write error: %s", strerror(errno));
    if (rc == TM_OK && !c->quiet && c->out)
        printf("%llu requests, %.0f prompt and %.0f output tokens in %zu bins of %g s; wrote %s\n",
               (unsigned long long)p.requests, p.prompt_tokens, p.output_tokens, p.n_bins, p.bin_s,
               c->out);
    trace_load_profile_fini(&p);
    return rc;
}

enum {
    O_FORMAT = 256,
    O_FLEET,
    O_NODES,
    O_NODES_FORMAT,
    O_MACHINE_FROM_TRACE,
    O_GAVEL_CLUSTER,
    O_PROTOCOL,
    O_POLICY,
    O_WINDOW,
    O_TARGET,
    O_STEP,
    O_BIN,
    O_SEEDS,
    O_DAT,
    O_THROUGHPUTS,
    O_REFERENCE,
    O_MAX_JOBS,
    O_LENIENT,
    O_ESTIMATES,
    O_JOBS,
    O_PREEMPTIBLE,
    O_CHECKPOINT,
    O_RESTART,
};

static const sim__cli_opt replay_opts[] = {
    {"format", O_FORMAT, 1, "a format (tarmac replay --help lists them)"},
    {"fleet", O_FLEET, 1, "a scenario or fleet file"},
    {"nodes", O_NODES, 1, "a node list file"},
    {"nodes-format", O_NODES_FORMAT, 1, "openb or pai"},
    {"machine-from-trace", O_MACHINE_FROM_TRACE, 0, NULL},
    {"gavel-cluster", O_GAVEL_CLUSTER, 1, "V:P:K GPU counts"},
    {"protocol", O_PROTOCOL, 1, "time, window, pack or profile"},
    {"policy", O_POLICY, 1, "a specification"},
    {"window", O_WINDOW, 1, "K:N with N >= 1 (at most 256)"},
    {"target", O_TARGET, 1, "a percentage in [1, 10000]"},
    {"step", O_STEP, 1, "a percentage in [0.001, 100]"},
    {"bin", O_BIN, 1, "seconds > 0"},
    {"seeds", O_SEEDS, 1, "an integer in [1, 10000]"},
    {"dat", O_DAT, 1, "a file name"},
    {"throughputs", O_THROUGHPUTS, 1, "a throughput matrix file"},
    {"reference", O_REFERENCE, 1, "a worker type"},
    {"max-jobs", O_MAX_JOBS, 1, "an integer >= 1"},
    {"lenient", O_LENIENT, 0, NULL},
    {"estimates", O_ESTIMATES, 1, "requested, runtime or requested-else-runtime"},
    {"jobs", O_JOBS, 1, "full, summary or none"},
    {"preemptible", O_PREEMPTIBLE, 0, NULL},
    {"checkpoint", O_CHECKPOINT, 1, "a duration >= 0 (seconds, or with a unit: 30m)"},
    {"restart-overhead", O_RESTART, 1, "a duration >= 0 (seconds, or with a unit: 1m)"},
    SIM__CLI_LLM_OPTS,
    {NULL, 0, 0, NULL},
};

/* -o - is standard output for the profile's CSV; the other protocols write
 * HDF5, which the command checks once it knows the protocol. */
static const sim__cli_spec replay_spec = {
    .cmd = &sim__cmd_replay,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_QUIET | SIM__CLI_LIMIT,
    .operand = "trace",
    .max_operands = 1,
    .opts = replay_opts,
};

static int cmd_replay(int argc, char **argv)
{
    rcfg c;
    memset(&c, 0, sizeof c);
    c.estimates = -1;
    c.target = 130;
    c.step = 1;
    c.bin = 60;
    c.seeds = 5;
    c.seed = 1;
    c.ref = "v100";
    c.protocol = -1;
    sim__cli_llm_init(&c.llm);
    const char *format = NULL;
    sim__cli_args a;
    sim__cli_args_init(&a, &replay_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        int bad = 0;
        switch (key) {
        case O_FORMAT:
            format = v;
            break;
        case O_FLEET:
            c.fleet = v;
            break;
        case O_NODES:
            c.nodes = v;
            break;
        case O_NODES_FORMAT:
            if (!(c.nodes_format = trace_node_format_find(v)))
                return sim__cli_usage("replay", "--nodes-format is openb or pai, not '%s'", v);
            break;
        case O_MACHINE_FROM_TRACE:
            c.machine_from_trace = 1;
            break;
        case O_GAVEL_CLUSTER:
            c.gavel_cluster = v;
            break;
        case O_PROTOCOL: {
            static const char *const names[] = {"time", "window", "pack", "profile", "serve"};
            c.protocol = -1;
            for (int k = 0; k < 5; k++)
                if (strcmp(v, names[k]) == 0)
                    c.protocol = k;
            if (c.protocol < 0)
                return sim__cli_usage("replay", "unknown protocol '%s'", v);
            break;
        }
        case O_POLICY:
            if (c.n_pol == MAX_POLICIES)
                return sim__cli_usage("replay", "at most %d policies", MAX_POLICIES);
            c.policies[c.n_pol++] = v;
            break;
        case O_WINDOW:
            bad = c.n_win == MAX_WINDOWS || parse_window(v, &c.windows[c.n_win]);
            c.n_win += !bad;
            break;
        case O_TARGET:
            bad = parse_double(v, 1, 10000, &c.target);
            break;
        case O_STEP:
            bad = parse_double(v, 0.001, 100, &c.step);
            break;
        case O_BIN:
            bad = parse_double(v, 1e-3, 1e9, &c.bin);
            c.bin_given = 1;
            break;
        case O_SEEDS:
            bad = sim__cli_parse_u64(v, 10000, &c.seeds) || c.seeds == 0;
            break;
        case O_DAT:
            /* "-" would be a file named "-": refused, as the table is
             * written through a temporary and renamed into place */
            if (strcmp(v, "-") == 0)
                return sim__cli_usage("replay",
                                      "--dat -: the table is written to a file "
                                      "(give a file name; -o - is for the profile's CSV)");
            c.dat = v;
            break;
        case O_THROUGHPUTS:
            c.tput = v;
            break;
        case O_REFERENCE:
            c.ref = v;
            break;
        case O_MAX_JOBS:
            bad = sim__cli_parse_u64(v, UINT64_MAX, &c.max_jobs) || c.max_jobs == 0;
            break;
        case O_LENIENT:
            c.lenient = 1;
            break;
        case O_ESTIMATES:
            bad = (c.estimates = trace_estimate_source_find(v)) < 0;
            break;
        case O_JOBS:
            bad = sim_jobs_table_parse(v, &c.jobs) != 0;
            break;
        case O_PREEMPTIBLE:
            c.preemptible = 1;
            break;
        case O_CHECKPOINT:
            bad = sim__cli_parse_duration(v, &c.checkpoint_us) != 0;
            c.costs_given = 1;
            break;
        case O_RESTART:
            bad = sim__cli_parse_duration(v, &c.restart_us) != 0;
            c.costs_given = 1;
            break;
        default:
            bad = key >= O_LLM_MODEL && sim__cli_llm_opt(&c.llm, key, v) != 0;
            break;
        }
        if (bad)
            return sim__cli_bad_value(&a);
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    c.trace = a.n_operands ? a.operands[0] : NULL;
    c.out = a.output;
    c.quiet = a.quiet;
    c.limits = &a.limits;
    if (a.have_seed)
        c.seed = a.seed;
    if (!c.trace)
        return sim__cli_usage("replay", "a trace file is required");
    if (!format)
        return sim__cli_usage("replay", "--format is required");
    char names[128];
    if (!(c.format = trace_format_find(format))) {
        size_t n;
        const trace_format *t = trace_formats(&n);
        size_t used = 0;
        for (size_t i = 0; i < n && used < sizeof names; i++) {
            int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", t[i].name);
            used += w > 0 ? (size_t)w : 0;
        }
        return sim__cli_usage("replay", "unknown format '%s' (formats: %s)", format, names);
    }
    unsigned fl = c.format->flags;
    int requests = (fl & TRACE_FORMAT_REQUESTS) != 0;
    if (c.protocol < 0)
        c.protocol = !requests ? P_TIME : c.fleet || c.llm.given ? P_SERVE : P_PROFILE;
    if ((c.protocol == P_PROFILE || c.protocol == P_SERVE) != requests)
        return sim__cli_usage("replay",
                              "the profile and serve protocols are for request traces (%s), and "
                              "they have only those protocols",
                              format_names(TRACE_FORMAT_REQUESTS, names, sizeof names));
    if (c.llm.given && c.protocol != P_SERVE)
        return sim__cli_usage("replay", "--model, --gpu, --replicas and the other serving "
                                        "options need --protocol serve");
    if (c.protocol == P_SERVE && (c.nodes || c.gavel_cluster || c.machine_from_trace))
        return sim__cli_usage("replay", "the serve protocol takes its fleet from --fleet");
    if (c.protocol == P_WINDOW && !(fl & TRACE_FORMAT_WINDOWS))
        return sim__cli_usage("replay", "the window protocol is for %s traces",
                              format_names(TRACE_FORMAT_WINDOWS, names, sizeof names));
    if (c.protocol == P_PACK && !(fl & TRACE_FORMAT_POD_LIST))
        return sim__cli_usage("replay", "the pack protocol is for pod lists (%s)",
                              format_names(TRACE_FORMAT_POD_LIST, names, sizeof names));
    if (c.n_win && c.protocol != P_WINDOW)
        return sim__cli_usage("replay", "--window needs --protocol window");
    if (c.max_jobs && c.protocol != P_TIME)
        return sim__cli_usage("replay", "--max-jobs needs --protocol time");
    if (c.jobs != SIM_JOBS_FULL && c.protocol != P_TIME)
        return sim__cli_usage("replay", "--jobs needs --protocol time");
    if (c.preemptible && c.protocol != P_TIME && c.protocol != P_WINDOW)
        return sim__cli_usage("replay", "--preemptible needs --protocol time or window");
    if (c.costs_given && !c.preemptible)
        return sim__cli_usage("replay", "--checkpoint and --restart-overhead need --preemptible");
    if (c.estimates >= 0 && !(fl & TRACE_FORMAT_ESTIMATES))
        return sim__cli_usage("replay", "--estimates is for %s traces",
                              format_names(TRACE_FORMAT_ESTIMATES, names, sizeof names));
    if ((fl & TRACE_FORMAT_NEEDS_MATRIX) && !c.tput)
        return sim__cli_usage("replay", "the %s format needs --throughputs FILE", format);
    if (!!c.fleet + !!c.nodes + !!c.gavel_cluster + c.machine_from_trace > 1)
        return sim__cli_usage("replay", "give one of --fleet, --nodes, --gavel-cluster, "
                                        "--machine-from-trace");
    if (c.out && strcmp(c.out, "-") == 0) {
        if (c.protocol == P_TIME || c.protocol == P_PACK || c.protocol == P_SERVE)
            return sim__cli_usage("replay",
                                  "-o -: the output of the %s protocol is an HDF5 file, which "
                                  "cannot go to standard output",
                                  c.protocol == P_PACK    ? "pack"
                                  : c.protocol == P_SERVE ? "serve"
                                                          : "time");
        c.out = NULL; /* the profile's CSV: standard output (window writes no file) */
    }
    tm_diag d;
    tm_diag_clear(&d);
    int rc = TM_OK;
    /* from here every phase (reading node lists, pods, the trace; running;
     * writing) stops on SIGINT or SIGTERM */
    sim__cli_install_signals();
    if (c.protocol == P_PROFILE) {
        rc = run_profile(&c, &d);
        return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
    }
    if (c.protocol == P_SERVE) {
        sim_scenario fleet;
        memset(&fleet, 0, sizeof fleet);
        trace_read_opts o;
        read_opts(&c, &o, 0);
        if (!c.fleet || (rc = build_fleet(&c, &fleet, &d)) == TM_OK)
            rc = sim__cli_llm_run(&c.llm, c.format, c.trace, &o, c.fleet ? &fleet : NULL,
                                  c.bin_given ? c.bin : 10.0, c.out, c.quiet, &d);
        sim_scenario_fini(&fleet);
        return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
    }
    for (size_t p = 0; p < c.n_pol; p++)
        if ((rc = check_policy(c.policies[p], &d)))
            return sim__cli_error(rc, &d);
    sim_scenario sc;
    memset(&sc, 0, sizeof sc);
    if (c.tput && (rc = trace_gavel_matrix_load(&c.matrix, c.tput, &d)))
        goto out;
    if ((rc = build_fleet(&c, &sc, &d)))
        goto out;
    c.n_types = sim_scenario_type_names(&sc, c.type_names);
    if (c.matrix) {
        const char *const *jt;
        size_t n = trace_gavel_matrix_job_types(c.matrix, &jt);
        if ((rc = sim_scenario_set_classes(&sc, jt, n, &d)))
            goto out;
    } else if (!(c.format->flags & TRACE_FORMAT_SCENARIO_CLASSES) || !c.fleet) {
        /* one class for the trace, unless its jobs carry the classes of the
         * scenario given as --fleet (a tarmac trace `tarmac synth` wrote) */
        const char *trace = "trace";
        if ((rc = sim_scenario_set_classes(&sc, &trace, 1, &d)))
            goto out;
    }
    if (c.n_pol == 0) {
        if (c.protocol == P_PACK) {
            static const char *const dflt[] = {"order=fifo placement=first-fit backfill=none",
                                               "order=fifo placement=best-fit backfill=none"};
            c.policies[0] = dflt[0];
            c.policies[1] = dflt[1];
            c.n_pol = 2;
        } else {
            c.policies[0] = sc.policy;
            c.n_pol = 1;
        }
    }
    if (c.preemptible)
        make_preemptible(&c, &sc);
    if ((rc = admit_fleet(&c, &sc, &d)))
        goto out;
    if (c.protocol != P_WINDOW && c.protocol != P_PACK && c.policies[0] != sc.policy)
        snprintf(sc.policy, sizeof sc.policy, "%s", c.policies[0]);
    if (c.protocol == P_TIME)
        rc = run_time(&c, &sc, &d);
    else if (c.protocol == P_WINDOW)
        rc = run_window(&c, &sc, &d);
    else
        rc = run_pack(&c, &sc, &d);
out:
    trace_gavel_matrix_free(c.matrix);
    sim_scenario_fini(&sc);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_replay = {
    "replay",
    cmd_replay,
    "replay a public trace (SWF, openb, PAI, Helios, Philly, Gavel, ...) against a fleet",
    replay_help,
    print_replay_help,
};
