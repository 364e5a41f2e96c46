/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_breakeven.c — `tarmac breakeven`: the monthly cost of the API, of
 * renting and of owning a fleet sized by simulation, across token volumes;
 * where each beats the API; months to pay back; cost against utilization
 * (breakeven.c does the work; this file parses, prints and writes).
 */
#include "studies/breakeven_int.h"
#include "studies/fleetbe_int.h"
#include "studies/work_int.h"
#include "cli/cli_int.h"
#include "config/json_out.h"
#include "output/report_int.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char breakeven_help[] =
    "Usage: tarmac breakeven [SCENARIO] [--volumes LO:HI[:N]] [--pools A,B,...]\n"
    "                        [--replications R] [--confidence C] [--refine K]\n"
    "                        [--max-nodes N] [--seed N] [-o FILE]\n"
    "                        [-j N] [--verbose] [--quiet] [--json] [--limit NAME=VALUE]...\n"
    "\n"
    "For the scenario's services (their load scaled to each monthly token volume,\n"
    "mix and daily profile kept; batch classes are left out), the monthly cost of\n"
    "(a) the API, (b) renting and (c) owning the cheapest fleet that meets every\n"
    "service's SLO, sized by simulation as `tarmac size` does; the volume where\n"
    "each option starts to beat the API (narrowed by K bisection steps); months to\n"
    "pay the owned fleet back; and its cost per useful GPU-hour against\n"
    "utilization. Writes the curves to FILE (layout: docs/output.md, \"Breakeven\n"
    "files\"); `tarmac plot FILE` draws them.\n"
    "\n"
    "  --volumes LO:HI[:N]  N log-spaced monthly token volumes (input + output) from\n"
    "                       LO to HI; suffixes k, M, B (or G), T (default: the\n"
    "                       scenario's own volume / 100 .. x 10, 7 points)\n"
    "  --pools A,B,...      the pools to size (default all, at most 4)\n"
    "  --replications R     runs per candidate fleet, >= 1 (default 3)\n"
    "  --confidence C       confidence of the one-sided bounds (default 0.95)\n"
    "  --refine K           bisection steps per crossing (default 6)\n"
    "  --max-nodes N        at most N nodes per pool (default 1024)\n"
    "  --seed N             override the scenario's seed\n"
    "  -j, --jobs N         run each candidate's replications on N worker processes\n"
    "                       (default: the online cores); the answer is the same for any N\n"
    "  -o, --output FILE    HDF5 output (default tarmac-breakeven.h5)\n"
    "  -v, --verbose        one line per simulated fleet on stderr\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --json               print a JSON summary on stdout instead of the text\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; repeatable)\n"
    "\n"
    "Whole fleet (--fleet): for the whole scenario, jobs and services, at each load\n"
    "scale the smallest multiple of its fleet (every pool's nodes x k/8) that meets\n"
    "the targets, sized by simulation, costed owned, rented reserved and rented on\n"
    "demand, against the API for the services plus an owned fleet for the jobs\n"
    "alone; the crossovers in words and where one option wins throughout, by how\n"
    "much at each end (docs/cost.md, \"Whole-fleet breakeven\").\n"
    "  --fleet              compare the whole fleet across load scales\n"
    "  --scale LO:HI[:N]    N log-spaced load scales (default 0.25:4:5)\n"
    "  --target SPEC        job targets as for `tarmac size` (each service's SLO is\n"
    "                       always one); required when the scenario has job classes\n"
    "  --no-early-reject    run every replication of every fleet whole\n";

static int parse_volume(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (end == buf || errno || !isfinite(x) || !(x > 0))
        return -1;
    static const struct {
        const char *s;
        double m;
    } suffix[] = {{"", 1}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++)
        if (strcmp(end, suffix[i].s) == 0) {
            *out = x * suffix[i].m;
            return 0;
        }
    return -1;
}

static int parse_volumes(const char *s, double *lo, double *hi, uint64_t *n)
{
    const char *c1 = strchr(s, ':');
    if (!c1 || parse_volume(s, (size_t)(c1 - s), lo))
        return -1;
    const char *c2 = strchr(c1 + 1, ':');
    if (parse_volume(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), hi))
        return -1;
    if (c2 && (sim__cli_parse_u64(c2 + 1, 1000, n) || *n < 2))
        return -1;
    return *hi > *lo ? 0 : -1;
}

static void fmt_tokens(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else if (v >= 1e12)
        snprintf(buf, n, "%.3g T", v / 1e12);
    else if (v >= 1e9)
        snprintf(buf, n, "%.3g B", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%.3g M", v / 1e6);
    else
        snprintf(buf, n, "%.3g k", v / 1e3);
}

static void fmt_months(char *buf, size_t n, double m)
{
    if (isfinite(m))
        snprintf(buf, n, "%.1f mo", m);
    else
        snprintf(buf, n, "never");
}

static void print_text(const sim_scenario *sc, const sim__be_cfg *cfg, const sim__be_result *res,
                       const char *out)
{
    const sim__size_runner *r = cfg->runner;
    char a[48], b[48], c[48], d[48], e[48], f[48];
    fmt_tokens(a, sizeof a, res->v0_tokens_per_month);
    printf("tarmac %s: breakeven of scenario \"%s\" (%s)\n", TARMAC_VERSION, sc->name, sc->source);
    printf("%zu service%s demanding %s tokens/month; API %.3g $ per million tokens (blended)\n",
           sc->n_services, sc->n_services == 1 ? "" : "s", a, res->api_usd_per_mtok);
    printf("fleets sized for every service's SLO, %u replications each; %zu fleets simulated\n\n",
           r->replications, res->fleets_simulated);
    printf("%14s %12s %12s %12s %12s %7s %10s %7s\n", "tokens/month", "API", "own", "rent",
           "on-demand", "GPUs", "payback", "busy");
    for (size_t i = 0; i < res->n_points; i++) {
        const sim__be_point *p = &res->pts[i];
        fmt_tokens(a, sizeof a, p->tokens_per_month);
        sim__cost_fmt_usd(b, sizeof b, p->api_usd);
        sim__cost_fmt_usd(c, sizeof c, p->usd[SIM__BE_OWN]);
        sim__cost_fmt_usd(d, sizeof d, p->usd[SIM__BE_RENT]);
        sim__cost_fmt_usd(e, sizeof e, p->usd[SIM__BE_ONDEMAND]);
        fmt_months(f, sizeof f, p->payback_months);
        printf("%14s %12s %12s %12s %12s %7.0f %10s %6.1f%%\n", a, b, c, d, e, p->gpus, f,
               100 * p->busy_util);
    }
    printf("(costs per month; payback of the owned fleet against the API)\n\n");
    static const char *const what[SIM__BE_N_OPTIONS] = {"owning", "renting reserved",
                                                        "renting on demand"};
    for (int o = 0; o < SIM__BE_N_OPTIONS; o++) {
        fmt_tokens(a, sizeof a, res->beats_tokens_per_month[o]);
        /* the end of the range that says by how much: the lowest volume when
         * the option wins throughout, the highest when it never does */
        const sim__be_point *end = res->n_points == 0        ? NULL
                                   : res->beats_at_bottom[o] ? &res->pts[0]
                                                             : &res->pts[res->n_points - 1];
        char by[256] = "";
        if (end && isfinite(end->usd[o]) && end->api_usd > 0) {
            fmt_tokens(b, sizeof b, end->tokens_per_month);
            sim__cost_fmt_usd(c, sizeof c, end->usd[o]);
            sim__cost_fmt_usd(d, sizeof d, end->api_usd);
            snprintf(by, sizeof by, "; at %s tokens/month it costs %s a month against the API's %s",
                     b, c, d);
        }
        if (res->beats_at_bottom[o])
            printf("%s beats the API already at the lowest volume (%s tokens/month)%s\n", what[o],
                   a, by);
        else if (isfinite(res->beats_tokens_per_month[o]))
            printf("%s beats the API from %s tokens/month\n", what[o], a);
        else
            printf("%s does not beat the API in this range%s\n", what[o], by);
    }
    fmt_months(a, sizeof a, res->ref.payback_months);
    fmt_months(b, sizeof b, res->ref.payback_vs_rent_months);
    printf("at the scenario's volume: the owned fleet (%.0f GPUs) pays back in %s against the "
           "API, %s against renting\n",
           res->ref.gpus, a, b);
    printf("as a function of busy utilization (that fleet): owning beats the API above ");
    if (isfinite(res->util_beats[0]))
        printf("%.1f %%", 100 * res->util_beats[0]);
    else
        printf("no utilization");
    printf(", renting above ");
    if (isfinite(res->util_beats[1]))
        printf("%.1f %%\n", 100 * res->util_beats[1]);
    else
        printf("no utilization\n");
    if (out)
        printf("\nwrote %s\n", out);
}

/* --json (docs/cli.md). */
static int print_json(const sim_scenario *sc, const sim__be_result *res, const char *out,
                      tm_diag *d)
{
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jout_str(j, root, "command", "breakeven");
    sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
    sim__jout_str(j, root, "scenario", sc->name);
    sim__jout_str(j, root, "output", out);
    const struct {
        const char *k;
        double v;
    } s[] = {
        {"tokens_per_month_scenario", res->v0_tokens_per_month},
        {"api_usd_per_mtok", res->api_usd_per_mtok},
        {"own_beats_api_tokens_per_month", res->beats_tokens_per_month[SIM__BE_OWN]},
        {"rent_beats_api_tokens_per_month", res->beats_tokens_per_month[SIM__BE_RENT]},
        {"ondemand_beats_api_tokens_per_month", res->beats_tokens_per_month[SIM__BE_ONDEMAND]},
        {"payback_months", res->ref.payback_months},
        {"payback_vs_rent_months", res->ref.payback_vs_rent_months},
        {"own_beats_api_utilization", res->util_beats[0]},
        {"rent_beats_api_utilization", res->util_beats[1]},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        sim__jout_num(j, root, s[i].k, s[i].v);
    sim__jnode *va = sim__jout_array(j, root, "volumes");
    for (size_t i = 0; i < res->n_points; i++) {
        const sim__be_point *p = &res->pts[i];
        const struct {
            const char *k;
            double v;
        } c[] = {{"tokens_per_month", p->tokens_per_month},
                 {"api_usd_per_month", p->api_usd},
                 {"own_usd_per_month", p->usd[SIM__BE_OWN]},
                 {"rent_usd_per_month", p->usd[SIM__BE_RENT]},
                 {"ondemand_usd_per_month", p->usd[SIM__BE_ONDEMAND]},
                 {"gpus", p->gpus},
                 {"payback_months", p->payback_months},
                 {"busy_util", p->busy_util}};
        sim__jnode *o = sim__jout_object(j, va, NULL);
        for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
            sim__jout_num(j, o, c[k].k, c[k].v);
    }
    int rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, d);
    sim__jout_free(j);
    return rc;
}

enum {
    O_VOLUMES = 256,
    O_POOLS,
    O_REPLICATIONS,
    O_CONFIDENCE,
    O_REFINE,
    O_MAX_NODES,
    O_FLEET,
    O_SCALE,
    O_TARGET,
    O_NO_EARLY
};

static const sim__cli_opt breakeven_opts[] = {
    {"volumes", O_VOLUMES, 1, "LO:HI[:N], 0 < LO < HI, N in [2, 1000] (e.g. 1M:100B:9)"},
    {"pools", O_POOLS, 1, "pool names"},
    {"replications", O_REPLICATIONS, 1, "an integer in [1, 100000]"},
    {"confidence", O_CONFIDENCE, 1, "a number in [0.5, 1)"},
    {"refine", O_REFINE, 1, "an integer in [0, 60]"},
    {"max-nodes", O_MAX_NODES, 1, "an integer in [1, 1000000]"},
    {"fleet", O_FLEET, 0, NULL},
    {"scale", O_SCALE, 1, "LO:HI[:N], 0 < LO < HI <= 1000, N in [2, 100] (e.g. 0.25:4:5)"},
    {"target", O_TARGET, 1, "targets, e.g. 'wait_p95<=1h'"},
    {"no-early-reject", O_NO_EARLY, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec breakeven_spec = {
    .cmd = &sim__cmd_breakeven,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_JOBS | SIM__CLI_VERBOSE | SIM__CLI_QUIET |
              SIM__CLI_JSON | SIM__CLI_LIMIT,
    .no_stdout = "an HDF5 file",
    .operand = "scenario",
    .max_operands = 1,
    .opts = breakeven_opts,
};

static int parse_scale(const char *s, double *lo, double *hi, uint64_t *n)
{
    char *end;
    errno = 0;
    double a = strtod(s, &end);
    if (end == s || *end != ':' || errno)
        return -1;
    const char *p = end + 1;
    double b = strtod(p, &end);
    if (end == p || errno || (*end && *end != ':'))
        return -1;
    if (*end == ':' && (sim__cli_parse_u64(end + 1, 100, n) || *n < 2))
        return -1;
    if (!(a > 0) || !(b > a) || !(b <= 1000))
        return -1;
    *lo = a;
    *hi = b;
    return 0;
}

static void fleet_text(const sim__fbe_cfg *cfg, const sim__fbe_result *res, const char *out)
{
    const sim_scenario *sc = cfg->sc;
    printf("tarmac %s: whole-fleet breakeven of scenario \"%s\" (%s)\n", TARMAC_VERSION, sc->name,
           sc->source);
    printf("the fleet meeting the targets at each load scale, a multiple of the scenario's "
           "(%zu fleets simulated, %llu runs)\n\n",
           res->fleets_simulated, (unsigned long long)res->runs);
    printf("  %7s %7s %7s  %14s %14s %14s %14s\n", "scale", "fleet", "GPUs", "own", "reserved",
           "on-demand", "api+jobs");
    for (size_t i = 0; i < res->n; i++) {
        const sim__fbe_point *p = &res->pts[i];
        char u[SIM__FBE_N][48], f[32];
        for (int o = 0; o < SIM__FBE_N; o++) {
            if (isfinite(p->usd[o]))
                sim__cost_fmt_usd(u[o], sizeof u[o], p->usd[o]);
            else
                snprintf(u[o], sizeof u[o], "n/a");
        }
        if (p->found)
            snprintf(f, sizeof f, "x%.3g", p->factor);
        else
            snprintf(f, sizeof f, "none");
        printf("  x%-6.3g %7s %7.0f  %14s %14s %14s %14s\n", p->scale, f, p->gpus, u[0], u[1], u[2],
               u[3]);
    }
    char sum[4096];
    sim__fbe_summary(sum, sizeof sum, res);
    printf("\n%s", sum);
    printf("(per month; api+jobs: the services' tokens at their API prices plus an owned fleet "
           "for the jobs alone)\nwrote %s\n",
           out);
}

static int fleet_breakeven(const sim__cli_args *a, const char *target, double lo, double hi,
                           size_t npts, uint32_t reps, double conf, int no_early)
{
    const char *path = a->n_operands ? a->operands[0] : NULL;
    const char *out = a->output ? a->output : "tarmac-fleet-breakeven.h5";
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int code = sim__cli_open_scenario(&sc, path, a);
    if (code)
        return code;
    int rc = TM_OK;
    char why[200];
    snprintf(why, sizeof why, "at --scale %.3g, the highest load scale", hi);
    sim__size_term terms[SIM__SIZE_MAX_TERMS];
    size_t nt = 0, ns = 0;
    sim__fbe_result res;
    memset(&res, 0, sizeof res);
    if ((code = sim__cli_admit_scaled(&sc, a, hi, why)))
        goto done;
    if (sc.n_classes > 0 && !target) {
        code = sim__cli_usage("breakeven",
                              "--fleet: the scenario has job classes: give their targets with "
                              "--target, e.g. --target 'wait_p95<=1h'");
        goto done;
    }
    if (target &&
        (rc = sim__size_parse_targets(target, &sc, terms, SIM__SIZE_MAX_TERMS, &nt, &d))) {
        code = sim__cli_error(rc, &d);
        goto done;
    }
    if (sc.n_services > 0) {
        if (nt + sc.n_services > SIM__SIZE_MAX_TERMS) {
            code = sim__cli_usage("breakeven", "--fleet: more than %d targets and services",
                                  SIM__SIZE_MAX_TERMS);
            goto done;
        }
        if ((rc = sim__be_terms(&sc, terms + nt, &ns, &d))) {
            code = sim__cli_error(rc, &d);
            goto done;
        }
        nt += ns;
    }
    if (nt == 0) {
        code = sim__cli_usage("breakeven", "--fleet: nothing to meet (no targets, no services)");
        goto done;
    }
    sim__fbe_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sc = &sc;
    cfg.terms = terms;
    cfg.n_terms = nt;
    cfg.scale_lo = lo;
    cfg.scale_hi = hi;
    cfg.n_points = npts;
    cfg.steps = 8;
    cfg.replications = reps;
    cfg.confidence = conf;
    cfg.warmup_us = -1;
    cfg.workers = a->have_jobs ? (unsigned)a->jobs : sim__work_cores();
    cfg.no_early = no_early;
    cfg.stop = &sim__cli_stop;
    cfg.log = a->verbose ? stderr : NULL;
    sim__cli_install_signals();
    if ((rc = sim__fbe_run(&cfg, &res, &d)) != TM_OK ||
        (rc = sim__fbe_write(out, &cfg, &res, &d)) != TM_OK) {
        code = sim__cli_error(rc, &d);
        goto done;
    }
    if (a->json) {
        sim__jnode *root;
        sim__jout *j = sim__jout_new(&root);
        sim__jout_str(j, root, "command", "breakeven --fleet");
        sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
        sim__jout_str(j, root, "scenario", sc.name);
        sim__jout_str(j, root, "output", out);
        sim__jnode *pa = sim__jout_array(j, root, "scales");
        for (size_t i = 0; i < res.n; i++) {
            const sim__fbe_point *p = &res.pts[i];
            sim__jnode *o = sim__jout_object(j, pa, NULL);
            sim__jout_num(j, o, "scale", p->scale);
            sim__jout_num(j, o, "fleet_factor", p->found ? p->factor : NAN);
            sim__jout_num(j, o, "gpus", p->gpus);
            for (int k = 0; k < SIM__FBE_N; k++) {
                char key[48];
                snprintf(key, sizeof key, "%s_usd_per_month", sim__fbe_option_name(k));
                for (char *c = key; *c; c++)
                    if (*c == '-')
                        *c = '_';
                sim__jout_num(j, o, key, p->usd[k]);
            }
        }
        sim__jnode *ca = sim__jout_array(j, root, "crossovers");
        for (size_t i = 0; i < res.n_cross; i++) {
            sim__jnode *o = sim__jout_object(j, ca, NULL);
            const sim__fbe_cross *c = &res.cross[i];
            sim__jout_str(j, o, "cheaper_above",
                          sim__fbe_option_name(c->a_cheaper_above ? c->a : c->b));
            sim__jout_str(j, o, "cheaper_below",
                          sim__fbe_option_name(c->a_cheaper_above ? c->b : c->a));
            sim__jout_num(j, o, "scale", c->scale);
        }
        char sum[4096];
        sim__fbe_summary(sum, sizeof sum, &res);
        sim__jout_str(j, root, "summary", sum);
        if ((rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, &d)) != TM_OK)
            code = sim__cli_error(rc, &d);
        sim__jout_free(j);
    } else if (!a->quiet) {
        fleet_text(&cfg, &res, out);
    }
done:
    sim__fbe_result_fini(&res);
    sim_scenario_fini(&sc);
    return code;
}

static int cmd_breakeven(int argc, char **argv)
{
    const char *pools = NULL, *target = NULL;
    int have_volumes = 0;
    uint64_t reps = 3, refine = 6, max_nodes = 1024, npts = 7, snpts = 5;
    double conf = 0.95, lo = 0, hi = 0, slo = 0.25, shi = 4;
    int fleet = 0, have_scale = 0, no_early = 0;
    sim__cli_args a;
    sim__cli_args_init(&a, &breakeven_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        int bad = 0;
        char *end;
        switch (key) {
        case O_VOLUMES:
            bad = parse_volumes(v, &lo, &hi, &npts);
            have_volumes = 1;
            break;
        case O_POOLS:
            pools = v;
            break;
        case O_REPLICATIONS:
            bad = sim__cli_parse_u64(v, 100000, &reps) || reps < 1;
            break;
        case O_CONFIDENCE:
            conf = strtod(v, &end);
            bad = end == v || *end || !(conf >= 0.5 && conf < 1);
            break;
        case O_REFINE:
            bad = sim__cli_parse_u64(v, 60, &refine);
            break;
        case O_MAX_NODES:
            bad = sim__cli_parse_u64(v, 1000000, &max_nodes) || max_nodes < 1;
            break;
        case O_FLEET:
            fleet = 1;
            break;
        case O_SCALE:
            bad = parse_scale(v, &slo, &shi, &snpts);
            have_scale = 1;
            break;
        case O_TARGET:
            target = v;
            break;
        case O_NO_EARLY:
            no_early = 1;
            break;
        }
        if (bad)
            return sim__cli_bad_value(&a);
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    if (!fleet && (have_scale || target))
        return sim__cli_usage("breakeven", "--scale and --target go with --fleet");
    /* the whole fleet is scaled, every pool together, over load scales */
    if (fleet && (pools || have_volumes))
        return sim__cli_usage("breakeven",
                              "--pools and --volumes do not go with --fleet (it scales "
                              "every pool, over --scale)");
    if (fleet)
        return fleet_breakeven(&a, target, slo, shi, (size_t)snpts, (uint32_t)reps, conf, no_early);
    const char *path = a.n_operands ? a.operands[0] : NULL;
    const char *out = a.output ? a.output : "tarmac-breakeven.h5";
    uint64_t jobs = a.have_jobs ? a.jobs : 0;
    int quiet = a.quiet, json = a.json, verbose = a.verbose;
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int admit = sim__cli_open_scenario(&sc, path, &a);
    if (admit)
        return admit;
    int rc = TM_OK;
    int code = 0;
    sim__size_term terms[SIM__SIZE_MAX_TERMS];
    size_t nt = 0;
    sim__be_result res;
    memset(&res, 0, sizeof res);
    sim_scenario base = sc; /* shallow: the services alone; batch classes are left out */
    base.n_classes = 0;
    /* the highest volume scales the services' load by HI / V0 (V0 the
     * scenario's own volume, the fluid model's expected demand): held to the
     * limits before anything runs, as the scenario itself is */
    double v0 = sim__cli_tokens_per_month(&base);
    if (v0 > 0 && isfinite(v0)) {
        double top = hi > 0 ? hi : 10 * v0;
        char why[200];
        snprintf(why, sizeof why,
                 "at %s %.3g tokens a month, %.3g times the scenario's own volume (%.3g)",
                 hi > 0 ? "--volumes" : "the default highest volume,", top, top / v0, v0);
        if ((code = sim__cli_admit_scaled(&base, &a, top / v0, why)))
            goto done;
    }
    sim__size_runner run;
    memset(&run, 0, sizeof run);
    if ((rc = sim__be_terms(&sc, terms, &nt, &d)) != TM_OK) {
        code = sim__cli_error(rc, &d);
        goto done;
    }
    if ((code = sim__cli_pools("breakeven", &sc, pools, run.vary, &run.n_vary, SIM__SIZE_MAX_VARY)))
        goto done;
    run.base = &base;
    run.terms = terms;
    run.n_terms = nt;
    run.replications = (uint32_t)reps;
    run.workers = jobs ? (unsigned)jobs : sim__work_cores();
    run.confidence = conf;
    run.services_elastic = 1;
    run.stop_flag = &sim__cli_stop;
    run.log = verbose ? stderr : NULL;
    sim__cli_install_signals();
    sim__be_cfg cfg = {(size_t)npts, lo, hi, (uint32_t)refine, (uint32_t)max_nodes, &run};
    if ((rc = sim__be_run(&cfg, &res, &d)) != TM_OK ||
        (rc = sim__be_write(out, &base, &cfg, &res, &d)) != TM_OK) {
        code = sim__cli_error(rc, &d);
        goto done;
    }
    if (json) {
        if ((rc = print_json(&sc, &res, out, &d)) != TM_OK)
            code = sim__cli_error(rc, &d);
    } else if (!quiet)
        print_text(&sc, &cfg, &res, out);
done:
    sim__be_result_fini(&res);
    sim_scenario_fini(&sc);
    return code;
}

const sim__cli_command sim__cmd_breakeven = {
    "breakeven",
    cmd_breakeven,
    "API versus renting versus owning a fleet sized by simulation, across token volumes",
    breakeven_help,
    NULL,
};
