/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleetbe.c — whole-fleet breakeven (the method: fleetbe_int.h and
 * docs/cost.md "Whole-fleet breakeven"; the file: docs/output.md "Fleet
 * breakeven files").
 *
 * How it works: the search of size_search.c runs over one integer k, the
 * fleet factor in steps; the evaluation behind it (fbe_eval) builds the
 * scenario with every pool's nodes times k / steps (rounded up per pool) and
 * hands it to the runner of size_eval.c, so each candidate is judged by the
 * same decision rule, early rejection included, and priced by the same cost
 * model as owned, reserved and on demand. The api option sizes a second fleet
 * on the scenario without its services (only the job targets), owned, and
 * adds the services' tokens at their API prices.
 */
#include "studies/fleetbe_int.h"

#include "config/config.h"
#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const option_names[SIM__FBE_N] = {"own", "reserved", "on-demand", "api"};

const char *sim__fbe_option_name(int o)
{
    return o >= 0 && o < SIM__FBE_N ? option_names[o] : "?";
}

void sim__fbe_result_fini(sim__fbe_result *res)
{
    if (!res)
        return;
    free(res->pts);
    memset(res, 0, sizeof *res);
}

/* The evaluation over the fleet factor: ud is an fbe_ctx. */
typedef struct fbe_ctx {
    const sim_scenario *base; /* the scenario (or its jobs alone) */
    sim__size_runner run;     /* its runner: base replaced per candidate, no pools searched */
    uint32_t steps;
} fbe_ctx;

static int fbe_eval(void *ud, const uint32_t *nodes, double demand, sim__size_eval *out,
                    tm_diag *diag)
{
    fbe_ctx *x = ud;
    const sim_scenario *b = x->base;
    sim_scenario s = *b;
    s.pools = malloc((b->n_pools ? b->n_pools : 1) * sizeof *s.pools);
    if (!s.pools)
        return tm_diag_set(diag, TM_ERR_NOMEM, "breakeven", "out of memory");
    if (b->n_pools)
        memcpy(s.pools, b->pools, b->n_pools * sizeof *s.pools);
    double f = (double)nodes[0] / x->steps;
    for (size_t p = 0; p < s.n_pools; p++) {
        double n = ceil((double)b->pools[p].nodes * f * (1 - 1e-12));
        s.pools[p].nodes = n > 1e6 ? 1000000u : (uint32_t)n;
    }
    x->run.base = &s;
    int rc = sim__size_runner_eval(&x->run, nodes, demand, out, diag);
    x->run.base = b;
    free(s.pools);
    return rc;
}

/* The smallest factor meeting the targets at `scale` (found = 0: none up to
 * the largest); its evaluation into *e. */
static int size_factor(fbe_ctx *x, const sim__fbe_cfg *cfg, sim__size_cache *cache, double scale,
                       int *found, double *factor, sim__size_eval *e, tm_diag *diag)
{
    sim__size_search_cfg sc;
    memset(&sc, 0, sizeof sc);
    sc.n_vary = 1;
    sc.floor[0] = 1;
    double mf = cfg->max_factor > 0 ? cfg->max_factor : 4 * cfg->scale_hi;
    double top = ceil(mf * x->steps);
    sc.max[0] = top > 1e6 ? 1000000u : top < 1 ? 1u : (uint32_t)top;
    sc.demand = scale;
    sc.cost_as = SIM__SIZE_AS_OWNED;
    sc.eval = fbe_eval;
    sc.ud = x;
    sc.cache = cache;
    sim__size_answer a;
    int rc = sim__size_search(&sc, &a, diag);
    if (rc != TM_OK)
        return rc;
    *found = a.found;
    *factor = (double)a.best.nodes[0] / x->steps;
    *e = a.best.eval;
    sim__size_answer_fini(&a);
    return TM_OK;
}

static void runner_init(sim__size_runner *r, const sim__fbe_cfg *cfg, const sim_scenario *base,
                        const sim__size_term *terms, size_t nt)
{
    memset(r, 0, sizeof *r);
    r->base = base;
    r->terms = terms;
    r->n_terms = nt;
    r->n_vary = 0; /* the evaluation resizes every pool itself */
    r->replications = cfg->replications ? cfg->replications : 3;
    r->confidence = cfg->confidence > 0 ? cfg->confidence : 0.95;
    r->warmup_us = cfg->warmup_us >= 0 ? cfg->warmup_us : base->horizon_us / 10;
    r->services_elastic = 1;
    r->workers = cfg->workers;
    r->no_early = cfg->no_early;
    r->stop_flag = cfg->stop;
    r->log = cfg->log;
}

int sim__fbe_run(const sim__fbe_cfg *cfg, sim__fbe_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    const sim_scenario *sc = cfg->sc;
    if (!(cfg->scale_lo > 0) || !(cfg->scale_hi > cfg->scale_lo) || cfg->n_points < 2)
        return tm_diag_set(diag, TM_ERR_USAGE, "--scale", "LO:HI[:N] with 0 < LO < HI and N >= 2");
    if (sc->n_pools == 0)
        return tm_diag_set(diag, TM_ERR_SCENARIO, sc->source, "the scenario has no pools");
    /* the job terms alone, for the fleet of the api option */
    sim__size_term jterms[SIM__SIZE_MAX_TERMS];
    size_t njt = 0;
    for (size_t i = 0; i < cfg->n_terms; i++)
        if (cfg->terms[i].metric != SIM__SIZE_SLO && cfg->terms[i].metric != SIM__SIZE_API_SHARE)
            jterms[njt++] = cfg->terms[i];
    sim_scenario jobs = *sc;
    jobs.n_services = 0;
    fbe_ctx whole, alone;
    whole.base = sc;
    whole.steps = cfg->steps ? cfg->steps : 8;
    runner_init(&whole.run, cfg, sc, cfg->terms, cfg->n_terms);
    alone.base = &jobs;
    alone.steps = whole.steps;
    runner_init(&alone.run, cfg, &jobs, jterms, njt);
    sim__size_cache cw = {0}, cj = {0};
    int rc = TM_OK;
    res->n = cfg->n_points;
    res->pts = calloc(cfg->n_points, sizeof *res->pts);
    if (!res->pts) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "breakeven", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < cfg->n_points; i++) {
        sim__fbe_point *p = &res->pts[i];
        p->scale = cfg->scale_lo *
                   pow(cfg->scale_hi / cfg->scale_lo, (double)i / (double)(cfg->n_points - 1));
        sim__size_eval e;
        int found;
        if ((rc = size_factor(&whole, cfg, &cw, p->scale, &found, &p->factor, &e, diag)))
            goto out;
        p->found = found;
        for (int o = 0; o < SIM__FBE_N; o++)
            p->usd[o] = NAN;
        p->gpus = e.gpus;
        p->api_tokens_usd = e.api_list_usd_per_month;
        p->busy_util = e.busy_util;
        if (found) {
            p->usd[SIM__FBE_OWN] = e.usd_per_month[SIM__SIZE_AS_OWNED];
            p->usd[SIM__FBE_RESERVED] = e.usd_per_month[SIM__SIZE_AS_RESERVED];
            p->usd[SIM__FBE_ONDEMAND] = e.usd_per_month[SIM__SIZE_AS_ONDEMAND];
            double useful_h = e.busy_util * e.gpus * SIM_HOURS_PER_MONTH;
            p->own_usd_per_useful_gpu_h = useful_h > 0 ? p->usd[SIM__FBE_OWN] / useful_h : NAN;
        } else {
            p->own_usd_per_useful_gpu_h = NAN;
        }
        /* the api option: the jobs' own fleet, owned, plus the services' tokens */
        double jusd = 0;
        p->jobs_factor = p->jobs_gpus = 0;
        int jfound = 1;
        if (sc->n_classes > 0 && njt > 0) {
            sim__size_eval je;
            if ((rc = size_factor(&alone, cfg, &cj, p->scale, &jfound, &p->jobs_factor, &je, diag)))
                goto out;
            jusd = je.usd_per_month[SIM__SIZE_AS_OWNED];
            p->jobs_gpus = je.gpus;
        }
        if (sc->n_services == 0)
            p->api_tokens_usd = 0;
        p->usd[SIM__FBE_API] =
            jfound && isfinite(p->api_tokens_usd) ? jusd + p->api_tokens_usd : NAN;
    }
    res->n_cross = sim__fbe_crossings(res->pts, res->n, res->cross, SIM__FBE_MAX_CROSS);
    res->fleets_simulated = cw.n + cj.n;
    res->runs = whole.run.runs + alone.run.runs;
out:
    sim__size_cache_fini(&cw);
    sim__size_cache_fini(&cj);
    if (rc != TM_OK)
        sim__fbe_result_fini(res);
    return rc;
}

size_t sim__fbe_crossings(const sim__fbe_point *pts, size_t n, sim__fbe_cross *out, size_t max)
{
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        for (int a = 0; a < SIM__FBE_N; a++)
            for (int b = a + 1; b < SIM__FBE_N; b++) {
                double d0 = pts[i - 1].usd[a] - pts[i - 1].usd[b];
                double d1 = pts[i].usd[a] - pts[i].usd[b];
                if (!isfinite(d0) || !isfinite(d1) || (d0 < 0) == (d1 < 0) || d0 == d1)
                    continue;
                if ((d0 == 0 || d1 == 0) && !((d0 < 0) != (d1 < 0)))
                    continue;
                double l0 = log(pts[i - 1].scale), l1 = log(pts[i].scale);
                double t = d0 / (d0 - d1);
                if (k < max)
                    out[k++] = (sim__fbe_cross){a, b, exp(l0 + t * (l1 - l0)), d1 < 0};
            }
    return k;
}

/* The cheapest option at point p (-1: none priced) and the next one. */
static int cheapest(const sim__fbe_point *p, int *second)
{
    int best = -1, next = -1;
    for (int o = 0; o < SIM__FBE_N; o++) {
        if (!isfinite(p->usd[o]))
            continue;
        if (best < 0 || p->usd[o] < p->usd[best]) {
            next = best;
            best = o;
        } else if (next < 0 || p->usd[o] < p->usd[next]) {
            next = o;
        }
    }
    *second = next;
    return best;
}

void sim__fbe_summary(char *buf, size_t n, const sim__fbe_result *res)
{
    size_t len = 0;
    buf[0] = '\0';
    if (!res->n)
        return;
    const sim__fbe_point *lo = &res->pts[0], *hi = &res->pts[res->n - 1];
    int s0, s1, b0 = cheapest(lo, &s0), b1 = cheapest(hi, &s1);
    int always = b0 >= 0 && b0 == b1;
    for (size_t i = 0; always && i < res->n; i++) {
        int s;
        always = cheapest(&res->pts[i], &s) == b0;
    }
    if (always && s0 >= 0 && s1 >= 0) {
        len += (size_t)snprintf(
            buf + len, n - len,
            "%s is the cheapest at every scale from x%.3g to x%.3g: %.0f %% below %s at "
            "x%.3g, %.0f %% below %s at x%.3g\n",
            option_names[b0], lo->scale, hi->scale, 100 * (1 - lo->usd[b0] / lo->usd[s0]),
            option_names[s0], lo->scale, 100 * (1 - hi->usd[b1] / hi->usd[s1]), option_names[s1],
            hi->scale);
    } else {
        if (b0 >= 0 && len < n)
            len += (size_t)snprintf(buf + len, n - len, "cheapest at x%.3g: %s\n", lo->scale,
                                    option_names[b0]);
        if (b1 >= 0 && len < n)
            len += (size_t)snprintf(buf + len, n - len, "cheapest at x%.3g: %s\n", hi->scale,
                                    option_names[b1]);
    }
    for (size_t i = 0; i < res->n_cross && len < n; i++) {
        const sim__fbe_cross *c = &res->cross[i];
        int above = c->a_cheaper_above ? c->a : c->b, below = c->a_cheaper_above ? c->b : c->a;
        len += (size_t)snprintf(buf + len, n - len,
                                "%s costs less than %s above x%.3g of the scenario's load (and "
                                "more below)\n",
                                option_names[above], option_names[below], c->scale);
    }
    for (int o = 0; o < SIM__FBE_N && len < n; o++) {
        int ever = 0;
        for (size_t i = 0; i < res->n_cross; i++)
            ever |= res->cross[i].a == o || res->cross[i].b == o;
        if (!ever && o != b0 && isfinite(lo->usd[o]) && isfinite(hi->usd[o]) && b0 >= 0 && !always)
            len += (size_t)snprintf(buf + len, n - len,
                                    "%s never becomes the cheaper of any pair in the range\n",
                                    option_names[o]);
    }
    if (len == 0)
        snprintf(buf, n, "no option could be priced (no fleet within the largest factor)\n");
}

/* ------------------------------------------------------------------------- */
/* the file                                                                   */

enum {
    C_SCALE,
    C_OWN,
    C_RES,
    C_OD,
    C_API,
    C_FACTOR,
    C_GPUS,
    C_JFACTOR,
    C_JGPUS,
    C_TOKUSD,
    C_BUSY,
    C_USEFUL,
    C_N
};

static const sim__h5_col scale_cols[C_N] = {
    {"scale", SIM__H5_F64, "1", "the load as a multiple of the scenario's (every rate x scale)"},
    {"own_usd_per_month", SIM__H5_F64, "USD/month",
     "the fleet meeting the targets at this scale, every pool owned; NaN none found"},
    {"reserved_usd_per_month", SIM__H5_F64, "USD/month", "the same fleet rented reserved"},
    {"ondemand_usd_per_month", SIM__H5_F64, "USD/month", "the same fleet rented on demand"},
    {"api_usd_per_month", SIM__H5_F64, "USD/month",
     "the services' tokens at their API prices plus the owned fleet for the jobs alone"},
    {"fleet_factor", SIM__H5_F64, "1", "the fleet as a multiple of the scenario's"},
    {"gpus", SIM__H5_F64, "GPU", "its GPUs"},
    {"jobs_fleet_factor", SIM__H5_F64, "1", "the fleet for the jobs alone (api option)"},
    {"jobs_gpus", SIM__H5_F64, "GPU", "its GPUs"},
    {"api_tokens_usd_per_month", SIM__H5_F64, "USD/month",
     "the services' demanded tokens at their API prices"},
    {"busy_util", SIM__H5_F64, "1", "busy utilization of the owned fleet (mean)"},
    {"own_usd_per_useful_gpu_hour", SIM__H5_F64, "USD/h",
     "own_usd_per_month / busy GPU-hours per month"},
};

static int write_scale(sim__h5w *w, const sim__fbe_result *res, tm_diag *diag)
{
    size_t n = res->n;
    double *d = malloc(C_N * (n ? n : 1) * sizeof *d);
    if (!d)
        return tm_diag_set(diag, TM_ERR_NOMEM, "breakeven", "out of memory");
    const void *cols[C_N];
    for (size_t k = 0; k < C_N; k++)
        cols[k] = d + k * n;
    for (size_t i = 0; i < n; i++) {
        const sim__fbe_point *p = &res->pts[i];
        const double v[C_N] = {p->scale,
                               p->usd[SIM__FBE_OWN],
                               p->usd[SIM__FBE_RESERVED],
                               p->usd[SIM__FBE_ONDEMAND],
                               p->usd[SIM__FBE_API],
                               p->found ? p->factor : NAN,
                               p->gpus,
                               p->jobs_factor,
                               p->jobs_gpus,
                               p->api_tokens_usd,
                               p->busy_util,
                               p->own_usd_per_useful_gpu_h};
        for (size_t k = 0; k < C_N; k++)
            d[k * n + i] = v[k];
    }
    sim__h5t *t = NULL;
    int rc;
    if ((rc = sim__h5t_create(&t, w, "/fleet_breakeven/scale",
                              "one row per load scale (log-spaced)", scale_cols, C_N, diag)) ==
            TM_OK &&
        (rc = sim__h5t_dim(t, "load_scale", "/fleet_breakeven/scale/scale",
                           "the scales (a copy of scale)", diag)) == TM_OK &&
        (rc = sim__h5t_append(t, cols, n, diag)) == TM_OK)
        rc = sim__h5t_close(t, diag);
    free(d);
    return rc;
}

static int write_cross(sim__h5w *w, const sim__fbe_result *res, tm_diag *diag)
{
    size_t n = res->n_cross;
    int32_t a[SIM__FBE_MAX_CROSS + 1], b[SIM__FBE_MAX_CROSS + 1], up[SIM__FBE_MAX_CROSS + 1];
    double s[SIM__FBE_MAX_CROSS + 1];
    for (size_t i = 0; i < n; i++) {
        a[i] = res->cross[i].a;
        b[i] = res->cross[i].b;
        up[i] = res->cross[i].a_cheaper_above;
        s[i] = res->cross[i].scale;
    }
    static const sim__h5_col cols[4] = {
        {"option_a", SIM__H5_I32, "1",
         "an option (attribute 'labels' of /fleet_breakeven/options)"},
        {"option_b", SIM__H5_I32, "1", "the other option"},
        {"scale", SIM__H5_F64, "1", "the load scale where their monthly costs are equal"},
        {"a_cheaper_above", SIM__H5_I32, "1", "1: option_a costs less above the scale"},
    };
    const void *cv[4] = {a, b, s, up};
    sim__h5t *t = NULL;
    int rc;
    if ((rc = sim__h5t_create(&t, w, "/fleet_breakeven/crossovers",
                              "where two options' costs change order", cols, 4, diag)) ||
        (rc = sim__h5t_dim(t, "crossover", NULL, "one per crossover (no values)", diag)) ||
        (rc = sim__h5t_append(t, cv, n, diag)) || (rc = sim__h5t_close(t, diag)))
        return rc;
    return TM_OK;
}

int sim__fbe_write(const char *path, const sim__fbe_cfg *cfg, const sim__fbe_result *res,
                   tm_diag *diag)
{
    sim__h5w *w = NULL;
    int rc = sim__h5w_open(&w, path, diag);
    if (rc != TM_OK)
        return rc;
    sim__h5w_set_stop(w, cfg->stop);
    char *params = sim__scenario_cost_json(cfg->sc);
    if (!params) {
        sim__h5w_abort(w);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    char summary[4096];
    sim__fbe_summary(summary, sizeof summary, res);
    char targets[4096] = "";
    size_t len = 0;
    for (size_t i = 0; i < cfg->n_terms && len < sizeof targets; i++)
        len += (size_t)snprintf(targets + len, sizeof targets - len, "%s%s", i ? "," : "",
                                cfg->terms[i].text);
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", 1, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#fleet-breakeven-files", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "fleet_breakeven", diag)) ||
        (rc = write_scale(w, res, diag)) || (rc = write_cross(w, res, diag)) ||
        (rc = sim__h5w_scalar_str(w, "/fleet_breakeven/options", "own,reserved,on-demand,api",
                                  "the options, in the order of option_a and option_b", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/fleet_breakeven/summary", summary,
                                  "the verdict in words, as printed", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/fleet_breakeven/targets", targets,
                                  "the targets every fleet meets (job targets given, service "
                                  "SLOs)",
                                  diag)) ||
        (rc = sim__h5w_scalar_str(w, "/fleet_breakeven/cost_parameters", params,
                                  "the cost model with every default filled in (JSON; "
                                  "docs/cost.md)",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/fleet_breakeven/replications", (int64_t)cfg->replications,
                                  "1", "runs per candidate fleet", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/fleet_breakeven/factor_steps",
                                  (int64_t)(cfg->steps ? cfg->steps : 8), "1",
                                  "fleet factors tried are multiples of 1 / this", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/fleet_breakeven/fleets_simulated",
                                  (int64_t)res->fleets_simulated, "1",
                                  "distinct (fleet, scale) pairs simulated", diag)) ||
        (rc = sim__provenance_write(w, cfg->sc, NULL, diag))) {
        free(params);
        sim__h5w_abort(w);
        return rc;
    }
    free(params);
    return sim__h5w_commit(w, diag);
}
