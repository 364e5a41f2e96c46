/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sensitivity.c — `tarmac sensitivity`: how the cost per useful GPU-hour
 * and the cost per month move when each main input moves by ±delta
 * (sensitivity.c does the work; this file parses, prints and writes).
 */
#include "studies/sensitivity_int.h"
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

static const char sensitivity_help[] =
    "Usage: tarmac sensitivity [SCENARIO] [--delta P%] [--replications R] [--breakeven]\n"
    "                          [--breakeven-pools A,B,...] [--size-target SPEC]\n"
    "                          [--size-pools A,B,...] [--search-replications R]\n"
    "                          [--max-nodes N] [--seed N] [-o FILE] [-j N] [--verbose]\n"
    "                          [--quiet] [--json] [--limit NAME=VALUE]...\n"
    "\n"
    "One-at-a-time sensitivity: each main input of the scenario (GPU price, power\n"
    "price, API price, staff cost, the services' utilization target, the arrival\n"
    "growth rate) moved to (1 - P) and (1 + P) times its value, the others held,\n"
    "and the fleet cost per useful reference GPU-hour and the total cost per month\n"
    "at each. Prices re-account the base run (exact, no run); the utilization\n"
    "target and the growth rate are simulated again (same seed). With R\n"
    "replications every end is a mean with a 95 % interval. Inputs the scenario\n"
    "does not have are listed as not in this scenario. Prints a table sorted by\n"
    "swing, largest first, and writes FILE (layout: docs/output.md, \"Sensitivity\n"
    "files\"); `tarmac plot FILE` draws the tornado chart.\n"
    "\n"
    "  --delta P%           the move, a percentage in (0, 100) (default 20%; the\n"
    "                       % sign is optional)\n"
    "  --replications R     runs of the base and of each simulated end, >= 1\n"
    "                       (default 1, as `tarmac run`)\n"
    "  --breakeven          also the breakeven volume (owning versus the API, as\n"
    "                       `tarmac breakeven` finds it) at base and at each end: a\n"
    "                       search of many runs per end\n"
    "  --breakeven-pools A,B,...  the pools breakeven sizes (default all, at most 4)\n"
    "  --size-target SPEC   also the size (`tarmac size --target SPEC`) at base and\n"
    "                       at each end of the simulated inputs (a price moves no\n"
    "                       fleet); a search of many runs per end\n"
    "  --size-pools A,B,... the pools size searches (default all, at most 4)\n"
    "  --search-replications R  runs per candidate fleet of those searches\n"
    "                       (default: breakeven's 3, size's 5)\n"
    "  --max-nodes N        at most N nodes per pool in those searches (default 1024)\n"
    "  --seed N             override the scenario's seed\n"
    "  -o, --output FILE    HDF5 output (default tarmac-sensitivity.h5)\n"
    "  -j, --jobs N         worker processes for the searches' replications\n"
    "                       (default: the online cores)\n"
    "  -v, --verbose        one line per simulation on stderr\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --json               print a JSON summary on stdout instead of the table\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; repeatable)\n";

enum {
    O_DELTA = 256,
    O_REPLICATIONS,
    O_BREAKEVEN,
    O_BE_POOLS,
    O_SIZE_TARGET,
    O_SIZE_POOLS,
    O_SEARCH_REPS,
    O_MAX_NODES
};

static const sim__cli_opt sensitivity_opts[] = {
    {"delta", O_DELTA, 1, "a percentage in (0, 100), e.g. 20%"},
    {"replications", O_REPLICATIONS, 1, "an integer in [1, 10000]"},
    {"breakeven", O_BREAKEVEN, 0, NULL},
    {"breakeven-pools", O_BE_POOLS, 1, "pool names"},
    {"size-target", O_SIZE_TARGET, 1, "targets, e.g. 'wait_p95<=10m'"},
    {"size-pools", O_SIZE_POOLS, 1, "pool names"},
    {"search-replications", O_SEARCH_REPS, 1, "an integer in [1, 100000]"},
    {"max-nodes", O_MAX_NODES, 1, "an integer in [1, 1000000]"},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec sensitivity_spec = {
    .cmd = &sim__cmd_sensitivity,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_JOBS | SIM__CLI_VERBOSE | SIM__CLI_QUIET |
              SIM__CLI_JSON | SIM__CLI_LIMIT,
    .no_stdout = "an HDF5 file",
    .operand = "scenario",
    .max_operands = 1,
    .opts = sensitivity_opts,
};

/* "20%", "20" or "12.5 %": the percentage as a fraction in (0, 1). */
static int parse_delta(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return -1;
    while (*end == ' ')
        end++;
    if (*end == '%')
        end++;
    if (*end || !(x > 0 && x < 100))
        return -1;
    *out = x / 100;
    return 0;
}

static void fmt_value(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (fabs(v) >= 1000)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.4g", v);
}

static void fmt_tokens(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else if (v >= 1e12)
        snprintf(buf, n, "%.4g T", v / 1e12);
    else if (v >= 1e9)
        snprintf(buf, n, "%.4g B", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%.4g M", v / 1e6);
    else
        snprintf(buf, n, "%.4g k", v / 1e3);
}

/* "1.23 B", "owning wins already at 12.3 M", "never up to 1.2 B" */
static void fmt_be(char *buf, size_t n, const sim__sens_be *b)
{
    char t[48];
    switch (b->state) {
    case SIM__SENS_BE_CROSSES:
        fmt_tokens(buf, n, b->tokens_per_month);
        break;
    case SIM__SENS_BE_AT_BOTTOM:
        fmt_tokens(t, sizeof t, b->lo_tokens_per_month);
        snprintf(buf, n, "below %s", t);
        break;
    case SIM__SENS_BE_NEVER:
        fmt_tokens(t, sizeof t, b->hi_tokens_per_month);
        snprintf(buf, n, "none up to %s", t);
        break;
    default:
        snprintf(buf, n, "-");
    }
}

static void fmt_size(char *buf, size_t n, const sim__size_runner *r, const sim__sens_size *z)
{
    if (z->state == SIM__SENS_SIZE_FOUND || z->state == SIM__SENS_SIZE_UNCHANGED) {
        char f[256];
        sim__size_fleet_format(f, sizeof f, r, z->nodes);
        snprintf(buf, n, "%s", f);
    } else if (z->state == SIM__SENS_SIZE_NOT_FOUND) {
        snprintf(buf, n, "none within the node limit");
    } else {
        snprintf(buf, n, "-");
    }
}

/* "12.3456" or "12.3456 [12.1, 12.6]" */
static void fmt_stat(char *buf, size_t n, int decimals, double m, const double ci[2])
{
    if (isfinite(ci[0]) && isfinite(ci[1]))
        snprintf(buf, n, "%.*f [%.*f, %.*f]", decimals, m, decimals, ci[0], decimals, ci[1]);
    else
        snprintf(buf, n, "%.*f", decimals, m);
}

static void print_table(const sim__sens_cfg *cfg, const sim__sens_result *r, const char *out)
{
    uint32_t R = r->replications;
    printf("tarmac sensitivity: scenario \"%s\" (%s), each input x %.3g and x %.3g\n",
           cfg->sc->name, cfg->sc->source, 1 - cfg->delta, 1 + cfg->delta);
    char b0[96], b1[96];
    fmt_stat(b0, sizeof b0, 4, r->base[0], r->base_ci[0]);
    fmt_stat(b1, sizeof b1, 0, r->base[1], r->base_ci[1]);
    printf("base: %s USD per useful GPU-hour, %s USD per month; %u simulation%s", b0, b1, r->runs,
           r->runs == 1 ? "" : "s");
    if (R > 1)
        printf(" (%u replications at the base and each simulated end: means [95 %% intervals])", R);
    printf("\n\n");
    int wide = R > 1;
    int w1 = wide ? 30 : 12, w2 = wide ? 34 : 12;
    printf("%-19s %12s %12s %12s  %-12s %*s %*s %9s %*s %*s\n", "input", "base", "low", "high",
           "unit", w1, "USD/GPU-h lo", w1, "hi", "swing", w2, "USD/month lo", w2, "hi");
    for (size_t i = 0; i < SIM__SENS_N_INPUTS; i++) {
        const sim__sens_row *w = &r->rows[i];
        if (!w->present) {
            printf("%-19s not in this scenario\n", sim__sens_input_label(w->input));
            continue;
        }
        char b[32], lo[32], hi[32], c[4][96];
        fmt_value(b, sizeof b, w->base_value);
        fmt_value(lo, sizeof lo, w->low_value);
        fmt_value(hi, sizeof hi, w->high_value);
        fmt_stat(c[0], sizeof c[0], 4, w->low[0], w->low_ci[0]);
        fmt_stat(c[1], sizeof c[1], 4, w->high[0], w->high_ci[0]);
        fmt_stat(c[2], sizeof c[2], 0, w->low[1], w->low_ci[1]);
        fmt_stat(c[3], sizeof c[3], 0, w->high[1], w->high_ci[1]);
        printf("%-19s %12s %12s %12s  %-12s %*s %*s %9.4f %*s %*s%s\n",
               sim__sens_input_label(w->input), b, lo, hi, w->unit, w1, c[0], w1, c[1], w->swing,
               w2, c[2], w2, c[3], w->resimulated ? " (simulated)" : "");
    }
    if (cfg->be_runner) {
        char t[96], u[96];
        fmt_be(t, sizeof t, &r->base_be);
        printf("\nbreakeven: the monthly token volume from which owning the fleet sized for it "
               "costs less than the API\n(fleets sized for every service's SLO, %u replications "
               "each, as `tarmac breakeven`)\n",
               cfg->be_runner->replications);
        printf("%-19s %26s %26s\n", "input", "low", "high");
        printf("%-19s %26s\n", "base", t);
        for (size_t i = 0; i < SIM__SENS_N_INPUTS; i++) {
            const sim__sens_row *w = &r->rows[i];
            if (!w->present) {
                printf("%-19s not in this scenario\n", sim__sens_input_label(w->input));
                continue;
            }
            fmt_be(t, sizeof t, &w->be[0]);
            fmt_be(u, sizeof u, &w->be[1]);
            printf("%-19s %26s %26s\n", sim__sens_input_label(w->input), t, u);
        }
        printf("(below X: owning already wins at the lowest volume searched; none up to X: "
               "owning does not beat the API in the range)\n");
        /* where one option wins throughout: by how much at that end of the range */
        for (size_t i = 0; i <= SIM__SENS_N_INPUTS; i++)
            for (int side = 0; side < 2; side++) {
                const sim__sens_row *w = i < SIM__SENS_N_INPUTS ? &r->rows[i] : NULL;
                const sim__sens_be *e = w ? &w->be[side] : &r->base_be;
                if ((w && !w->present) || (!w && side) ||
                    (e->state != SIM__SENS_BE_NEVER && e->state != SIM__SENS_BE_AT_BOTTOM))
                    continue;
                char at[64], vol[48], own[48], api[48];
                if (w)
                    snprintf(at, sizeof at, "%s x %.3g", sim__sens_input_label(w->input),
                             side ? 1 + cfg->delta : 1 - cfg->delta);
                else
                    snprintf(at, sizeof at, "base");
                int never = e->state == SIM__SENS_BE_NEVER;
                fmt_tokens(vol, sizeof vol,
                           never ? e->hi_tokens_per_month : e->lo_tokens_per_month);
                sim__cost_fmt_usd(own, sizeof own, e->own_usd);
                sim__cost_fmt_usd(api, sizeof api, e->api_usd);
                if (isfinite(e->own_usd))
                    printf("%s: owning %s at %s tokens/month: %s a month against the API's %s\n",
                           at, never ? "still loses" : "already wins", vol, own, api);
                else
                    printf("%s: at %s tokens/month no fleet within the node limit meets the "
                           "SLOs; the API costs %s a month\n",
                           at, vol, api);
            }
    }
    if (cfg->size_runner) {
        char t[256], u[256];
        fmt_size(t, sizeof t, cfg->size_runner, &r->base_size);
        printf("\nsize: the cheapest fleet that meets '%s' (%u replications per fleet, as "
               "`tarmac size`)\n",
               cfg->size_target, cfg->size_runner->replications);
        printf("%-19s %s\n", "base", t);
        for (size_t i = 0; i < SIM__SENS_N_INPUTS; i++) {
            const sim__sens_row *w = &r->rows[i];
            if (!w->present) {
                printf("%-19s not in this scenario\n", sim__sens_input_label(w->input));
                continue;
            }
            if (w->size[0].state == SIM__SENS_SIZE_UNCHANGED) {
                printf("%-19s unchanged: a price does not change a size (only its cost)\n",
                       sim__sens_input_label(w->input));
                continue;
            }
            fmt_size(t, sizeof t, cfg->size_runner, &w->size[0]);
            fmt_size(u, sizeof u, cfg->size_runner, &w->size[1]);
            printf("%-19s low: %s; high: %s\n", sim__sens_input_label(w->input), t, u);
        }
    }
    if (out)
        printf("\nwrote %s\n", out);
}

static void json_stat(sim__jout *j, sim__jnode *o, const char *key, double m, const double ci[2])
{
    char k[96];
    sim__jout_num(j, o, key, m);
    snprintf(k, sizeof k, "%s_ci_lo", key);
    sim__jout_num(j, o, k, ci[0]);
    snprintf(k, sizeof k, "%s_ci_hi", key);
    sim__jout_num(j, o, k, ci[1]);
}

static void json_be(sim__jout *j, sim__jnode *parent, const char *key, const sim__sens_be *b)
{
    sim__jnode *o = sim__jout_object(j, parent, key);
    sim__jout_str(j, o, "state", sim__sens_be_state_key(b->state));
    sim__jout_num(j, o, "tokens_per_month", b->tokens_per_month);
    sim__jout_num(j, o, "scenario_tokens_per_month", b->v0_tokens_per_month);
    sim__jout_num(j, o, "range_lo_tokens_per_month", b->lo_tokens_per_month);
    sim__jout_num(j, o, "range_hi_tokens_per_month", b->hi_tokens_per_month);
    /* at the end of the range that says by how much (state never: the
     * highest volume, at_lowest: the lowest; null otherwise) */
    sim__jout_num(j, o, "end_own_usd_per_month", b->own_usd);
    sim__jout_num(j, o, "end_api_usd_per_month", b->api_usd);
}

static void json_size(sim__jout *j, sim__jnode *parent, const char *key, const sim__size_runner *r,
                      const sim_scenario *sc, const sim__sens_size *z)
{
    sim__jnode *o = sim__jout_object(j, parent, key);
    sim__jout_str(j, o, "state", sim__sens_size_state_key(z->state));
    if (z->state == SIM__SENS_SIZE_NONE)
        return;
    sim__jout_num(j, o, "gpus", z->gpus);
    sim__jnode *n = sim__jout_object(j, o, "nodes");
    for (size_t k = 0; k < r->n_vary; k++)
        sim__jout_uint(j, n, sc->pools[r->vary[k]].name, z->nodes[k]);
}

/* --json (docs/cli.md): the table's numbers at full precision. */
static int print_json(const sim__sens_cfg *cfg, const sim__sens_result *r, const char *out,
                      tm_diag *d)
{
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jout_str(j, root, "command", "sensitivity");
    sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
    sim__jout_str(j, root, "scenario", cfg->sc->name);
    sim__jout_str(j, root, "output", out);
    sim__jout_num(j, root, "delta", cfg->delta);
    sim__jout_uint(j, root, "replications", r->replications);
    sim__jout_uint(j, root, "runs", r->runs);
    sim__jnode *b = sim__jout_object(j, root, "base");
    for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++)
        json_stat(j, b, sim__sens_output_key(o), r->base[o], r->base_ci[o]);
    if (cfg->be_runner)
        json_be(j, b, "breakeven", &r->base_be);
    if (cfg->size_runner)
        json_size(j, b, "size", cfg->size_runner, cfg->sc, &r->base_size);
    if (cfg->size_runner)
        sim__jout_str(j, root, "size_target", cfg->size_target);
    sim__jnode *arr = sim__jout_array(j, root, "inputs");
    for (size_t i = 0; i < SIM__SENS_N_INPUTS; i++) {
        const sim__sens_row *w = &r->rows[i];
        sim__jnode *o = sim__jout_object(j, arr, NULL);
        sim__jout_str(j, o, "input", sim__sens_input_key(w->input));
        sim__jout_str(j, o, "label", sim__sens_input_label(w->input));
        sim__jout_bool(j, o, "present", w->present);
        if (!w->present)
            continue;
        sim__jout_bool(j, o, "resimulated", w->resimulated);
        sim__jout_str(j, o, "unit", w->unit);
        sim__jout_num(j, o, "base_value", w->base_value);
        sim__jout_num(j, o, "low_value", w->low_value);
        sim__jout_num(j, o, "high_value", w->high_value);
        sim__jout_num(j, o, "swing", w->swing);
        for (int side = 0; side < 2; side++) {
            sim__jnode *e = sim__jout_object(j, o, side ? "high" : "low");
            for (int k = 0; k < SIM__SENS_N_OUTPUTS; k++)
                json_stat(j, e, sim__sens_output_key(k), side ? w->high[k] : w->low[k],
                          side ? w->high_ci[k] : w->low_ci[k]);
            if (cfg->be_runner)
                json_be(j, e, "breakeven", &w->be[side]);
            if (cfg->size_runner)
                json_size(j, e, "size", cfg->size_runner, cfg->sc, &w->size[side]);
        }
    }
    int rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, d);
    sim__jout_free(j);
    return rc;
}

static int cmd_sensitivity(int argc, char **argv)
{
    double delta = 0.2;
    uint64_t reps = 1, sreps = 0, max_nodes = 1024;
    int breakeven = 0;
    const char *be_pools = NULL, *size_target = NULL, *size_pools = NULL;
    sim__cli_args a;
    sim__cli_args_init(&a, &sensitivity_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        int bad = 0;
        switch (key) {
        case O_DELTA:
            bad = parse_delta(v, &delta);
            break;
        case O_REPLICATIONS:
            bad = sim__cli_parse_u64(v, 10000, &reps) || reps < 1;
            break;
        case O_BREAKEVEN:
            breakeven = 1;
            break;
        case O_BE_POOLS:
            be_pools = v;
            break;
        case O_SIZE_TARGET:
            size_target = v;
            break;
        case O_SIZE_POOLS:
            size_pools = v;
            break;
        case O_SEARCH_REPS:
            bad = sim__cli_parse_u64(v, 100000, &sreps) || sreps < 1;
            break;
        case O_MAX_NODES:
            bad = sim__cli_parse_u64(v, 1000000, &max_nodes) || max_nodes < 1;
            break;
        }
        if (bad)
            return sim__cli_bad_value(&a);
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    if (be_pools && !breakeven)
        return sim__cli_usage("sensitivity", "--breakeven-pools goes with --breakeven");
    if (size_pools && !size_target)
        return sim__cli_usage("sensitivity", "--size-pools goes with --size-target");
    if ((sreps || a.have_jobs) && !breakeven && !size_target)
        return sim__cli_usage("sensitivity", "--search-replications and -j go with --breakeven "
                                             "or --size-target");
    const char *path = a.n_operands ? a.operands[0] : NULL;
    const char *out = a.output ? a.output : "tarmac-sensitivity.h5";
    unsigned workers = a.have_jobs ? (unsigned)a.jobs : sim__work_cores();
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int code = sim__cli_open_scenario(&sc, path, &a);
    if (code)
        return code;
    int rc = TM_OK;
    sim__sens_cfg cfg = {.sc = &sc,
                         .delta = delta,
                         .replications = (uint32_t)reps,
                         .stop = &sim__cli_stop,
                         .log = a.verbose ? stderr : NULL};
    sim__sens_result res;
    memset(&res, 0, sizeof res);
    sim__size_term be_terms[SIM__SIZE_MAX_TERMS], size_terms[SIM__SIZE_MAX_TERMS];
    sim__size_runner be_run, size_run;
    sim__be_cfg be_cfg;
    memset(&be_run, 0, sizeof be_run);
    memset(&size_run, 0, sizeof size_run);
    if (breakeven) {
        /* as `tarmac breakeven` with its defaults: the services alone, every
         * service's SLO, 7 volumes from V0 / 100 to V0 x 10, 6 bisections */
        size_t nt = 0;
        if ((rc = sim__be_terms(&sc, be_terms, &nt, &d)) != TM_OK) {
            code = sim__cli_error(rc, &d);
            goto done;
        }
        if ((code = sim__cli_pools_opt("sensitivity", "--breakeven-pools", &sc, be_pools,
                                       be_run.vary, &be_run.n_vary, SIM__SIZE_MAX_VARY)))
            goto done;
        sim_scenario svc = sc;
        svc.n_classes = 0;
        double top = 10 * (1 + delta); /* the highest volume, the growth or load moved up */
        char why[200];
        snprintf(why, sizeof why,
                 "at breakeven's highest volume, %.3g times the scenario's own (with the input "
                 "moved up)",
                 top);
        if ((code = sim__cli_admit_scaled(&svc, &a, top, why)))
            goto done;
        be_run.terms = be_terms;
        be_run.n_terms = nt;
        be_run.replications = sreps ? (uint32_t)sreps : 3;
        be_run.workers = workers;
        be_run.confidence = 0.95;
        be_run.services_elastic = 1;
        be_run.stop_flag = &sim__cli_stop;
        be_run.log = a.verbose ? stderr : NULL;
        be_cfg = (sim__be_cfg){7, 0, 0, 6, (uint32_t)max_nodes, NULL};
        cfg.be_runner = &be_run;
        cfg.be_cfg = &be_cfg;
    }
    if (size_target) {
        size_t nt = 0;
        if ((rc = sim__size_parse_targets(size_target, &sc, size_terms, SIM__SIZE_MAX_TERMS, &nt,
                                          &d)) != TM_OK) {
            /* size's parser names its own option: name ours */
            if (rc == TM_ERR_USAGE && strcmp(d.where, "--target") == 0)
                snprintf(d.where, sizeof d.where, "--size-target");
            code = sim__cli_error(rc, &d);
            goto done;
        }
        if ((code = sim__cli_pools_opt("sensitivity", "--size-pools", &sc, size_pools,
                                       size_run.vary, &size_run.n_vary, SIM__SIZE_MAX_VARY)))
            goto done;
        size_run.base = &sc; /* replaced by each end's scenario in the searches */
        size_run.terms = size_terms;
        size_run.n_terms = nt;
        size_run.replications = sreps ? (uint32_t)sreps : 5;
        size_run.workers = workers;
        size_run.confidence = 0.95;
        size_run.warmup_us = sc.horizon_us / 10; /* size's default */
        size_run.stop_flag = &sim__cli_stop;
        size_run.log = a.verbose ? stderr : NULL;
        cfg.size_runner = &size_run;
        cfg.size_max_nodes = (uint32_t)max_nodes;
        cfg.size_target = size_target;
    }
    sim__cli_install_signals();
    sim__cli_warn_no_gpus(&sc, path ? path : "(embedded default)");
    rc = sim__sens_run(&cfg, &res, &d);
    if (rc == TM_OK)
        rc = sim__sens_write(out, &cfg, &res, &d);
    if (rc != TM_OK) {
        code = sim__cli_error(rc, &d);
        goto done;
    }
    if (a.json) {
        if ((rc = print_json(&cfg, &res, out, &d)) != TM_OK)
            code = sim__cli_error(rc, &d);
    } else if (!a.quiet) {
        print_table(&cfg, &res, out);
    }
done:
    sim__sens_result_fini(&res);
    sim_scenario_fini(&sc);
    return code;
}

const sim__cli_command sim__cmd_sensitivity = {
    "sensitivity",
    cmd_sensitivity,
    "how the cost, the breakeven volume and the size move when each main input moves by +-20 %",
    sensitivity_help,
    NULL,
};
