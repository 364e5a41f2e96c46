/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_size.c — `tarmac size`: the smallest fleet, in GPUs per type and in
 * cost, that meets targets, found by simulation (size.c does the search and
 * the runs; this file parses, prints and reports).
 */
#include "cli/cli_int.h"
#include "config/json_out.h"
#include "output/report_int.h"
#include "studies/size_int.h"
#include "studies/work_int.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char size_help[] =
    "Usage: tarmac size [SCENARIO] --target SPEC [--pools A,B,...] [--replications R]\n"
    "                   [--confidence C] [--warmup DURATION] [--min-nodes N] [--max-nodes N]\n"
    "                   [--growth RATE] [--growth-months M] [--screen DURATION]\n"
    "                   [--no-screen] [--no-early-reject] [--seed N]\n"
    "                   [-j N] [--verbose] [--quiet] [--json] [--limit NAME=VALUE]...\n"
    "                   [-o FILE]\n"
    "\n"
    "Find the smallest fleet that meets the targets, by simulation: the number of\n"
    "nodes of each searched pool (all pools by default) is searched, galloping then\n"
    "bisecting (one pool), or along the frontier of minimal mixes (several pools,\n"
    "each mix costed, the cheapest chosen). Every candidate runs R replications;\n"
    "a target holds when the one-sided confidence bound of its mean over them does\n"
    "(the upper bound for <=, the lower for >=), and no job may be rejected.\n"
    "Prints the chosen fleet (GPUs per type, cost per month), its neighbours (one\n"
    "node more or less) and, with --growth, when the scenario's own fleet stops\n"
    "meeting the targets and what to add then.\n"
    "\n"
    "Targets: comma-separated METRIC[SCOPE]OP VALUE, OP one of <= < >= >:\n"
    "  wait_mean, wait_p50, wait_p95, wait_p99   wait (duration: 90s, 10m, 2h);\n"
    "                       SCOPE a class, default all jobs\n"
    "  slowdown_mean        mean bounded slowdown (a number)\n"
    "  deadline             share of deadlines met (0.95 or 95%)\n"
    "  slo                  a service's SLO attainment; SCOPE a service, default each\n"
    "  api_share            share of a service's requests sent to the API\n"
    "  e.g. 'wait_p95<=10m,slo>=0.99', 'wait_mean[training]<=1h,deadline>=95%'\n"
    "\n"
    "  --target SPEC        the targets (required)\n"
    "  --pools A,B,...      the pools to size (names; default all, at most 4)\n"
    "  --replications R     runs per candidate fleet, >= 1 (default 5)\n"
    "  --confidence C       confidence of the one-sided bounds (default 0.95)\n"
    "  --warmup DURATION    jobs arriving earlier are not counted (default a tenth\n"
    "                       of the horizon)\n"
    "  --min-nodes N        at least N nodes per pool (default: the load bound, the\n"
    "                       fewest nodes that give the fleet the GPUs the offered\n"
    "                       load needs on its fastest types; fleets below it do less\n"
    "                       work than arrives and are not simulated; 0 starts at 0)\n"
    "  --max-nodes N        at most N nodes per pool (default 1024)\n"
    "  --no-early-reject    run every replication of every fleet whole (by default a\n"
    "                       fleet whose waiting jobs grow without bound is stopped and\n"
    "                       rejected with the evidence, and one whose first replications\n"
    "                       already put a target's confidence interval beyond its\n"
    "                       limit runs no more; docs/cost.md, \"Early rejection\")\n"
    "  --screen DURATION    screen candidates on the warm-up and the first DURATION\n"
    "                       after it, with 2 replications (default 4d); the search runs\n"
    "                       on the screen's verdicts and its answer is confirmed in\n"
    "                       full: the reported n passes the full evaluation and n - 1\n"
    "                       fails it (docs/cost.md, \"Screening\"). Off when the\n"
    "                       horizon is not longer than the warm-up and DURATION\n"
    "  --no-screen          evaluate every candidate in full (no screen)\n"
    "  --growth RATE        monthly demand growth (0.05 = 5 %/month): when does the\n"
    "                       scenario's fleet stop meeting the targets, what to add\n"
    "  --growth-months M    look this many months ahead (default 36)\n"
    "  --seed N             override the scenario's seed\n"
    "  -j, --jobs N         run each candidate's replications on N worker processes\n"
    "                       (default: the online cores); the answer is the same for any N\n"
    "  -v, --verbose        one line per simulated fleet on stderr\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --json               print a JSON summary on stdout instead of the text\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; repeatable)\n"
    "  -o, --output FILE    also write every simulated fleet, the choice and growth\n"
    "                       to the HDF5 file FILE (docs/output.md, \"Size files\")\n";

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = s ? strtod(s, &end) : NAN;
    if (!s || end == s || *end || errno || !(x >= lo && x <= hi))
        return -1;
    *out = x;
    return 0;
}

static void why_text(char *buf, size_t n, const sim__size_runner *r, const sim__size_eval *e)
{
    if (e->pass) {
        snprintf(buf, n, "meets the targets");
    } else if (e->why == -3) {
        sim__size_unstable_format(buf, n, e);
    } else if (e->why == -2) {
        snprintf(buf, n, "fails: %llu jobs can never fit", (unsigned long long)e->rejected);
    } else {
        const sim__size_term *t = &r->terms[e->why];
        char b[48], l[48];
        sim__size_term_format(b, sizeof b, t, e->bound[e->why]);
        sim__size_term_format(l, sizeof l, t, t->limit);
        snprintf(buf, n, "fails %s: bound %s, limit %s", t->text, b, l);
    }
}

/* GPUs per type of the fleet (the searched pools as given, the rest as in the
 * scenario): "96 H100, 32 L40S". */
static void gpus_per_type(char *buf, size_t n, const sim__size_runner *r, const uint32_t *nodes)
{
    const sim_scenario *sc = r->base;
    double g[PLACE_MAX_TYPES] = {0};
    for (size_t p = 0; p < sc->n_pools; p++) {
        double nn = sc->pools[p].nodes;
        for (size_t k = 0; k < r->n_vary; k++)
            if (r->vary[k] == p)
                nn = nodes[k];
        g[sc->pools[p].type] += nn * sc->pools[p].gpus_per_node;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (size_t t = 0; t < sc->n_types && len < n; t++)
        if (g[t] > 0)
            len += (size_t)snprintf(buf + len, n - len, "%s%.0f %s", len ? ", " : "", g[t],
                                    sc->types[t].name);
    if (!len)
        snprintf(buf, n, "no GPUs");
}

static void print_fleet_line(const sim__size_runner *r, const sim__size_fleet *f, const char *tag)
{
    char fleet[512], usd[48], why[512];
    sim__size_fleet_format(fleet, sizeof fleet, r, f->nodes);
    sim__cost_fmt_usd(usd, sizeof usd, f->eval.usd_per_month[SIM__SIZE_AS_GIVEN]);
    if (!isfinite(f->eval.usd_per_month[SIM__SIZE_AS_GIVEN]))
        snprintf(usd, sizeof usd, "cost not measured (every run stopped)");
    why_text(why, sizeof why, r, &f->eval);
    printf("  %s%s: %s/month, %s; %u of %u replications meet them on their own\n", tag, fleet, usd,
           why, f->eval.reps_meeting, f->eval.replications);
}

/* What the screen decided and what the full evaluation confirmed. */
static void print_screen(const sim__size_runner *r, const sim__size_runner *scr,
                         const sim__size_cache *sc, const sim__size_screen_stats *st,
                         int64_t screen_us)
{
    printf("screened %zu fleets first (%llu runs of the warm-up and %.3g h after it, %u "
           "replications each)\n",
           sc->n, (unsigned long long)scr->runs, (double)screen_us / SIM_US_PER_S / 3600,
           scr->replications);
    if (st->searches == 1) {
        const char *pool = r->base->pools[r->vary[st->k]].name;
        if (!st->full_found)
            printf("  the screen's answer, confirmed in full: no %s count up to the maximum "
                   "meets the targets\n",
                   pool);
        else if (st->screen_found && st->screen_n == st->full_n)
            printf(
                "  the screen's answer, %s %u nodes, confirmed in full: %u meets the targets%s\n",
                pool, st->full_n, st->full_n,
                st->full_n > st->lo ? ", one fewer fails them" : " (the search's floor)");
        else if (st->screen_found)
            printf("  the screen's answer, %s %u nodes, corrected in full: %u meets the "
                   "targets%s\n",
                   pool, st->screen_n, st->full_n,
                   st->full_n > st->lo ? ", one fewer fails them" : " (the search's floor)");
        else
            printf("  the screen passed no %s count; in full: %u meets the targets%s\n", pool,
                   st->full_n,
                   st->full_n > st->lo ? ", one fewer fails them" : " (the search's floor)");
    } else {
        printf("  %zu screened searches: %zu answers confirmed in full as the screen had them, "
               "%zu corrected by the full evaluation\n",
               st->searches, st->agreed, st->corrected);
    }
}

/* What an interrupted search had found: every fleet simulated to the end,
 * on stderr (stdout may be a --json consumer's). */
static void print_simulated(const sim__size_runner *r, const sim__size_cache *c)
{
    if (!c->n)
        return;
    fprintf(stderr, "fleets simulated before the interruption:\n");
    for (size_t i = 0; i < c->n; i++) {
        char fleet[512], why[512];
        sim__size_fleet_format(fleet, sizeof fleet, r, c->e[i].nodes);
        why_text(why, sizeof why, r, &c->e[i].eval);
        fprintf(stderr, "  %s at demand x%.3g: %s; %u of %u replications meet them on their own\n",
                fleet, c->e[i].demand, why, c->e[i].eval.reps_meeting, c->e[i].eval.replications);
    }
}

static void print_terms(const sim__size_runner *r, const sim__size_eval *e)
{
    printf("  %-28s %12s %12s %14s\n", "target", "mean", "bound", "limit");
    for (size_t i = 0; i < r->n_terms; i++) {
        const sim__size_term *t = &r->terms[i];
        char m[48], b[48], l[48], lim[60];
        sim__size_term_format(m, sizeof m, t, e->mean[i]);
        sim__size_term_format(b, sizeof b, t, e->bound[i]);
        sim__size_term_format(l, sizeof l, t, t->limit);
        snprintf(lim, sizeof lim, "%s %s",
                 t->le ? (t->strict ? "<" : "<=") : (t->strict ? ">" : ">="), l);
        int ok = isfinite(e->bound[i]) &&
                 (t->le ? (t->strict ? e->bound[i] < t->limit : e->bound[i] <= t->limit)
                        : (t->strict ? e->bound[i] > t->limit : e->bound[i] >= t->limit));
        printf("  %-28s %12s %12s %14s  %s\n", t->text, m, b, lim, ok ? "ok" : "FAILS");
    }
}

/* A fleet as an object of its parent (key NULL in an array): its pools,
 * whether it meets the targets, its cost and each target's figures. */
static void json_fleet(sim__jout *j, sim__jnode *parent, const char *key, const sim__size_runner *r,
                       const sim__size_fleet *x)
{
    const sim_scenario *sc = r->base;
    sim__jnode *o = sim__jout_object(j, parent, key);
    sim__jnode *pa = sim__jout_array(j, o, "pools");
    for (size_t k = 0; k < r->n_vary; k++) {
        const sim_pool_cfg *pc = &sc->pools[r->vary[k]];
        sim__jnode *po = sim__jout_object(j, pa, NULL);
        sim__jout_str(j, po, "name", pc->name);
        sim__jout_str(j, po, "gpu_type", sc->types[pc->type].name);
        sim__jout_uint(j, po, "nodes", x->nodes[k]);
        sim__jout_uint(j, po, "gpus", (uint64_t)x->nodes[k] * pc->gpus_per_node);
    }
    sim__jout_bool(j, o, "meets", x->eval.pass);
    sim__jout_uint(j, o, "replications", x->eval.replications);
    sim__jout_uint(j, o, "replications_meeting", x->eval.reps_meeting);
    sim__jout_num(j, o, "usd_per_month", x->eval.usd_per_month[SIM__SIZE_AS_GIVEN]);
    sim__jout_uint(j, o, "jobs_rejected", x->eval.rejected);
    sim__jnode *ta = sim__jout_array(j, o, "targets");
    for (size_t i = 0; i < r->n_terms; i++) {
        sim__jnode *to = sim__jout_object(j, ta, NULL);
        sim__jout_str(j, to, "target", r->terms[i].text);
        sim__jout_num(j, to, "mean", x->eval.mean[i]);
        sim__jout_num(j, to, "bound", x->eval.bound[i]);
        sim__jout_num(j, to, "limit", r->terms[i].limit);
    }
}

static void json_list(sim__jout *j, sim__jnode *root, const char *key, const sim__size_runner *r,
                      const sim__size_fleet *x, size_t n)
{
    sim__jnode *a = sim__jout_array(j, root, key);
    for (size_t i = 0; i < n; i++)
        json_fleet(j, a, NULL, r, &x[i]);
}

static int split_pools(const sim_scenario *sc, const char *list, sim__size_runner *r)
{
    return sim__cli_pools("size", sc, list, r->vary, &r->n_vary, SIM__SIZE_MAX_VARY);
}

enum {
    O_TARGET = 256,
    O_POOLS,
    O_REPLICATIONS,
    O_CONFIDENCE,
    O_WARMUP,
    O_MIN_NODES,
    O_MAX_NODES,
    O_GROWTH,
    O_GROWTH_MONTHS,
    O_NO_EARLY,
    O_SCREEN,
    O_NO_SCREEN,
};

static const sim__cli_opt size_opts[] = {
    {"target", O_TARGET, 1, "targets, e.g. 'wait_p95<=10m'"},
    {"pools", O_POOLS, 1, "pool names"},
    {"replications", O_REPLICATIONS, 1, "an integer in [1, 100000]"},
    {"confidence", O_CONFIDENCE, 1, "a number in [0.5, 1)"},
    {"warmup", O_WARMUP, 1, "a duration (\"1d\", \"6h\", seconds)"},
    {"min-nodes", O_MIN_NODES, 1, "an integer in [0, 1000000]"},
    {"max-nodes", O_MAX_NODES, 1, "an integer in [1, 1000000]"},
    {"growth", O_GROWTH, 1, "a monthly rate in (0, 10], e.g. 0.05"},
    {"growth-months", O_GROWTH_MONTHS, 1, "an integer in [1, 1200]"},
    {"no-early-reject", O_NO_EARLY, 0, NULL},
    {"screen", O_SCREEN, 1, "a duration (\"4d\", \"36h\", seconds) > 0"},
    {"no-screen", O_NO_SCREEN, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec size_spec = {
    .cmd = &sim__cmd_size,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_JOBS | SIM__CLI_VERBOSE | SIM__CLI_QUIET |
              SIM__CLI_JSON | SIM__CLI_LIMIT,
    .operand = "scenario",
    .max_operands = 1,
    .opts = size_opts,
};

static int cmd_size(int argc, char **argv)
{
    const char *target = NULL, *pools = NULL;
    uint64_t reps = 5, max_nodes = 1024, months = 36, min_nodes = 0;
    int have_min = 0, no_early = 0;
    double conf = 0.95, growth = 0;
    int64_t warm_us = -1, screen_us = (int64_t)4 * 86400 * SIM_US_PER_S;
    int no_screen = 0;
    sim__cli_args a;
    sim__cli_args_init(&a, &size_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        int bad = 0;
        switch (key) {
        case O_TARGET:
            target = v;
            break;
        case O_POOLS:
            pools = v;
            break;
        case O_REPLICATIONS:
            bad = sim__cli_parse_u64(v, 100000, &reps) || reps < 1;
            break;
        case O_CONFIDENCE:
            bad = parse_double(v, 0.5, 0.999999, &conf);
            break;
        case O_WARMUP:
            bad = sim__cli_parse_duration(v, &warm_us);
            break;
        case O_MIN_NODES:
            bad = sim__cli_parse_u64(v, 1000000, &min_nodes);
            have_min = 1;
            break;
        case O_MAX_NODES:
            bad = sim__cli_parse_u64(v, 1000000, &max_nodes) || max_nodes < 1;
            break;
        case O_GROWTH:
            bad = parse_double(v, 1e-9, 10, &growth);
            break;
        case O_NO_EARLY:
            no_early = 1;
            break;
        case O_SCREEN:
            bad = sim__cli_parse_duration(v, &screen_us) || screen_us <= 0;
            break;
        case O_NO_SCREEN:
            no_screen = 1;
            break;
        case O_GROWTH_MONTHS:
            bad = sim__cli_parse_u64(v, 1200, &months) || months < 1;
            break;
        }
        if (bad)
            return sim__cli_bad_value(&a);
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL;
    uint64_t jobs = a.have_jobs ? a.jobs : 0;
    int quiet = a.quiet, json = a.json, verbose = a.verbose;
    if (!target)
        return sim__cli_usage("size", "--target is required, e.g. --target 'wait_p95<=10m'");
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int admit = sim__cli_open_scenario(&sc, path, &a);
    if (admit)
        return admit;
    int rc = TM_OK;
    sim__size_term terms[SIM__SIZE_MAX_TERMS];
    sim__size_runner run;
    memset(&run, 0, sizeof run);
    size_t nt = 0;
    int code = 0;
    sim__size_cache cache = {0}, scache = {0};
    sim__size_runner scr;
    sim__size_screen_stats sst;
    memset(&scr, 0, sizeof scr);
    memset(&sst, 0, sizeof sst);
    int use_screen = 0;
    sim__size_answer ans;
    sim__size_growth gr;
    memset(&ans, 0, sizeof ans);
    memset(&gr, 0, sizeof gr);
    if ((rc = sim__size_parse_targets(target, &sc, terms, SIM__SIZE_MAX_TERMS, &nt, &d))) {
        code = sim__cli_error(rc, &d);
        goto out;
    }
    if ((code = split_pools(&sc, pools, &run)))
        goto out;
    if (warm_us < 0)
        warm_us = sc.horizon_us / 10;
    if (warm_us >= sc.horizon_us) {
        code = sim__cli_usage("size", "--warmup must be shorter than the horizon");
        goto out;
    }
    run.base = &sc;
    run.terms = terms;
    run.n_terms = nt;
    run.replications = (uint32_t)reps;
    run.workers = jobs ? (unsigned)jobs : sim__work_cores();
    run.confidence = conf;
    run.warmup_us = warm_us;
    run.stop_flag = &sim__cli_stop;
    run.no_early = no_early;
    /* a fleet can take minutes to simulate: on a terminal, say so at once
     * and print a line per simulated fleet (as --verbose does) */
    int tty = !quiet && !json && !verbose && sim__cli_stderr_is_tty();
    run.log = verbose || tty ? stderr : NULL;
    if (tty) {
        fprintf(stderr,
                "tarmac size: simulating candidate fleets (%llu replications each, %u workers); "
                "a line per fleet as it finishes\n",
                (unsigned long long)reps, run.workers);
        fflush(stderr);
    }
    sim__cli_install_signals();
    sim__size_search_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_vary = run.n_vary;
    for (size_t k = 0; k < run.n_vary; k++)
        cfg.max[k] = (uint32_t)max_nodes;
    if (have_min && min_nodes > max_nodes) {
        code = sim__cli_usage("size", "--min-nodes %llu is more than --max-nodes %llu",
                              (unsigned long long)min_nodes, (unsigned long long)max_nodes);
        goto out;
    }
    /* the floor: --min-nodes, or the load bound (size_bound.c) */
    uint32_t bound[SIM__SIZE_MAX_VARY];
    double need_gpus = 0;
    sim__size_bound_why bwhy[SIM__SIZE_MAX_VARY];
    sim__size_load_floor_why(&run, cfg.max, 1, bound, bwhy);
    need_gpus = sim__size_need_gpus(&sc, 1);
    for (size_t k = 0; k < run.n_vary; k++)
        cfg.floor[k] = have_min ? (uint32_t)min_nodes : bound[k];
    if ((verbose || tty) && !have_min) {
        char fl[512];
        sim__size_fleet_format(fl, sizeof fl, &run, bound);
        fprintf(stderr,
                "size: the offered load needs %.1f GPUs on average on its fastest types: the "
                "search starts at %s\n",
                need_gpus, fl);
        for (size_t k = 0; k < run.n_vary; k++)
            if (bwhy[k].types && bound[k] > 0) {
                char w[512];
                sim__size_bound_format(w, sizeof w, &sc, &bwhy[k]);
                fprintf(stderr, "  %s: at least %u nodes: %s\n", sc.pools[run.vary[k]].name,
                        bound[k], w);
            }
    }
    cfg.demand = 1;
    cfg.cost_as = SIM__SIZE_AS_GIVEN;
    cfg.eval = sim__size_runner_eval;
    cfg.ud = &run;
    cfg.cache = &cache;
    /* the screen (docs/cost.md, "Screening"): the search runs on it, every
     * answer is confirmed with the full evaluation */
    use_screen = !no_screen && sim__size_screen_runner(&run, screen_us, &scr);
    if (use_screen) {
        cfg.screen = sim__size_runner_eval;
        cfg.screen_ud = &scr;
        cfg.screen_cache = &scache;
        cfg.screen_stats = &sst;
        /* the screen starts where the searched pool alone would give the
         * fleet the GPUs the offered load needs */
        for (size_t k = 0; k < run.n_vary; k++) {
            double g = ceil(need_gpus / sc.pools[run.vary[k]].gpus_per_node);
            cfg.screen_guess[k] = g > cfg.max[k] ? cfg.max[k] : g < 0 ? 0 : (uint32_t)g;
        }
        if (verbose || tty) {
            fprintf(stderr,
                    "size: screening candidates on the first %.3g h after the warm-up with %u "
                    "replications; answers confirmed with the full evaluation\n",
                    (double)screen_us / SIM_US_PER_S / 3600, scr.replications);
            fflush(stderr);
        }
    }
    if ((rc = sim__size_search(&cfg, &ans, &d)) != TM_OK) {
        code = sim__cli_error(rc, &d);
        if (rc == TM_ERR_INTERRUPTED && !quiet)
            print_simulated(&run, &cache);
        goto out;
    }
    if (!ans.found) {
        char fleet[512], why[512];
        sim__size_fleet_format(fleet, sizeof fleet, &run, ans.best.nodes);
        why_text(why, sizeof why, &run, &ans.best.eval);
        tm_diag_set(&d, TM_ERR_LIMIT, "--target",
                    "no fleet of at most %llu nodes per pool meets the targets: the largest "
                    "(%s) %s",
                    (unsigned long long)max_nodes, fleet, why);
        code = sim__cli_error(TM_ERR_LIMIT, &d);
        goto out;
    }
    uint32_t current[SIM__SIZE_MAX_VARY];
    for (size_t k = 0; k < run.n_vary; k++) {
        current[k] = sc.pools[run.vary[k]].nodes;
        if (current[k] > cfg.max[k])
            cfg.max[k] = current[k];
    }
    if (growth > 0 &&
        (rc = sim__size_growth_run(&cfg, current, growth, (uint32_t)months, &gr, &d)) != TM_OK) {
        code = sim__cli_error(rc, &d);
        goto out;
    }
    if (a.output && (rc = sim__size_write(a.output, &sc, &run, &cache, &ans,
                                          growth > 0 ? &gr : NULL, growth, &sim__cli_stop, &d))) {
        code = sim__cli_error(rc, &d);
        goto out;
    }
    char buf[512], usd[48];
    if (json) {
        sim__jnode *root;
        sim__jout *j = sim__jout_new(&root);
        sim__jout_str(j, root, "command", "size");
        sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
        sim__jout_str(j, root, "scenario", sc.name);
        sim__jout_str(j, root, "targets", target);
        sim__jout_uint(j, root, "replications", reps);
        sim__jout_num(j, root, "confidence", conf);
        sim__jout_num(j, root, "warmup_s", (double)warm_us / SIM_US_PER_S);
        sim__jout_num(j, root, "load_need_gpus", need_gpus);
        sim__jnode *fa = sim__jout_array(j, root, "search_from_nodes");
        for (size_t k = 0; k < run.n_vary; k++)
            sim__jout_uint(j, fa, NULL, cfg.floor[k]);
        sim__jout_uint(j, root, "fleets_simulated", cache.n);
        sim__jout_uint(j, root, "runs", run.runs);
        if (use_screen) {
            sim__jnode *so = sim__jout_object(j, root, "screen");
            sim__jout_num(j, so, "after_warmup_s", (double)screen_us / SIM_US_PER_S);
            sim__jout_uint(j, so, "replications", scr.replications);
            sim__jout_uint(j, so, "fleets_screened", scache.n);
            sim__jout_uint(j, so, "runs", scr.runs);
            sim__jout_uint(j, so, "searches", sst.searches);
            sim__jout_uint(j, so, "confirmed", sst.agreed);
            sim__jout_uint(j, so, "corrected", sst.corrected);
        }
        json_fleet(j, root, "chosen", &run, &ans.best);
        json_list(j, root, "neighbours", &run, ans.neighbours, ans.n_neighbours);
        json_list(j, root, "frontier", &run, ans.frontier, ans.n_frontier);
        if (growth > 0) {
            sim__jnode *go = sim__jout_object(j, root, "growth");
            sim__jout_num(j, go, "rate_per_month", growth);
            sim__jout_bool(j, go, "fails", gr.fails);
            sim__jout_uint(j, go, "month", gr.month);
            sim__jout_num(j, go, "demand", gr.demand);
            if (gr.fails && gr.add.found) {
                json_fleet(j, go, "then", &run, &gr.add.best);
                sim__jnode *ao = sim__jout_object(j, go, "add_nodes");
                for (size_t k = 0; k < run.n_vary; k++)
                    sim__jout_uint(j, ao, sc.pools[run.vary[k]].name,
                                   gr.add.best.nodes[k] - current[k]);
            }
        }
        if ((rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, &d)) != TM_OK)
            code = sim__cli_error(rc, &d);
        sim__jout_free(j);
    } else if (!quiet) {
        printf("tarmac %s: sizing scenario \"%s\" (%s)\n", TARMAC_VERSION, sc.name, sc.source);
        printf(
            "targets: %s; %llu replications per fleet, one-sided %.0f %% bounds, warm-up %.3g h\n",
            target, (unsigned long long)reps, 100 * conf, (double)warm_us / SIM_US_PER_S / 3600);
        printf("simulated %zu fleets (%llu runs, %llu events)\n", cache.n,
               (unsigned long long)run.runs, (unsigned long long)run.events);
        if (use_screen)
            print_screen(&run, &scr, &scache, &sst, screen_us);
        printf("\n");
        sim__size_fleet_format(buf, sizeof buf, &run, ans.best.nodes);
        sim__cost_fmt_usd(usd, sizeof usd, ans.best.eval.usd_per_month[SIM__SIZE_AS_GIVEN]);
        printf("smallest fleet: %s (%u of %u replications meet the targets on their own)\n", buf,
               ans.best.eval.reps_meeting, ans.best.eval.replications);
        gpus_per_type(buf, sizeof buf, &run, ans.best.nodes);
        printf("  GPUs: %s; cost %s per month (fleet and API, as the scenario owns its pools)\n",
               buf, usd);
        print_terms(&run, &ans.best.eval);
        if (ans.n_neighbours) {
            printf("neighbours:\n");
            for (size_t i = 0; i < ans.n_neighbours; i++)
                print_fleet_line(&run, &ans.neighbours[i], "");
        }
        if (run.n_vary > 1) {
            printf("frontier (mixes that meet the targets, none with a node to spare):\n");
            for (size_t i = 0; i < ans.n_frontier; i++)
                print_fleet_line(&run, &ans.frontier[i], "");
        }
        if (growth > 0) {
            uint32_t now[SIM__SIZE_MAX_VARY];
            memcpy(now, current, sizeof now);
            sim__size_fleet_format(buf, sizeof buf, &run, now);
            printf("\ngrowth %.3g %% per month, from the scenario's fleet (%s):\n", 100 * growth,
                   buf);
            if (!gr.fails) {
                printf("  it meets the targets for the %llu months looked at (demand x%.3g)\n",
                       (unsigned long long)months, gr.demand);
            } else {
                char why[512];
                why_text(why, sizeof why, &run, &gr.current_eval);
                if (gr.month == 0)
                    printf("  it does not meet the targets now: %s\n", why);
                else
                    printf("  it stops meeting the targets in month %u (demand x%.3g): %s\n",
                           gr.month, gr.demand, why);
                if (gr.add.found) {
                    char add[512];
                    size_t len = 0;
                    add[0] = '\0';
                    for (size_t k = 0; k < run.n_vary; k++)
                        len += (size_t)snprintf(add + len, sizeof add - len, "%s%s +%u nodes",
                                                k ? ", " : "", sc.pools[run.vary[k]].name,
                                                gr.add.best.nodes[k] - current[k]);
                    sim__cost_fmt_usd(usd, sizeof usd,
                                      gr.add.best.eval.usd_per_month[SIM__SIZE_AS_GIVEN]);
                    printf("  then add %s: %s per month\n", add, usd);
                } else {
                    printf("  and no fleet of at most %llu nodes per pool meets them then\n",
                           (unsigned long long)max_nodes);
                }
            }
        }
    }
out:
    sim__size_growth_fini(&gr);
    sim__size_answer_fini(&ans);
    sim__size_cache_fini(&cache);
    sim__size_cache_fini(&scache);
    sim_scenario_fini(&sc);
    return code;
}

const sim__cli_command sim__cmd_size = {
    "size", cmd_size, "the smallest fleet that meets targets, found by simulation", size_help, NULL,
};
