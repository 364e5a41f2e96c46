/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_plan.c — `tarmac plan`: a purchase schedule over periods of growing
 * demand, with lead times and a budget, that meets the targets in every
 * period at the least cost of owning (plan.c searches, plan_write.c writes
 * the file; this file parses, prints and reports; docs/plan.md).
 */
#include "cli/cli_int.h"
#include "config/json_out.h"
#include "model/cost_int.h"
#include "output/report_int.h"
#include "studies/plan_int.h"
#include "studies/work_int.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char plan_help[] =
    "Usage: tarmac plan [SCENARIO] --target SPEC --periods N --growth RATE\n"
    "                   [--period quarter|month] [--pools A,B,...] [--budget USD]\n"
    "                   [--lead-time N|POOL=N,...] [--max-nodes N] [--lookahead H]\n"
    "                   [--exact] [--replications R] [--confidence C] [--warmup DURATION]\n"
    "                   [--screen DURATION] [--no-screen] [--full-rollouts]\n"
    "                   [--confirm-all]\n"
    "                   [--seed N] [-j N] [--verbose] [--quiet] [--json]\n"
    "                   [--limit NAME=VALUE]... [-o FILE]\n"
    "\n"
    "Plan purchases over time: demand grows by RATE per period over N periods;\n"
    "nodes of the candidate pools (all pools by default, at most 4) are ordered,\n"
    "arrive a lead time later and stay. Find the cheapest schedule (the least\n"
    "cost of owning the fleet over the horizon: capex as an annuity plus opex)\n"
    "whose fleet meets the targets in every period, each period's fleet judged\n"
    "by simulating it at that period's demand, as `tarmac size` judges a fleet\n"
    "(R replications, one-sided confidence bounds). The search is greedy period\n"
    "by period with a look-ahead; --exact also enumerates every schedule (small\n"
    "cases) and reports the greedy's gap. Prints the schedule, the fleet and\n"
    "its cost per period owned, rented (reserved, on demand) and the services'\n"
    "tokens at API prices, and how many replications meet the targets.\n"
    "\n"
    "  --target SPEC        the targets, as for `tarmac size` (required), e.g.\n"
    "                       'wait_p95<=10m,slo>=0.99'\n"
    "  --periods N          periods of the horizon, 1 to 240 (required)\n"
    "  --period P           quarter (3 months, default) or month\n"
    "  --growth RATE        demand growth per period, compounding (required):\n"
    "                       0.08 or 8%; above -100 %\n"
    "  --pools A,B,...      the pools to buy (names; default all, at most 4); the\n"
    "                       scenario's nodes are installed in period 1\n"
    "  --budget USD         what the orders of one period may cost (default none)\n"
    "  --lead-time N        periods from order to arrival, for every pool, or\n"
    "                       POOL=N,... per pool (default 16 weeks rounded up to\n"
    "                       periods: 2 quarters, 4 months)\n"
    "  --max-nodes N        at most N nodes per pool (default 1024)\n"
    "  --lookahead H        periods the greedy rolls out to compare mixes (default 2)\n"
    "  --exact              also search every schedule (small cases: the grid up to\n"
    "                       --max-nodes, at most 4000 fleets); the plan is the\n"
    "                       exact one, and the greedy's gap is reported\n"
    "  --replications R     runs per fleet, >= 1 (default 5)\n"
    "  --confidence C       confidence of the one-sided bounds (default 0.95)\n"
    "  --warmup DURATION    jobs arriving earlier are not counted (default a tenth\n"
    "                       of the horizon)\n"
    "  --screen DURATION    screen each period's candidates on the warm-up and the\n"
    "                       first DURATION after it, 2 replications (default 4d); the\n"
    "                       candidates are ranked on the screen and only the chosen\n"
    "                       fleet is confirmed in full (it passes, one node fewer in\n"
    "                       its pool fails; a candidate failing in full gives way to\n"
    "                       the next); roll-outs are bounded and scored on estimates\n"
    "                       (the screen, or a fleet's full evaluation when one was\n"
    "                       made): docs/plan.md, \"Screening\", \"Confirmation\"\n"
    "  --no-screen          evaluate every fleet in full\n"
    "  --full-rollouts      with the screen, confirm the roll-outs' fleets in full too\n"
    "                       (slower; the ranking of a period's mixes is then the\n"
    "                       unscreened greedy's; implies --confirm-all)\n"
    "  --confirm-all        with the screen, confirm every search's answer in full as\n"
    "                       it is reached (every minimal mix of a period), not only\n"
    "                       the chosen fleet (slower)\n"
    "  --seed N             override the scenario's seed\n"
    "  -j, --jobs N         run each fleet's replications on N worker processes\n"
    "                       (default: the online cores); the answer is the same for any N\n"
    "  -v, --verbose        one line per simulated fleet on stderr\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --json               print a JSON summary on stdout instead of the text\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to (docs/cli.md)\n"
    "  -o, --output FILE    also write the plan, its costs and every simulated fleet\n"
    "                       to the HDF5 file FILE (docs/output.md, \"Plan files\")\n";

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

/* "0.08", "8%", "-5%" */
static int parse_rate(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return -1;
    if (strcmp(end, "%") == 0)
        x /= 100;
    else if (*end)
        return -1;
    *out = x;
    return 0;
}

/* "2500000", "2.5M", "800k" */
static int parse_usd(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return -1;
    double mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1e3, end++;
    else if (*end == 'M')
        mult = 1e6, end++;
    else if (*end == 'B' || *end == 'G')
        mult = 1e9, end++;
    if (*end || !(x > 0))
        return -1;
    *out = x * mult;
    return 0;
}

static int pool_index(const sim__size_runner *r, const sim_scenario *sc, const char *name,
                      size_t len)
{
    for (size_t k = 0; k < r->n_vary; k++) {
        const char *n = sc->pools[r->vary[k]].name;
        if (strlen(n) == len && strncmp(n, name, len) == 0)
            return (int)k;
    }
    return -1;
}

static int split_pools(const sim_scenario *sc, const char *list, sim__size_runner *r)
{
    return sim__cli_pools("plan", sc, list, r->vary, &r->n_vary, SIM__SIZE_MAX_VARY);
}

/* --lead-time N or POOL=N,...; lead[] holds the defaults on entry. */
static int parse_lead(const char *s, const sim_scenario *sc, const sim__size_runner *r,
                      uint32_t *lead)
{
    uint64_t n;
    if (!strchr(s, '=')) {
        if (sim__cli_parse_u64(s, SIM__PLAN_MAX_PERIODS, &n))
            return sim__cli_usage("plan",
                                  "--lead-time: expected periods (0 to %d) or POOL=N,..., "
                                  "got '%s'",
                                  SIM__PLAN_MAX_PERIODS, s);
        for (size_t k = 0; k < r->n_vary; k++)
            lead[k] = (uint32_t)n;
        return 0;
    }
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ','), *eq = strchr(p, '=');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!eq || (comma && eq > comma))
            return sim__cli_usage("plan", "--lead-time: expected POOL=N in '%.*s'", (int)len, p);
        int k = pool_index(r, sc, p, (size_t)(eq - p));
        if (k < 0)
            return sim__cli_usage("plan",
                                  "--lead-time: no pool named '%.*s' among the pools planned",
                                  (int)(eq - p), p);
        char num[32];
        size_t nl = (size_t)(p + len - eq - 1);
        if (nl == 0 || nl >= sizeof num)
            return sim__cli_usage("plan", "--lead-time: expected periods after '%.*s='",
                                  (int)(eq - p), p);
        memcpy(num, eq + 1, nl);
        num[nl] = '\0';
        if (sim__cli_parse_u64(num, SIM__PLAN_MAX_PERIODS, &n))
            return sim__cli_usage("plan",
                                  "--lead-time: expected periods (0 to %d) for '%.*s', "
                                  "got '%s'",
                                  SIM__PLAN_MAX_PERIODS, (int)(eq - p), p, num);
        lead[k] = (uint32_t)n;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

static void print_simulated(const sim__size_runner *r, const sim__size_cache *c)
{
    if (!c->n)
        return;
    fprintf(stderr, "fleets simulated before the interruption:\n");
    for (size_t i = 0; i < c->n; i++) {
        char fleet[512];
        sim__size_fleet_format(fleet, sizeof fleet, r, c->e[i].nodes);
        fprintf(stderr, "  %s at demand x%.3g: %s; %u of %u replications meet them on their own\n",
                fleet, c->e[i].demand, c->e[i].eval.pass ? "meets the targets" : "fails",
                c->e[i].eval.reps_meeting, c->e[i].eval.replications);
    }
}

static void usd(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else
        sim__cost_fmt_usd(buf, n, v);
}

static void print_plan(const sim_scenario *sc, const sim__plan_cfg *cfg, const sim__plan *pl,
                       const char *unit, FILE *out)
{
    const sim__size_runner *r = cfg->run;
    size_t nv = r->n_vary;
    fprintf(out, "%-7s %-7s", unit, "demand");
    for (size_t k = 0; k < nv; k++)
        fprintf(out, " %8.8s", sc->pools[r->vary[k]].name);
    fprintf(out, "  %-14s %-14s %10s %10s %10s %10s %10s  %s\n", "arrive", "order", "orders", "own",
            "reserved", "on-demand", "API", "met");
    double tot[5] = {0};
    for (size_t t = 0; t < pl->n_periods; t++) {
        const sim__plan_period *p = &pl->p[t];
        char arr[64] = "", ord[64] = "";
        size_t la = 0, lo = 0;
        for (size_t k = 0; k < nv; k++) {
            la += (size_t)snprintf(arr + la, sizeof arr - la, "%s+%u", k ? "/" : "", p->arrive[k]);
            lo += (size_t)snprintf(ord + lo, sizeof ord - lo, "%s+%u", k ? "/" : "", p->order[k]);
        }
        double m = cfg->months_per_period;
        double v[5] = {p->order_usd, p->own_usd, p->eval.usd_per_month[SIM__SIZE_AS_RESERVED] * m,
                       p->eval.usd_per_month[SIM__SIZE_AS_ONDEMAND] * m,
                       p->eval.api_list_usd_per_month * m};
        char b[5][32];
        for (int i = 0; i < 5; i++) {
            usd(b[i], sizeof b[i], v[i]);
            tot[i] += v[i];
        }
        fprintf(out, "%-7zu x%-6.3g", t + 1, p->demand);
        for (size_t k = 0; k < nv; k++)
            fprintf(out, " %8u", p->nodes[k]);
        fprintf(out, "  %-14s %-14s %10s %10s %10s %10s %10s  %u/%u%s\n", arr, ord, b[0], b[1],
                b[2], b[3], b[4], p->eval.reps_meeting, p->eval.replications,
                p->eval.pass ? "" : " FAILS");
    }
    char b[5][32];
    for (int i = 0; i < 5; i++)
        usd(b[i], sizeof b[i], tot[i]);
    fprintf(out, "%-7s %-7s", "total", "");
    for (size_t k = 0; k < nv; k++)
        fprintf(out, " %8s", "");
    fprintf(out, "  %-14s %-14s %10s %10s %10s %10s %10s\n", "", "", b[0], b[1], b[2], b[3], b[4]);
}

enum {
    O_TARGET = 256,
    O_POOLS,
    O_PERIODS,
    O_PERIOD,
    O_GROWTH,
    O_BUDGET,
    O_LEAD,
    O_MAX_NODES,
    O_LOOKAHEAD,
    O_EXACT,
    O_REPLICATIONS,
    O_CONFIDENCE,
    O_WARMUP,
    O_SCREEN,
    O_NO_SCREEN,
    O_FULL_ROLLOUTS,
    O_CONFIRM_ALL,
};

static const sim__cli_opt plan_opts[] = {
    {"target", O_TARGET, 1, "targets, e.g. 'wait_p95<=10m'"},
    {"pools", O_POOLS, 1, "pool names"},
    {"periods", O_PERIODS, 1, "an integer in [1, 240]"},
    {"period", O_PERIOD, 1, "quarter or month"},
    {"growth", O_GROWTH, 1, "a rate per period above -100 %, e.g. 0.08 or 8%"},
    {"budget", O_BUDGET, 1, "USD per period > 0, e.g. 2500000 or 2.5M"},
    {"lead-time", O_LEAD, 1, "periods, or POOL=N,..."},
    {"max-nodes", O_MAX_NODES, 1, "an integer in [1, 1000000]"},
    {"lookahead", O_LOOKAHEAD, 1, "an integer in [0, 12]"},
    {"exact", O_EXACT, 0, NULL},
    {"replications", O_REPLICATIONS, 1, "an integer in [1, 100000]"},
    {"confidence", O_CONFIDENCE, 1, "a number in [0.5, 1)"},
    {"warmup", O_WARMUP, 1, "a duration (\"1d\", \"6h\", seconds)"},
    {"screen", O_SCREEN, 1, "a duration (\"4d\", \"36h\", seconds) > 0"},
    {"no-screen", O_NO_SCREEN, 0, NULL},
    {"full-rollouts", O_FULL_ROLLOUTS, 0, NULL},
    {"confirm-all", O_CONFIRM_ALL, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec plan_spec = {
    .cmd = &sim__cmd_plan,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_JOBS | SIM__CLI_VERBOSE | SIM__CLI_QUIET |
              SIM__CLI_LIMIT | SIM__CLI_JSON,
    .operand = "scenario",
    .max_operands = 1,
    .opts = plan_opts,
};

/* --json: the plan (pl: the exact one with --exact, greedy the greedy one
 * beside it, else NULL), per period its fleet, arrivals, orders and costs,
 * as the table prints them. */
static int print_json(const sim_scenario *sc, const sim__plan_cfg *cfg, const sim__plan *pl,
                      const sim__plan *greedy, const char *target, tm_diag *d)
{
    const sim__size_runner *r = cfg->run;
    /* the candidates ranked are the greedy's (with --exact, the greedy's
     * beside the exact plan, listed under the exact plan's periods) */
    const sim__plan *cp = greedy ? greedy : pl;
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jout_str(j, root, "command", "plan");
    sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
    sim__jout_str(j, root, "scenario", sc->name);
    sim__jout_str(j, root, "targets", target);
    sim__jout_str(j, root, "search", pl->exact ? "exact" : "greedy");
    sim__jout_str(j, root, "rollout",
                  cfg->lookahead == 0                 ? "none"
                  : cfg->screen && !cfg->rollout_full ? "estimated"
                                                      : "full");
    sim__jout_str(j, root, "confirmation", sim__plan_confirmation(cfg));
    sim__jout_uint(j, root, "periods", cfg->n_periods);
    sim__jout_num(j, root, "months_per_period", cfg->months_per_period);
    sim__jout_num(j, root, "growth_per_period", cfg->growth);
    if (isfinite(cfg->budget_usd))
        sim__jout_num(j, root, "budget_usd_per_period", cfg->budget_usd);
    else
        sim__jout_null(j, root, "budget_usd_per_period");
    sim__jout_uint(j, root, "replications", r->replications);
    sim__jout_uint(j, root, "fleets_simulated", cfg->cache->n);
    sim__jout_uint(j, root, "runs", r->runs);
    sim__jnode *po = sim__jout_array(j, root, "pools");
    for (size_t k = 0; k < r->n_vary; k++) {
        const sim_pool_cfg *pc = &sc->pools[r->vary[k]];
        sim__jnode *o = sim__jout_object(j, po, NULL);
        sim__jout_str(j, o, "name", pc->name);
        sim__jout_str(j, o, "gpu_type", sc->types[pc->type].name);
        sim__jout_uint(j, o, "gpus_per_node", pc->gpus_per_node);
        sim__jout_num(j, o, "node_usd", cfg->node_usd[k]);
        sim__jout_uint(j, o, "lead_periods", cfg->lead[k]);
        sim__jout_uint(j, o, "installed", cfg->installed[k]);
    }
    sim__jnode *pa = sim__jout_array(j, root, "schedule");
    for (size_t t = 0; t < pl->n_periods; t++) {
        const sim__plan_period *p = &pl->p[t];
        sim__jnode *o = sim__jout_object(j, pa, NULL);
        sim__jout_uint(j, o, "period", t + 1);
        sim__jout_num(j, o, "demand", p->demand);
        sim__jnode *n = sim__jout_array(j, o, "nodes"), *ar = sim__jout_array(j, o, "arrive"),
                   * or = sim__jout_array(j, o, "order");
        for (size_t k = 0; k < r->n_vary; k++) {
            sim__jout_uint(j, n, NULL, p->nodes[k]);
            sim__jout_uint(j, ar, NULL, p->arrive[k]);
            sim__jout_uint(j, or, NULL, p->order[k]);
        }
        sim__jout_num(j, o, "order_usd", p->order_usd);
        sim__jout_num(j, o, "own_usd", p->own_usd);
        sim__jout_bool(j, o, "meets", p->eval.pass);
        sim__jout_uint(j, o, "replications", p->eval.replications);
        sim__jout_uint(j, o, "replications_meeting", p->eval.reps_meeting);
        sim__jout_bool(j, o, "searched_again", p->searched_again);
        if (p->fewer_pool >= 0) {
            sim__jnode *fw = sim__jout_object(j, o, "one_fewer");
            sim__jout_str(j, fw, "pool", sc->pools[r->vary[p->fewer_pool]].name);
            sim__jout_uint(j, fw, "replications", p->fewer_runs);
            sim__jout_uint(j, fw, "replications_meeting", p->fewer_meeting);
        } else {
            sim__jout_null(j, o, "one_fewer");
        }
        /* the candidates ranked, with what the screen and the full
         * evaluation said of each (docs/plan.md, "Confirmation") */
        sim__jnode *ca = sim__jout_array(j, o, "candidates");
        for (size_t i = 0; i < cp->n_cand; i++) {
            const sim__plan_cand *c = &cp->cand[i];
            if (c->period != t)
                continue;
            sim__jnode *co = sim__jout_object(j, ca, NULL), *cn = sim__jout_array(j, co, "nodes");
            for (size_t k = 0; k < r->n_vary; k++)
                sim__jout_uint(j, cn, NULL, c->nodes[k]);
            sim__jout_str(j, co, "pool", sc->pools[r->vary[c->pool]].name);
            sim__jout_str(j, co, "origin", c->origin ? "full step" : "search");
            if (c->screen >= 0) {
                sim__jnode *so = sim__jout_object(j, co, "screen");
                sim__jout_bool(j, so, "meets", c->screen);
                sim__jout_uint(j, so, "replications", c->screen_runs);
                sim__jout_uint(j, so, "replications_meeting", c->screen_meeting);
                if (isfinite(c->screen_usd))
                    sim__jout_num(j, so, "own_usd", c->screen_usd);
                else
                    sim__jout_null(j, so, "own_usd");
            } else {
                sim__jout_null(j, co, "screen");
            }
            if (c->full >= 0) {
                sim__jnode *fo = sim__jout_object(j, co, "full");
                sim__jout_bool(j, fo, "meets", c->full);
                sim__jout_uint(j, fo, "replications", c->full_runs);
                sim__jout_uint(j, fo, "replications_meeting", c->full_meeting);
            } else {
                sim__jout_null(j, co, "full");
            }
            if (isfinite(c->usd))
                sim__jout_num(j, co, "own_usd_ranked", c->usd);
            else
                sim__jout_null(j, co, "own_usd_ranked");
            if (isfinite(c->ahead))
                sim__jout_num(j, co, "rollout_usd", c->ahead);
            else
                sim__jout_null(j, co, "rollout_usd");
            sim__jout_bool(j, co, "chosen", c->chosen);
        }
    }
    sim__jout_num(j, root, "own_usd_total", pl->own_usd);
    if (greedy) {
        sim__jout_num(j, root, "greedy_own_usd_total", greedy->own_usd);
        sim__jout_num(j, root, "gap", (greedy->own_usd - pl->own_usd) / pl->own_usd);
    }
    int rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, d);
    sim__jout_free(j);
    return rc;
}

static int cmd_plan(int argc, char **argv)
{
    const char *target = NULL, *pools = NULL, *lead_s = NULL, *period = "quarter";
    uint64_t reps = 5, max_nodes = 1024, periods = 0, lookahead = 2;
    double conf = 0.95, growth = NAN, budget = INFINITY;
    int exact = 0, no_screen = 0, full_rollouts = 0, confirm_all = 0;
    int64_t warm_us = -1, screen_us = (int64_t)4 * 86400 * SIM_US_PER_S;
    sim__cli_args a;
    sim__cli_args_init(&a, &plan_spec, argc, argv);
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
        case O_PERIODS:
            bad = sim__cli_parse_u64(v, SIM__PLAN_MAX_PERIODS, &periods) || periods < 1;
            break;
        case O_PERIOD:
            period = v;
            bad = strcmp(v, "quarter") != 0 && strcmp(v, "month") != 0;
            break;
        case O_GROWTH:
            bad = parse_rate(v, &growth) || !(growth > -1) || growth > 100;
            break;
        case O_BUDGET:
            bad = parse_usd(v, &budget);
            break;
        case O_LEAD:
            lead_s = v;
            break;
        case O_MAX_NODES:
            bad = sim__cli_parse_u64(v, 1000000, &max_nodes) || max_nodes < 1;
            break;
        case O_LOOKAHEAD:
            bad = sim__cli_parse_u64(v, 12, &lookahead);
            break;
        case O_EXACT:
            exact = 1;
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
        case O_SCREEN:
            bad = sim__cli_parse_duration(v, &screen_us) || screen_us <= 0;
            break;
        case O_NO_SCREEN:
            no_screen = 1;
            break;
        case O_FULL_ROLLOUTS:
            full_rollouts = 1;
            break;
        case O_CONFIRM_ALL:
            confirm_all = 1;
            break;
        }
        if (bad)
            return sim__cli_bad_value(&a);
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL;
    int quiet = a.quiet, verbose = a.verbose, json = a.json;
    if (!target)
        return sim__cli_usage("plan", "--target is required, e.g. --target 'wait_p95<=10m'");
    if (!periods)
        return sim__cli_usage("plan", "--periods is required (1 to %d), e.g. --periods 12",
                              SIM__PLAN_MAX_PERIODS);
    if (isnan(growth))
        return sim__cli_usage("plan",
                              "--growth is required: demand growth per period, e.g. 8%% or 0.08");
    double months = strcmp(period, "month") == 0 ? 1 : 3;
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
    sim__plan pl, ex;
    memset(&pl, 0, sizeof pl);
    memset(&ex, 0, sizeof ex);
    sim__plan_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    if ((rc = sim__size_parse_targets(target, &sc, terms, SIM__SIZE_MAX_TERMS, &nt, &d))) {
        code = sim__cli_error(rc, &d);
        goto out;
    }
    if ((code = split_pools(&sc, pools, &run)))
        goto out;
    if (warm_us < 0)
        warm_us = sc.horizon_us / 10;
    if (warm_us >= sc.horizon_us) {
        code = sim__cli_usage("plan", "--warmup must be shorter than the horizon");
        goto out;
    }
    run.base = &sc;
    run.terms = terms;
    run.n_terms = nt;
    run.replications = (uint32_t)reps;
    run.workers = a.have_jobs && a.jobs ? (unsigned)a.jobs : sim__work_cores();
    run.confidence = conf;
    run.warmup_us = warm_us;
    run.stop_flag = &sim__cli_stop;
    run.log = verbose ? stderr : NULL;
    cfg.run = &run;
    cfg.cache = &cache;
    if (!no_screen && sim__size_screen_runner(&run, screen_us, &scr)) {
        cfg.screen = &scr;
        cfg.screen_cache = &scache;
        cfg.screen_stats = &sst;
    }
    cfg.n_periods = (size_t)periods;
    cfg.months_per_period = months;
    cfg.growth = growth;
    cfg.demand0 = 1;
    cfg.budget_usd = budget;
    cfg.lookahead = (uint32_t)lookahead;
    cfg.rollout_full = full_rollouts;
    cfg.confirm_all = confirm_all;
    /* the default lead time: 16 weeks (cost-figures.md, "uncertain") in whole
     * periods, rounded up: an order arrives within a period, and serves from
     * the next one */
    uint32_t def_lead = (uint32_t)ceil(16.0 * 7 / (months * 365.25 / 12) - 1e-9);
    const sim_cost_cfg *cc = sim_scenario_cost(&sc);
    for (size_t k = 0; k < run.n_vary; k++) {
        const sim_pool_cfg *pc = &sc.pools[run.vary[k]];
        cfg.installed[k] = pc->nodes;
        cfg.max_nodes[k] = (uint32_t)max_nodes > pc->nodes ? (uint32_t)max_nodes : pc->nodes;
        cfg.lead[k] = def_lead;
        sim__cost_owned_rates r;
        sim__cost_owned_rates_get(cc, sc.types, pc->type, &r);
        cfg.node_usd[k] = r.capex_usd_per_gpu * pc->gpus_per_node;
        if (!isfinite(cfg.node_usd[k]) || !(cfg.node_usd[k] >= 0)) {
            tm_diag_set(&d, TM_ERR_DATA, sc.source,
                        "pool '%s': GPU type %s has no purchase price, so its nodes cannot be "
                        "planned (give the type a price, or leave the pool out with --pools)",
                        pc->name, sc.types[pc->type].name);
            code = sim__cli_error(TM_ERR_DATA, &d);
            goto out;
        }
    }
    if (lead_s && (code = parse_lead(lead_s, &sc, &run, cfg.lead)))
        goto out;
    const char *unit = months == 1 ? "month" : "quarter";
    int tty = !quiet && !json && !verbose && sim__cli_stderr_is_tty();
    cfg.log = tty || verbose ? stderr : NULL;
    if (tty) {
        fprintf(stderr,
                "tarmac plan: %llu %ss, simulating each period's fleets (%llu replications "
                "each, %u workers); a line per period as it is planned\n",
                (unsigned long long)periods, unit, (unsigned long long)reps, run.workers);
        fflush(stderr);
    }
    sim__cli_install_signals();
    if (exact) {
        rc = sim__plan_exact(&cfg, &ex, &d);
        if (rc != TM_OK) {
            code = sim__cli_error(rc, &d);
            if (rc == TM_ERR_INTERRUPTED && !quiet)
                print_simulated(&run, &cache);
            if (rc == TM_ERR_INTERRUPTED && a.output) {
                /* no period is planned before the exact search ends: the
                 * file holds the fleets of the grid simulated so far */
                tm_diag d2;
                tm_diag_clear(&d2);
                if (sim__plan_write(a.output, &sc, &cfg, &ex, NULL, 0, target, NULL, &d2) ==
                    TM_OK) {
                    if (!quiet)
                        fprintf(stderr,
                                "wrote the %zu fleets simulated so far to %s (/plan/complete = "
                                "0, no period planned)\n",
                                cache.n, a.output);
                } else {
                    sim__cli_error(TM_ERR_IO, &d2);
                }
            }
            goto out;
        }
    }
    rc = sim__plan_greedy(&cfg, &pl, &d);
    if (rc == TM_ERR_INTERRUPTED) {
        snprintf(d.where, sizeof d.where, "plan"); /* the runner names size */
        code = sim__cli_error(rc, &d);
        if (!quiet) {
            fprintf(stderr, "periods planned before the interruption:\n");
            print_plan(&sc, &cfg, &pl, unit, stderr);
            print_simulated(&run, &cache);
        }
        if (a.output) {
            tm_diag d2;
            tm_diag_clear(&d2);
            /* the stop flag is set: write without it */
            if (sim__plan_write(a.output, &sc, &cfg, &pl, NULL, 0, target, NULL, &d2) == TM_OK) {
                if (!quiet)
                    fprintf(stderr, "wrote what was planned so far to %s (/plan/complete = 0)\n",
                            a.output);
            } else {
                sim__cli_error(TM_ERR_IO, &d2);
            }
        }
        goto out;
    }
    if (rc != TM_OK) {
        code = sim__cli_error(rc, &d);
        goto out;
    }
    if (!pl.found || (exact && !ex.found)) {
        tm_diag_set(&d, TM_ERR_LIMIT, "plan",
                    "no purchase schedule meets the targets in every %s: %s", unit,
                    pl.found ? ex.why : pl.why);
        code = sim__cli_error(TM_ERR_LIMIT, &d);
        goto out;
    }
    const sim__plan *chosen = exact ? &ex : &pl;
    if (a.output && (rc = sim__plan_write(a.output, &sc, &cfg, chosen, exact ? &pl : NULL, 1,
                                          target, &sim__cli_stop, &d))) {
        code = sim__cli_error(rc, &d);
        goto out;
    }
    if (json) {
        if ((rc = print_json(&sc, &cfg, chosen, exact ? &pl : NULL, target, &d)) != TM_OK)
            code = sim__cli_error(rc, &d);
    } else if (!quiet) {
        char b[48];
        printf("tarmac %s: purchase plan for scenario \"%s\" (%s)\n", TARMAC_VERSION, sc.name,
               sc.source);
        printf("%llu %ss (%g month%s each), demand %+.3g %% per %s (x%.3g by the last); "
               "targets: %s\n",
               (unsigned long long)periods, unit, months, months == 1 ? "" : "s", 100 * growth,
               unit, sim__plan_demand(&cfg, cfg.n_periods - 1), target);
        printf("%llu replications per fleet, one-sided %.0f %% bounds; ", (unsigned long long)reps,
               100 * conf);
        if (isfinite(budget)) {
            usd(b, sizeof b, budget);
            printf("budget %s of orders per %s\n", b, unit);
        } else {
            printf("no budget\n");
        }
        for (size_t k = 0; k < run.n_vary; k++) {
            const sim_pool_cfg *pc = &sc.pools[run.vary[k]];
            usd(b, sizeof b, cfg.node_usd[k]);
            printf("  pool %s: %u x %s per node at %s, lead time %u %s%s, %u nodes installed\n",
                   pc->name, pc->gpus_per_node, sc.types[pc->type].name, b, cfg.lead[k], unit,
                   cfg.lead[k] == 1 ? "" : "s", cfg.installed[k]);
        }
        printf("search: %s; simulated %zu fleets (%llu runs, %llu events)\n\n",
               exact ? "exact (every schedule on the grid), and greedy for comparison"
                     : "greedy period by period with a look-ahead",
               cache.n, (unsigned long long)run.runs, (unsigned long long)run.events);
        if (cfg.screen)
            printf("screened %zu fleets first (%llu runs of the warm-up and %.3g h after it, %u "
                   "replications each): %zu searches, %zu answers confirmed in full as the "
                   "screen had them, %zu corrected by the full evaluation\n\n",
                   scache.n, (unsigned long long)scr.runs, (double)screen_us / SIM_US_PER_S / 3600,
                   scr.replications, sst.searches, sst.agreed, sst.corrected);
        print_plan(&sc, &cfg, chosen, unit, stdout);
        printf("\ncosts per %s in USD: orders = the nodes ordered (the budget's use); own = the "
               "fleet owned\n(capex as an annuity + opex, and API overflow); reserved, on-demand "
               "= the same fleet rented;\nAPI = the services' tokens at their API prices (batch "
               "classes still need a fleet)\n",
               unit);
        printf("\nspread (replications meeting every target on their own):\n");
        for (size_t t = 0; t < chosen->n_periods; t++) {
            const sim__plan_period *p = &chosen->p[t];
            char fl[512];
            sim__size_fleet_format(fl, sizeof fl, &run, p->nodes);
            printf("  %s %zu: %s meet the targets in %u of %u replications", unit, t + 1, fl,
                   p->eval.reps_meeting, p->eval.replications);
            if (p->fewer_pool >= 0)
                printf("; one %s node fewer in %u of %u%s", sc.pools[run.vary[p->fewer_pool]].name,
                       p->fewer_meeting, p->fewer_runs,
                       p->fewer_runs < reps ? " (stopped there: it fails whatever the rest show)"
                                            : "");
            printf("\n");
        }
        /* the candidates are the greedy's (with --exact: the greedy beside it) */
        if (pl.n_cand) {
            printf("\ncandidates%s (confirmation: %s; screen = estimate on the screen, full = the "
                   "full evaluation, replications meeting the targets of those run):\n",
                   exact ? " of the greedy plan" : "", sim__plan_confirmation(&cfg));
            for (size_t t = 0; t < pl.n_periods; t++) {
                size_t nc = 0, nf = 0;
                for (size_t i = 0; i < pl.n_cand; i++)
                    if (pl.cand[i].period == t) {
                        nc++;
                        nf += pl.cand[i].full >= 0;
                    }
                printf("  %s %zu: %zu candidate%s, %zu simulated in full%s\n", unit, t + 1, nc,
                       nc == 1 ? "" : "s", nf,
                       pl.p[t].searched_again
                           ? "; searched again with every answer confirmed in full"
                           : "");
                for (size_t i = 0; i < pl.n_cand; i++) {
                    const sim__plan_cand *c = &pl.cand[i];
                    if (c->period != t)
                        continue;
                    char fl[512], sv[96] = "screen -", fv[96] = "full -", u[48];
                    sim__size_fleet_format(fl, sizeof fl, &run, c->nodes);
                    if (c->screen >= 0) {
                        usd(u, sizeof u, c->screen_usd);
                        snprintf(sv, sizeof sv, "screen %s %u/%u %s", c->screen ? "meets" : "fails",
                                 c->screen_meeting, c->screen_runs, u);
                    }
                    if (c->full >= 0)
                        snprintf(fv, sizeof fv, "full %s %u/%u", c->full ? "meets" : "fails",
                                 c->full_meeting, c->full_runs);
                    printf("    %s: %s; %s%s%s\n", fl, sv, fv, c->origin ? " (a full step)" : "",
                           c->chosen ? "; chosen" : "");
                }
            }
        }
        if (exact) {
            char g[48], e[48];
            usd(g, sizeof g, pl.own_usd);
            usd(e, sizeof e, ex.own_usd);
            printf("\ngreedy plan: %s owned over the horizon; exact: %s; gap %.2f %% (%zu partial "
                   "schedules visited)\n",
                   g, e, 100 * (pl.own_usd - ex.own_usd) / ex.own_usd, ex.schedules);
        }
    }
out:
    sim__plan_fini(&pl);
    sim__plan_fini(&ex);
    sim__size_cache_fini(&cache);
    sim__size_cache_fini(&scache);
    sim_scenario_fini(&sc);
    return code;
}

const sim__cli_command sim__cmd_plan = {
    "plan",    cmd_plan, "a purchase schedule over periods of growing demand that meets targets",
    plan_help, NULL,
};
