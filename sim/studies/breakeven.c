/* SPDX-License-Identifier: Apache-2.0 */
/*
 * breakeven.c — owning versus renting versus the API across monthly token
 * volumes, months to pay back, and cost against utilization (the method:
 * breakeven_int.h and docs/cost.md §5; the file: docs/output.md "Breakeven
 * files").
 *
 * Every fleet is sized by sim__size_search through the runner of size.c, so
 * "owning a fleet sized by simulation for that volume at the scenario's SLO"
 * means exactly what `tarmac size --target 'slo>=TARGET'` would choose. All
 * sizings share one cache: the bisections that narrow a crossing reuse the
 * evaluations of the grid.
 */
#include "studies/breakeven_int.h"

#include "model/cost_int.h"
#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "model/service_int.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Utilization grid of the cost-per-useful-hour curve: 5 % .. 100 %. */
#define UTIL_STEPS 20

int sim__be_terms(const sim_scenario *sc, sim__size_term *terms, size_t *n, tm_diag *diag)
{
    *n = 0;
    if (sc->n_services == 0)
        return tm_diag_set(diag, TM_ERR_SCENARIO, sc->source,
                           "breakeven needs at least one service (workload.services): their "
                           "tokens are what the API would bill");
    if (sc->n_services > SIM__SIZE_MAX_TERMS)
        return tm_diag_set(diag, TM_ERR_LIMIT, sc->source, "more than %d services",
                           SIM__SIZE_MAX_TERMS);
    for (size_t s = 0; s < sc->n_services; s++) {
        sim__size_term *t = &terms[(*n)++];
        memset(t, 0, sizeof *t);
        t->metric = SIM__SIZE_SLO;
        t->scope = (int)s;
        t->le = 0;
        t->limit = sc->services[s].cfg.slo_target;
        snprintf(t->text, sizeof t->text, "slo[%s]>=%g", sc->services[s].cfg.name, t->limit);
    }
    return TM_OK;
}

double sim__be_payback_months(double capex, double income0, double factor, double opex,
                              double max_months)
{
    if (!(capex >= 0) || !isfinite(income0) || !isfinite(opex))
        return NAN;
    if (capex == 0)
        return 0;
    double paid = 0;
    for (double m = 0; m < max_months; m++) {
        double s = income0 * pow(factor, m / 12) - opex;
        if (s > 0 && paid + s >= capex)
            return m + (capex - paid) / s;
        paid += s;
    }
    return NAN;
}

void sim__be_result_fini(sim__be_result *res)
{
    if (!res)
        return;
    free(res->pts);
    free(res->util);
    free(res->own_usd_per_useful_h);
    free(res->rent_usd_per_useful_h);
    free(res->api_usd_per_useful_h);
    memset(res, 0, sizeof *res);
}

typedef struct be {
    const sim__be_cfg *cfg;
    sim__size_cache cache;
    sim__be_result *res;
    double api0; /* API bill per month at V0, month 0 prices */
    tm_diag *diag;
} be;

static int size_at(be *b, double demand, sim__size_answer *ans)
{
    const sim__size_runner *r = b->cfg->runner;
    sim__size_search_cfg sc;
    memset(&sc, 0, sizeof sc);
    sc.n_vary = r->n_vary;
    for (size_t k = 0; k < r->n_vary; k++)
        sc.max[k] = b->cfg->max_nodes;
    sc.demand = demand;
    sc.cost_as = SIM__SIZE_AS_OWNED;
    sc.eval = sim__size_runner_eval;
    sc.ud = b->cfg->runner;
    sc.cache = &b->cache;
    return sim__size_search(&sc, ans, b->diag);
}

static double cheapest(const sim__size_answer *a, int as, size_t *at)
{
    double best = INFINITY;
    for (size_t i = 0; i < a->n_frontier; i++) {
        double c = a->frontier[i].eval.usd_per_month[as];
        if (isfinite(c) && c < best) {
            best = c;
            if (at)
                *at = i;
        }
    }
    return isfinite(best) ? best : NAN;
}

static int point_at(be *b, double tokens, sim__be_point *pt)
{
    const sim_cost_cfg *c = sim_scenario_cost(b->cfg->runner->base);
    memset(pt, 0, sizeof *pt);
    pt->tokens_per_month = tokens;
    pt->demand = tokens / b->res->v0_tokens_per_month;
    pt->api_usd = b->api0 * pt->demand;
    sim__size_answer a;
    int rc = size_at(b, pt->demand, &a);
    if (rc != TM_OK)
        return rc;
    pt->found = a.found;
    if (!a.found) {
        for (int o = 0; o < SIM__BE_N_OPTIONS; o++)
            pt->usd[o] = NAN;
        pt->capex_usd = pt->own_opex_usd = pt->payback_months = pt->payback_vs_rent_months = NAN;
        pt->gpus = pt->alloc_util = pt->busy_util = pt->own_usd_per_useful_gpu_h = NAN;
        pt->slo_worst = NAN;
        sim__size_answer_fini(&a);
        return TM_OK;
    }
    size_t io = 0;
    pt->usd[SIM__BE_OWN] = cheapest(&a, SIM__SIZE_AS_OWNED, &io);
    pt->usd[SIM__BE_RENT] = cheapest(&a, SIM__SIZE_AS_RESERVED, NULL);
    pt->usd[SIM__BE_ONDEMAND] = cheapest(&a, SIM__SIZE_AS_ONDEMAND, NULL);
    const sim__size_eval *e = &a.frontier[io].eval;
    memcpy(pt->nodes, a.frontier[io].nodes, sizeof pt->nodes);
    pt->gpus = e->gpus;
    pt->capex_usd = e->capex_usd;
    pt->own_opex_usd = e->owned_opex_usd_per_month;
    pt->alloc_util = e->alloc_util;
    pt->busy_util = e->busy_util;
    double useful_h = e->busy_util * e->gpus * SIM_HOURS_PER_MONTH;
    pt->own_usd_per_useful_gpu_h = useful_h > 0 ? pt->usd[SIM__BE_OWN] / useful_h : NAN;
    pt->slo_worst = INFINITY;
    for (size_t i = 0; i < e->n_terms; i++)
        if (e->mean[i] < pt->slo_worst)
            pt->slo_worst = e->mean[i];
    double life = c->depreciation_years * 12;
    pt->payback_months = sim__be_payback_months(
        pt->capex_usd, pt->api_usd, c->api_price_factor_per_year, pt->own_opex_usd, life);
    pt->payback_vs_rent_months =
        sim__be_payback_months(pt->capex_usd, pt->usd[SIM__BE_RENT], 1, pt->own_opex_usd, life);
    sim__size_answer_fini(&a);
    return TM_OK;
}

/* Option o beats the API at pt. */
static int beats(const sim__be_point *pt, int o)
{
    return pt->found && isfinite(pt->usd[o]) && pt->usd[o] < pt->api_usd;
}

/* The crossing of option o inside (lo, hi]: bisection on log volume, then
 * linear interpolation of (option - API) between the last two volumes. */
static int crossing(be *b, int o, const sim__be_point *plo, const sim__be_point *phi, double *out)
{
    double lo = plo->tokens_per_month, hi = phi->tokens_per_month;
    double dlo = plo->found ? plo->usd[o] - plo->api_usd : NAN;
    double dhi = phi->usd[o] - phi->api_usd;
    for (uint32_t k = 0; k < b->cfg->refine; k++) {
        double mid = sqrt(lo * hi);
        sim__be_point pm;
        int rc = point_at(b, mid, &pm);
        if (rc != TM_OK)
            return rc;
        if (beats(&pm, o)) {
            hi = mid;
            dhi = pm.usd[o] - pm.api_usd;
        } else {
            lo = mid;
            dlo = pm.found ? pm.usd[o] - pm.api_usd : NAN;
        }
    }
    *out = isfinite(dlo) && dlo >= 0 && dlo - dhi > 0 ? lo + (hi - lo) * dlo / (dlo - dhi) : hi;
    return TM_OK;
}

/* The monthly cost of the fleet `nodes` priced as `own`, at busy = allocated
 * utilization u over a month in service (the accounting of cost.c on a
 * result built here). */
static int month_at_util(be *b, const uint32_t *nodes, sim_ownership own, double u, double *usd)
{
    const sim__size_runner *r = b->cfg->runner;
    const sim_scenario *base = r->base;
    sim_scenario s = *base;
    sim_result res;
    memset(&res, 0, sizeof res);
    s.pools = malloc((base->n_pools ? base->n_pools : 1) * sizeof *s.pools);
    res.pools = calloc(base->n_pools ? base->n_pools : 1, sizeof *res.pools);
    res.types = calloc(base->n_types ? base->n_types : 1, sizeof *res.types);
    res.classes = calloc(base->n_classes + 1, sizeof *res.classes);
    res.services = calloc(base->n_services ? base->n_services : 1, sizeof *res.services);
    int rc = TM_OK;
    if (!s.pools || !res.pools || !res.types || !res.classes || !res.services) {
        rc = tm_diag_set(b->diag, TM_ERR_NOMEM, "breakeven", "out of memory");
        goto out;
    }
    memcpy(s.pools, base->pools, base->n_pools * sizeof *s.pools);
    for (size_t k = 0; k < r->n_vary; k++)
        s.pools[r->vary[k]].nodes = nodes[k];
    double month_s = SIM_HOURS_PER_MONTH * 3600;
    res.t_end_us = (int64_t)llround(month_s * SIM_US_PER_S);
    res.n_pools = s.n_pools;
    res.n_types = s.n_types;
    res.n_classes = s.n_classes;
    res.n_services = s.n_services;
    for (size_t p = 0; p < s.n_pools; p++) {
        s.pools[p].ownership = own;
        s.pools[p].delivered_us = 0;
        s.pools[p].retired_us = -1;
        double up = (double)s.pools[p].nodes * s.pools[p].gpus_per_node * month_s;
        res.pools[p].up = up;
        res.pools[p].alloc = res.pools[p].busy = u * up;
        res.gpu_s_up += up;
        res.gpu_s_alloc += u * up;
        res.gpu_s_busy += u * up;
    }
    res.gpu_s_goodput = res.gpu_s_busy;
    sim__cost_report cr;
    if ((rc = sim__cost_account(&s, &res, &cr, b->diag)) == TM_OK) {
        *usd = cr.fleet_usd;
        sim__cost_report_fini(&cr);
    }
out:
    free(s.pools);
    sim_result_fini(&res);
    return rc;
}

/* Tokens (input + output) one useful GPU-hour of the first service serves on
 * the first searched pool's type: its rated work tokens per second at the
 * SLO per GPU, converted from work tokens to tokens. */
static double tokens_per_useful_gpu_h(const sim__size_runner *r)
{
    const sim_scenario *sc = r->base;
    const sim__svc_cfg *c = &sc->services[0].cfg;
    uint32_t t = sc->pools[r->vary[0]].type;
    double work = c->tokens_out_per_req + c->prefill_weight * c->tokens_in_per_req;
    if (!(c->tokens_per_s[t] > 0) || !(work > 0))
        return NAN;
    return c->tokens_per_s[t] / c->replica_gpus * 3600 *
           (c->tokens_in_per_req + c->tokens_out_per_req) / work;
}

static int utilization_curve(be *b)
{
    sim__be_result *res = b->res;
    const sim__be_point *ref = &res->ref;
    res->n_util = UTIL_STEPS;
    res->util = malloc(UTIL_STEPS * sizeof *res->util);
    res->own_usd_per_useful_h = malloc(UTIL_STEPS * sizeof *res->own_usd_per_useful_h);
    res->rent_usd_per_useful_h = malloc(UTIL_STEPS * sizeof *res->rent_usd_per_useful_h);
    res->api_usd_per_useful_h = malloc(UTIL_STEPS * sizeof *res->api_usd_per_useful_h);
    if (!res->util || !res->own_usd_per_useful_h || !res->rent_usd_per_useful_h ||
        !res->api_usd_per_useful_h)
        return tm_diag_set(b->diag, TM_ERR_NOMEM, "breakeven", "out of memory");
    res->tokens_per_useful_gpu_h = tokens_per_useful_gpu_h(b->cfg->runner);
    double api_h = res->tokens_per_useful_gpu_h * res->api_usd_per_mtok / 1e6;
    double gpu_h = ref->gpus * SIM_HOURS_PER_MONTH;
    double own0 = NAN, own1 = NAN, rent = NAN;
    int rc;
    if (ref->found) {
        if ((rc = month_at_util(b, ref->nodes, SIM_OWNED, 0, &own0)) ||
            (rc = month_at_util(b, ref->nodes, SIM_OWNED, 1, &own1)) ||
            (rc = month_at_util(b, ref->nodes, SIM_RESERVED, 0, &rent)))
            return rc;
    }
    for (size_t i = 0; i < UTIL_STEPS; i++) {
        double u = (double)(i + 1) / UTIL_STEPS;
        res->util[i] = u;
        /* own(u) is own0 + u (own1 - own0): idle draw while in service, busy
         * draw on top, everything else by the calendar hour */
        res->own_usd_per_useful_h[i] = (own0 + u * (own1 - own0)) / (u * gpu_h);
        res->rent_usd_per_useful_h[i] = rent / (u * gpu_h);
        res->api_usd_per_useful_h[i] = api_h;
    }
    /* own0 + u E = u G H P  =>  u = own0 / (G H P - E) */
    double uo = own0 / (gpu_h * api_h - (own1 - own0)), ur = rent / (gpu_h * api_h);
    res->util_beats[0] = uo > 0 && uo <= 1 ? uo : NAN;
    res->util_beats[1] = ur > 0 && ur <= 1 ? ur : NAN;
    return TM_OK;
}

int sim__be_run(const sim__be_cfg *cfg, sim__be_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    be b = {cfg, {0}, res, 0, diag};
    const sim__size_runner *r = cfg->runner;
    int rc;
    if (cfg->n_points < 2)
        return tm_diag_set(diag, TM_ERR_USAGE, "--volumes", "at least two volumes");
    /* the reference volume: the scenario's own fleet at its own load */
    uint32_t own_nodes[SIM__SIZE_MAX_VARY];
    for (size_t k = 0; k < r->n_vary; k++)
        own_nodes[k] = r->base->pools[r->vary[k]].nodes;
    sim__size_eval e0;
    if ((rc = sim__size_runner_eval(cfg->runner, own_nodes, 1.0, &e0, diag)) != TM_OK)
        goto fail;
    res->v0_tokens_per_month = e0.tokens_per_month;
    b.api0 = e0.api_list_usd_per_month;
    if (!(res->v0_tokens_per_month > 0)) {
        rc = tm_diag_set(diag, TM_ERR_SCENARIO, r->base->source,
                         "the services demand no tokens over the horizon: nothing to compare");
        goto fail;
    }
    if (!isfinite(b.api0)) {
        rc = tm_diag_set(diag, TM_ERR_SCENARIO, r->base->source,
                         "a service has no API price (give api_price, or cost.api)");
        goto fail;
    }
    res->api_usd_per_mtok = b.api0 / res->v0_tokens_per_month * 1e6;
    double lo =
        cfg->lo_tokens_per_month > 0 ? cfg->lo_tokens_per_month : res->v0_tokens_per_month / 100;
    double hi =
        cfg->hi_tokens_per_month > 0 ? cfg->hi_tokens_per_month : res->v0_tokens_per_month * 10;
    if (!(hi > lo)) {
        rc = tm_diag_set(diag, TM_ERR_USAGE, "--volumes",
                         "the highest volume must exceed the lowest");
        goto fail;
    }
    res->n_points = cfg->n_points;
    res->pts = calloc(cfg->n_points, sizeof *res->pts);
    if (!res->pts) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "breakeven", "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < cfg->n_points; i++) {
        double v = lo * pow(hi / lo, (double)i / (double)(cfg->n_points - 1));
        if ((rc = point_at(&b, v, &res->pts[i])) != TM_OK)
            goto fail;
    }
    for (int o = 0; o < SIM__BE_N_OPTIONS; o++) {
        res->beats_tokens_per_month[o] = NAN;
        for (size_t i = 0; i < cfg->n_points; i++) {
            if (!beats(&res->pts[i], o))
                continue;
            if (i == 0) {
                res->beats_at_bottom[o] = 1;
                res->beats_tokens_per_month[o] = res->pts[0].tokens_per_month;
            } else if ((rc = crossing(&b, o, &res->pts[i - 1], &res->pts[i],
                                      &res->beats_tokens_per_month[o])) != TM_OK) {
                goto fail;
            }
            break;
        }
    }
    if ((rc = point_at(&b, res->v0_tokens_per_month, &res->ref)) != TM_OK ||
        (rc = utilization_curve(&b)) != TM_OK)
        goto fail;
    res->fleets_simulated = b.cache.n;
    sim__size_cache_fini(&b.cache);
    return TM_OK;
fail:
    sim__size_cache_fini(&b.cache);
    sim__be_result_fini(res);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* the file                                                                   */

static int write_scalars(sim__h5w *w, const sim__be_result *res, tm_diag *diag)
{
    const struct {
        const char *name;
        double v;
        const char *units, *desc;
    } f[] = {
        {"tokens_per_month_scenario", res->v0_tokens_per_month, "1/month",
         "tokens (input + output) the scenario's services demand per month"},
        {"api_usd_per_mtok", res->api_usd_per_mtok, "USD",
         "the API price per million of those tokens, blended over the services"},
        {"own_beats_api_tokens_per_month", res->beats_tokens_per_month[SIM__BE_OWN], "1/month",
         "the volume from which owning a fleet sized for it costs less than the API; NaN never "
         "in the range"},
        {"rent_beats_api_tokens_per_month", res->beats_tokens_per_month[SIM__BE_RENT], "1/month",
         "... renting it reserved"},
        {"ondemand_beats_api_tokens_per_month", res->beats_tokens_per_month[SIM__BE_ONDEMAND],
         "1/month", "... renting on demand, paying the replicas' allocated hours"},
        {"payback_months", res->ref.payback_months, "month",
         "at the scenario's volume: months until the owned fleet's capex is paid back by the "
         "API bill it avoids, less its running costs; NaN not within the depreciation life"},
        {"payback_vs_rent_months", res->ref.payback_vs_rent_months, "month",
         "... by the reserved rent it avoids"},
        {"own_beats_api_utilization", res->util_beats[0], "1",
         "busy utilization from which the fleet sized for the scenario's volume, owned, costs "
         "less per useful GPU-hour than the API for its tokens; NaN above 1"},
        {"rent_beats_api_utilization", res->util_beats[1], "1", "... rented reserved"},
        {"tokens_per_useful_gpu_hour", res->tokens_per_useful_gpu_h, "1/h",
         "tokens one useful GPU-hour serves (the first service on the first pool's type)"},
    };
    char p[128];
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        snprintf(p, sizeof p, "/breakeven/%s", f[i].name);
        int rc = sim__h5w_scalar_f64(w, p, f[i].v, f[i].units, f[i].desc, diag);
        if (rc)
            return rc;
    }
    return TM_OK;
}

enum {
    B_TOK,
    B_API,
    B_OWN,
    B_RENT,
    B_OD,
    B_GPUS,
    B_CAPEX,
    B_OPEX,
    B_PAYBACK,
    B_PAYBACK_RENT,
    B_ALLOC,
    B_BUSY,
    B_OWN_USEFUL,
    B_SLO,
    B_NCOLS
};

static const sim__h5_col vol_cols[B_NCOLS] = {
    {"tokens_per_month", SIM__H5_F64, "1/month", "monthly token volume (input + output)"},
    {"api_usd_per_month", SIM__H5_F64, "USD/month", "those tokens at the services' API prices"},
    {"own_usd_per_month", SIM__H5_F64, "USD/month",
     "the cheapest fleet meeting the SLOs at this volume, owned; NaN none within --max-nodes"},
    {"rent_usd_per_month", SIM__H5_F64, "USD/month", "... rented reserved (calendar hours)"},
    {"ondemand_usd_per_month", SIM__H5_F64, "USD/month",
     "... rented on demand (the replicas' allocated hours)"},
    {"gpus", SIM__H5_F64, "GPU", "GPUs of the owned option's fleet"},
    {"own_capex_usd", SIM__H5_F64, "USD", "its purchase"},
    {"own_opex_usd_per_month", SIM__H5_F64, "USD/month",
     "its running costs: energy, colocation, maintenance, staff"},
    {"payback_months", SIM__H5_F64, "month",
     "months until the capex is paid back by the API bill avoided less the running costs; NaN "
     "not within the depreciation life"},
    {"payback_vs_rent_months", SIM__H5_F64, "month", "... by the reserved rent avoided"},
    {"alloc_util", SIM__H5_F64, "1", "allocation utilization the owned fleet achieved"},
    {"busy_util", SIM__H5_F64, "1", "busy utilization it achieved"},
    {"own_usd_per_useful_gpu_hour", SIM__H5_F64, "USD/h",
     "own_usd_per_month / busy GPU-hours per month"},
    {"slo_attainment", SIM__H5_F64, "1", "the worst service's SLO attainment (mean)"},
};

static int write_volume(sim__h5w *w, const sim__be_result *res, tm_diag *diag)
{
    size_t n = res->n_points;
    double *d = malloc(B_NCOLS * (n ? n : 1) * sizeof *d);
    if (!d)
        return tm_diag_set(diag, TM_ERR_NOMEM, "breakeven", "out of memory");
    const void *cols[B_NCOLS];
    for (size_t k = 0; k < B_NCOLS; k++)
        cols[k] = d + k * n;
    for (size_t i = 0; i < n; i++) {
        const sim__be_point *p = &res->pts[i];
        const double v[B_NCOLS] = {p->tokens_per_month,
                                   p->api_usd,
                                   p->usd[SIM__BE_OWN],
                                   p->usd[SIM__BE_RENT],
                                   p->usd[SIM__BE_ONDEMAND],
                                   p->gpus,
                                   p->capex_usd,
                                   p->own_opex_usd,
                                   p->payback_months,
                                   p->payback_vs_rent_months,
                                   p->alloc_util,
                                   p->busy_util,
                                   p->own_usd_per_useful_gpu_h,
                                   p->slo_worst};
        for (size_t k = 0; k < B_NCOLS; k++)
            d[k * n + i] = v[k];
    }
    sim__h5t *t = NULL;
    int rc;
    if ((rc = sim__h5t_create(&t, w, "/breakeven/volume",
                              "one row per monthly token volume (log-spaced)", vol_cols, B_NCOLS,
                              diag)) == TM_OK &&
        (rc = sim__h5t_dim(t, "volume", "/breakeven/volume/tokens_per_month",
                           "the volumes: monthly tokens (a copy of tokens_per_month)", diag)) ==
            TM_OK &&
        (rc = sim__h5t_append(t, cols, n, diag)) == TM_OK)
        rc = sim__h5t_close(t, diag);
    free(d);
    return rc;
}

static int write_fleets(sim__h5w *w, const sim_scenario *sc, const sim__be_cfg *cfg,
                        const sim__be_result *res, tm_diag *diag)
{
    const sim__size_runner *r = cfg->runner;
    size_t n = res->n_points * r->n_vary;
    int64_t *pt = malloc((n ? n : 1) * sizeof *pt);
    int32_t *pool = malloc((n ? n : 1) * sizeof *pool);
    double *nodes = malloc((n ? n : 1) * sizeof *nodes);
    const char *names[SIM__SIZE_MAX_VARY];
    int rc;
    if (!pt || !pool || !nodes) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "breakeven", "out of memory");
        goto out;
    }
    for (size_t k = 0; k < r->n_vary; k++)
        names[k] = sc->pools[r->vary[k]].name;
    for (size_t i = 0; i < res->n_points; i++)
        for (size_t k = 0; k < r->n_vary; k++) {
            size_t j = i * r->n_vary + k;
            pt[j] = (int64_t)i;
            pool[j] = (int32_t)k;
            nodes[j] = res->pts[i].found ? (double)res->pts[i].nodes[k] : (double)NAN;
        }
    static const sim__h5_col cols[3] = {
        {"point", SIM__H5_I64, "1", "row of /breakeven/volume"},
        {"pool", SIM__H5_I32, "1", "searched pool (attribute 'labels': the pool names)"},
        {"nodes", SIM__H5_F64, "1", "nodes of the owned option's fleet; NaN none found"},
    };
    const void *cv[3] = {pt, pool, nodes};
    sim__h5t *t = NULL;
    if ((rc = sim__h5t_create(&t, w, "/breakeven/fleet",
                              "the owned option's fleet at each volume, one row per (volume, pool)",
                              cols, 3, diag)) ||
        (rc = sim__h5t_dim(t, "volume_pool", NULL,
                           "one per (volume, searched pool), volume-major (no values)", diag)) ||
        (rc = sim__h5t_append(t, cv, n, diag)) || (rc = sim__h5t_close(t, diag)))
        goto out;
    rc = sim__h5w_labels(w, "/breakeven/fleet/pool", names, r->n_vary, diag);
out:
    free(pt);
    free(pool);
    free(nodes);
    return rc;
}

static int write_util(sim__h5w *w, const sim__be_result *res, tm_diag *diag)
{
    static const sim__h5_col cols[4] = {
        {"utilization", SIM__H5_F64, "1", "busy utilization of the fleet sized for the scenario"},
        {"own_usd_per_useful_gpu_hour", SIM__H5_F64, "USD/h",
         "owned: its monthly cost at that utilization / useful (busy) GPU-hours"},
        {"rent_usd_per_useful_gpu_hour", SIM__H5_F64, "USD/h", "rented reserved: the same"},
        {"api_usd_per_useful_gpu_hour", SIM__H5_F64, "USD/h",
         "the API price of the tokens one useful GPU-hour serves"},
    };
    const void *cv[4] = {res->util, res->own_usd_per_useful_h, res->rent_usd_per_useful_h,
                         res->api_usd_per_useful_h};
    sim__h5t *t = NULL;
    int rc;
    if ((rc = sim__h5t_create(&t, w, "/breakeven/utilization",
                              "cost per useful GPU-hour against busy utilization", cols, 4,
                              diag)) == TM_OK &&
        (rc = sim__h5t_dim(t, "busy_utilization", "/breakeven/utilization/utilization",
                           "the busy utilizations (a copy of utilization)", diag)) == TM_OK &&
        (rc = sim__h5t_append(t, cv, res->n_util, diag)) == TM_OK)
        rc = sim__h5t_close(t, diag);
    return rc;
}

int sim__be_write(const char *path, const sim_scenario *sc, const sim__be_cfg *cfg,
                  const sim__be_result *res, tm_diag *diag)
{
    sim__h5w *w = NULL;
    int rc = sim__h5w_open(&w, path, diag);
    if (rc != TM_OK)
        return rc;
    char *params = sim__scenario_cost_json(sc);
    if (!params) {
        sim__h5w_abort(w);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    const sim__size_runner *r = cfg->runner;
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", 1, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#breakeven-files", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "breakeven", diag)) ||
        (rc = write_scalars(w, res, diag)) || (rc = write_volume(w, res, diag)) ||
        (rc = write_fleets(w, sc, cfg, res, diag)) || (rc = write_util(w, res, diag)) ||
        (rc = sim__h5w_scalar_str(w, "/breakeven/cost_parameters", params,
                                  "the cost model with every default filled in (JSON; "
                                  "docs/cost.md)",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/breakeven/replications", (int64_t)r->replications, "1",
                                  "runs per candidate fleet", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/breakeven/fleets_simulated", (int64_t)res->fleets_simulated,
                                  "1", "distinct (fleet, volume) pairs simulated", diag)) ||
        (rc = sim__provenance_write(w, sc, NULL, diag))) {
        free(params);
        sim__h5w_abort(w);
        return rc;
    }
    free(params);
    return sim__h5w_commit(w, diag);
}
