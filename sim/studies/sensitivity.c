/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sensitivity.c — one-at-a-time sensitivity of the cost to the main inputs
 * (the method and the API: sensitivity_int.h; docs/cost.md "Sensitivity").
 */
#include "studies/sensitivity_int.h"

#include "config/config.h"
#include "model/cost_int.h"
#include "model/service_int.h"
#include "studies/compare_int.h"
#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const input_keys[SIM__SENS_N_INPUTS] = {
    "gpu_price", "power_price", "api_price", "staff_cost", "utilization_target", "growth_rate"};
static const char *const input_labels[SIM__SENS_N_INPUTS] = {
    "GPU price", "power price", "API price", "staff cost", "utilization target", "growth rate"};
static const char *const input_units[SIM__SENS_N_INPUTS] = {"USD/GPU",      "USD/kWh", "USD/Mtok",
                                                            "USD/FTE-year", "1",       "1/month"};
static const char *const output_keys[SIM__SENS_N_OUTPUTS] = {"usd_per_useful_gpu_h",
                                                             "usd_per_month"};
static const char *const output_units[SIM__SENS_N_OUTPUTS] = {"USD/h", "USD/month"};
static const char *const output_labels[SIM__SENS_N_OUTPUTS] = {"cost per useful GPU-hour (USD)",
                                                               "cost per month (USD)"};

const char *sim__sens_input_key(int i)
{
    return i >= 0 && i < SIM__SENS_N_INPUTS ? input_keys[i] : "?";
}
const char *sim__sens_input_label(int i)
{
    return i >= 0 && i < SIM__SENS_N_INPUTS ? input_labels[i] : "?";
}
const char *sim__sens_output_key(int o)
{
    return o >= 0 && o < SIM__SENS_N_OUTPUTS ? output_keys[o] : "?";
}
const char *sim__sens_output_label(int o)
{
    return o >= 0 && o < SIM__SENS_N_OUTPUTS ? output_labels[o] : "?";
}

/* A scenario with some inputs moved: shallow copies of the parts changed. */
typedef struct moved {
    sim_scenario sc;
    sim_cost_cfg cost;
    sim_gpu_type *types;
    sim_class_cfg *classes;
    sim_service_spec *services;
} moved;

static void moved_fini(moved *m)
{
    free(m->types);
    free(m->classes);
    free(m->services);
}

static int has_owned(const sim_scenario *sc)
{
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].ownership == SIM_OWNED && sc->pools[p].nodes > 0)
            return 1;
    return 0;
}

static int first_owned_type(const sim_scenario *sc)
{
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].ownership == SIM_OWNED && sc->pools[p].nodes > 0)
            return (int)sc->pools[p].type;
    return -1;
}

static double first_growth(const sim_scenario *sc)
{
    for (size_t k = 0; k < sc->n_classes; k++)
        if (sc->classes[k].arrival.growth_per_month != 0)
            return sc->classes[k].arrival.growth_per_month;
    for (size_t s = 0; s < sc->n_services; s++)
        if (sc->services[s].cfg.load.growth_per_month != 0)
            return sc->services[s].cfg.load.growth_per_month;
    return 0;
}

/* Is input i in the scenario, and its representative base value. */
static int input_present(const sim_scenario *sc, int i, double *value)
{
    const sim_cost_cfg *c = sim_scenario_cost(sc);
    *value = NAN;
    switch (i) {
    case SIM__SENS_GPU_PRICE: {
        int t = first_owned_type(sc);
        if (t < 0)
            return 0;
        *value = isfinite(c->server_usd_per_gpu[t]) ? c->server_usd_per_gpu[t]
                                                    : sc->types[t].purchase_usd;
        return isfinite(*value) && *value > 0;
    }
    case SIM__SENS_POWER_PRICE:
        *value = c->electricity_usd_per_kwh;
        return has_owned(sc) && *value > 0;
    case SIM__SENS_STAFF_COST:
        *value = c->staff_usd_per_fte_year;
        return has_owned(sc) && *value > 0;
    case SIM__SENS_API_PRICE: {
        if (sc->n_services == 0 && c->n_batch == 0)
            return 0;
        double pin = NAN, pout;
        int api;
        if (sc->n_services)
            sim__cost_service_price(sc, 0, &pin, &pout, &api);
        else if (c->batch[0].api >= 0 && (size_t)c->batch[0].api < c->n_api)
            pin = c->api[c->batch[0].api].in_usd_per_mtok;
        *value = pin;
        return 1;
    }
    case SIM__SENS_UTIL_TARGET:
        if (sc->n_services == 0)
            return 0;
        *value = sc->services[0].cfg.target_util;
        return 1;
    case SIM__SENS_GROWTH:
        *value = first_growth(sc);
        if (*value == 0) {
            *value = NAN;
            return 0;
        }
        return 1;
    }
    return 0;
}

static double clamp_growth(double g)
{
    return g > -0.99 ? g : -0.99;
}

/* m: sc with input i times f. */
static int move_input(const sim_scenario *sc, int i, double f, moved *m, tm_diag *diag)
{
    memset(m, 0, sizeof *m);
    m->sc = *sc;
    m->cost = *sim_scenario_cost(sc);
    m->sc.cost = &m->cost;
    sim_cost_cfg *c = &m->cost;
    switch (i) {
    case SIM__SENS_GPU_PRICE:
        m->types = malloc((sc->n_types ? sc->n_types : 1) * sizeof *m->types);
        if (!m->types)
            return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
        memcpy(m->types, sc->types, sc->n_types * sizeof *m->types);
        for (size_t t = 0; t < sc->n_types; t++) {
            m->types[t].purchase_usd *= f;
            if (t < PLACE_MAX_TYPES && isfinite(c->server_usd_per_gpu[t]))
                c->server_usd_per_gpu[t] *= f;
        }
        m->sc.types = m->types;
        break;
    case SIM__SENS_POWER_PRICE:
        c->electricity_usd_per_kwh *= f;
        break;
    case SIM__SENS_STAFF_COST:
        c->staff_usd_per_fte_year *= f;
        break;
    case SIM__SENS_API_PRICE:
        for (size_t k = 0; k < c->n_api; k++) {
            c->api[k].in_usd_per_mtok *= f;
            c->api[k].out_usd_per_mtok *= f;
        }
        if (sc->n_services == 0)
            break;
        /* the services' own prices are in their specs: below */
        goto services;
    case SIM__SENS_UTIL_TARGET:
    services:
        if (sc->n_services) {
            m->services = malloc(sc->n_services * sizeof *m->services);
            if (!m->services)
                return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
            memcpy(m->services, sc->services, sc->n_services * sizeof *m->services);
            for (size_t s = 0; s < sc->n_services; s++) {
                sim_service_spec *v = &m->services[s];
                if (i == SIM__SENS_API_PRICE) {
                    v->api_in_usd_per_mtok *= f;
                    v->api_out_usd_per_mtok *= f;
                } else {
                    double u = v->cfg.target_util * f;
                    v->cfg.target_util = u < 1 ? u : 1;
                    u = v->special.target_util * f;
                    v->special.target_util = u < 1 ? u : 1;
                }
            }
            m->sc.services = m->services;
        }
        break;
    case SIM__SENS_GROWTH:
        if (sc->n_classes) {
            m->classes = malloc(sc->n_classes * sizeof *m->classes);
            if (!m->classes)
                return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
            memcpy(m->classes, sc->classes, sc->n_classes * sizeof *m->classes);
            for (size_t k = 0; k < sc->n_classes; k++)
                m->classes[k].arrival.growth_per_month =
                    clamp_growth(m->classes[k].arrival.growth_per_month * f);
            m->sc.classes = m->classes;
        }
        if (sc->n_services) {
            m->services = malloc(sc->n_services * sizeof *m->services);
            if (!m->services)
                return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
            memcpy(m->services, sc->services, sc->n_services * sizeof *m->services);
            for (size_t s = 0; s < sc->n_services; s++) {
                sim_service_spec *v = &m->services[s];
                v->cfg.load.growth_per_month = clamp_growth(v->cfg.load.growth_per_month * f);
                v->special.load.growth_per_month =
                    clamp_growth(v->special.load.growth_per_month * f);
            }
            m->sc.services = m->services;
        }
        break;
    }
    return TM_OK;
}

static int outputs_of(const sim_scenario *sc, const sim_result *r, double out[SIM__SENS_N_OUTPUTS],
                      tm_diag *diag)
{
    sim__cost_report c;
    int rc = sim__cost_account(sc, r, &c, diag);
    if (rc != TM_OK)
        return rc;
    out[SIM__SENS_USD_PER_USEFUL_GPU_H] = c.usd_per_work_ref_gpu_h;
    out[SIM__SENS_USD_PER_MONTH] = c.usd_per_month;
    sim__cost_report_fini(&c);
    return TM_OK;
}

static const char *const be_state_keys[SIM__SENS_BE_N_STATES] = {"none", "crosses", "at_lowest",
                                                                 "never"};
static const char *const size_state_keys[SIM__SENS_SIZE_N_STATES] = {"none", "found", "not_found",
                                                                     "unchanged"};

const char *sim__sens_be_state_key(int s)
{
    return s >= 0 && s < SIM__SENS_BE_N_STATES ? be_state_keys[s] : "?";
}
const char *sim__sens_size_state_key(int s)
{
    return s >= 0 && s < SIM__SENS_SIZE_N_STATES ? size_state_keys[s] : "?";
}

static int run_one(const sim__sens_cfg *cfg, const sim_scenario *sc, const char *what, uint32_t rep,
                   sim_result *r, sim__sens_result *res, tm_diag *diag)
{
    sim_run_opts opts = {.replication = rep, .stop_flag = cfg->stop};
    int rc = sim_run(sc, &opts, NULL, r, diag);
    if (rc == TM_OK) {
        res->runs++;
        if (cfg->log)
            fprintf(cfg->log, "sensitivity: ran %s, replication %u (%.1f s)\n", what, rep,
                    r->wall_s);
    }
    return rc;
}

void sim__sens_sort(sim__sens_row *rows, size_t n)
{
    /* insertion sort: stable, n is 6 */
    for (size_t i = 1; i < n; i++) {
        sim__sens_row x = rows[i];
        size_t j = i;
        while (j > 0 && rows[j - 1].swing < x.swing) {
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = x;
    }
}

void sim__sens_result_fini(sim__sens_result *res)
{
    if (!res)
        return;
    free(res->base_reps);
    for (size_t i = 0; i < SIM__SENS_N_INPUTS; i++)
        free(res->rows[i].reps);
    memset(res, 0, sizeof *res);
}

/* where replication r of output o at end `side` is in a row's reps */
static size_t rep_at(int side, int o, uint32_t R, uint32_t r)
{
    return ((size_t)side * SIM__SENS_N_OUTPUTS + (size_t)o) * R + r;
}

/* mean and 95 % interval of x[0 .. n-1] */
static void stat_of(const double *x, size_t n, double *mean, double ci[2])
{
    double sd;
    sim__stat_interval(x, n, 1, sim__t_quantile(0.95, n), mean, &sd, &ci[0], &ci[1]);
    if (n < 2)
        ci[0] = ci[1] = NAN;
}

/* The breakeven of scenario sc (services only) with a copy of the runner. */
static int be_at(const sim__sens_cfg *cfg, const sim_scenario *sc, const char *what,
                 sim__sens_be *out, tm_diag *diag)
{
    sim_scenario svc = *sc; /* shallow: the services alone, as `tarmac breakeven` */
    svc.n_classes = 0;
    sim__size_runner run = *cfg->be_runner;
    run.base = &svc;
    run.runs = run.events = 0;
    sim__be_cfg bc = *cfg->be_cfg;
    bc.runner = &run;
    sim__be_result r;
    if (cfg->log)
        fprintf(cfg->log, "sensitivity: breakeven at %s\n", what);
    int rc = sim__be_run(&bc, &r, diag);
    if (rc != TM_OK)
        return rc;
    memset(out, 0, sizeof *out);
    out->v0_tokens_per_month = r.v0_tokens_per_month;
    out->fleets_simulated = r.fleets_simulated;
    if (r.n_points > 0) {
        out->lo_tokens_per_month = r.pts[0].tokens_per_month;
        out->hi_tokens_per_month = r.pts[r.n_points - 1].tokens_per_month;
    }
    out->tokens_per_month = r.beats_tokens_per_month[SIM__BE_OWN];
    const sim__be_point *end = NULL;
    if (r.beats_at_bottom[SIM__BE_OWN]) {
        out->state = SIM__SENS_BE_AT_BOTTOM;
        end = r.n_points ? &r.pts[0] : NULL;
    } else if (isfinite(out->tokens_per_month)) {
        out->state = SIM__SENS_BE_CROSSES;
    } else {
        out->state = SIM__SENS_BE_NEVER;
        end = r.n_points ? &r.pts[r.n_points - 1] : NULL;
    }
    out->own_usd = end ? end->usd[SIM__BE_OWN] : NAN;
    out->api_usd = end ? end->api_usd : NAN;
    sim__be_result_fini(&r);
    return TM_OK;
}

/* The size of scenario sc with a copy of the runner. */
static int size_at(const sim__sens_cfg *cfg, const sim_scenario *sc, const char *what,
                   sim__sens_size *out, tm_diag *diag)
{
    sim__size_runner run = *cfg->size_runner;
    run.base = sc;
    run.runs = run.events = 0;
    sim__size_search_cfg sc_cfg;
    memset(&sc_cfg, 0, sizeof sc_cfg);
    sc_cfg.n_vary = run.n_vary;
    for (size_t k = 0; k < run.n_vary; k++)
        sc_cfg.max[k] = cfg->size_max_nodes ? cfg->size_max_nodes : 1024;
    /* the load bound, where `tarmac size` starts from */
    sim__size_load_floor_why(&run, sc_cfg.max, 1, sc_cfg.floor, NULL);
    sc_cfg.demand = 1;
    sc_cfg.cost_as = SIM__SIZE_AS_GIVEN;
    sc_cfg.eval = sim__size_runner_eval;
    sc_cfg.ud = &run;
    sim__size_cache cache = {0};
    sc_cfg.cache = &cache;
    if (cfg->log)
        fprintf(cfg->log, "sensitivity: size at %s\n", what);
    sim__size_answer ans;
    int rc = sim__size_search(&sc_cfg, &ans, diag);
    sim__size_cache_fini(&cache);
    if (rc != TM_OK)
        return rc;
    memset(out, 0, sizeof *out);
    out->state = ans.found ? SIM__SENS_SIZE_FOUND : SIM__SENS_SIZE_NOT_FOUND;
    memcpy(out->nodes, ans.best.nodes, sizeof out->nodes);
    out->gpus = ans.best.eval.gpus;
    out->usd_per_month = ans.best.eval.usd_per_month[SIM__SIZE_AS_GIVEN];
    out->reps_meeting = ans.best.eval.reps_meeting;
    out->replications = ans.best.eval.replications;
    out->evaluations = ans.evaluations;
    sim__size_answer_fini(&ans);
    return TM_OK;
}

/* Base (replication rep) accounted into res, and every present price input
 * re-accounted at both ends into its rows' reps. */
static int base_rep(const sim__sens_cfg *cfg, uint32_t rep, sim__sens_result *res, tm_diag *diag)
{
    const sim_scenario *sc = cfg->sc;
    uint32_t R = res->replications;
    sim_result base;
    int rc = run_one(cfg, sc, "the base", rep, &base, res, diag);
    if (rc != TM_OK)
        return rc;
    sim__cost_report c;
    if ((rc = sim__cost_account(sc, &base, &c, diag)) != TM_OK) {
        sim_result_fini(&base);
        return rc;
    }
    res->base_reps[SIM__SENS_USD_PER_USEFUL_GPU_H * R + rep] = c.usd_per_work_ref_gpu_h;
    res->base_reps[SIM__SENS_USD_PER_MONTH * R + rep] = c.usd_per_month;
    for (size_t p = 0; p < c.n_pools; p++) {
        res->depreciation_usd += c.pools[p].depreciation_usd / R;
        res->capital_usd += c.pools[p].capital_usd / R;
        res->maintenance_usd += c.pools[p].maintenance_usd / R;
        res->colocation_usd += c.pools[p].colocation_usd / R;
        res->staff_usd += c.pools[p].staff_usd / R;
        res->energy_usd += c.pools[p].energy_usd / R;
    }
    res->fleet_usd += c.fleet_usd / R;
    res->api_usd += c.api_usd / R;
    res->hours = c.hours;
    sim__cost_report_fini(&c);
    for (int i = 0; i < SIM__SENS_N_INPUTS && rc == TM_OK; i++) {
        sim__sens_row *row = &res->rows[i];
        if (!row->present || row->resimulated)
            continue;
        for (int side = 0; side < 2 && rc == TM_OK; side++) {
            moved m;
            double out[SIM__SENS_N_OUTPUTS];
            if ((rc = move_input(sc, i, side ? 1 + cfg->delta : 1 - cfg->delta, &m, diag)) == TM_OK)
                rc = outputs_of(&m.sc, &base, out, diag);
            moved_fini(&m);
            for (int o = 0; o < SIM__SENS_N_OUTPUTS && rc == TM_OK; o++)
                row->reps[rep_at(side, o, R, rep)] = out[o];
        }
    }
    sim_result_fini(&base);
    return rc;
}

static int sens_run(const sim__sens_cfg *cfg, sim__sens_result *res, tm_diag *diag)
{
    const sim_scenario *sc = cfg->sc;
    uint32_t R = res->replications;
    int rc = TM_OK;
    res->base_reps = malloc(SIM__SENS_N_OUTPUTS * R * sizeof *res->base_reps);
    if (!res->base_reps)
        return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
    for (int i = 0; i < SIM__SENS_N_INPUTS; i++) {
        sim__sens_row *row = &res->rows[i];
        row->input = i;
        row->unit = input_units[i];
        row->resimulated = i == SIM__SENS_UTIL_TARGET || i == SIM__SENS_GROWTH;
        row->present = input_present(sc, i, &row->base_value);
        row->low_value = row->high_value = NAN;
        for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++)
            row->low[o] = row->high[o] = row->low_ci[o][0] = row->low_ci[o][1] =
                row->high_ci[o][0] = row->high_ci[o][1] = NAN;
        row->swing = -1;
        if (!row->present)
            continue;
        row->reps = malloc(2 * SIM__SENS_N_OUTPUTS * R * sizeof *row->reps);
        if (!row->reps)
            return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
        for (int side = 0; side < 2; side++) {
            moved m;
            double v;
            if ((rc = move_input(sc, i, side ? 1 + cfg->delta : 1 - cfg->delta, &m, diag)) ==
                TM_OK) {
                input_present(&m.sc, i, &v);
                *(side ? &row->high_value : &row->low_value) = v;
            }
            moved_fini(&m);
            if (rc != TM_OK)
                return rc;
        }
    }
    /* the base, and the prices re-accounted from it, replication by
     * replication (one result held at a time) */
    for (uint32_t r = 0; r < R; r++)
        if ((rc = base_rep(cfg, r, res, diag)) != TM_OK)
            return rc;
    /* the simulated inputs: every replication at each end */
    for (int i = 0; i < SIM__SENS_N_INPUTS; i++) {
        sim__sens_row *row = &res->rows[i];
        if (!row->present || !row->resimulated)
            continue;
        for (int side = 0; side < 2; side++) {
            double f = side ? 1 + cfg->delta : 1 - cfg->delta;
            moved m;
            if ((rc = move_input(sc, i, f, &m, diag)) != TM_OK) {
                moved_fini(&m);
                return rc;
            }
            char what[96];
            snprintf(what, sizeof what, "%s x %.3g", input_labels[i], f);
            for (uint32_t r = 0; r < R && rc == TM_OK; r++) {
                sim_result run;
                double out[SIM__SENS_N_OUTPUTS];
                if ((rc = run_one(cfg, &m.sc, what, r, &run, res, diag)) != TM_OK)
                    break;
                rc = outputs_of(&m.sc, &run, out, diag);
                sim_result_fini(&run);
                for (int o = 0; o < SIM__SENS_N_OUTPUTS && rc == TM_OK; o++)
                    row->reps[rep_at(side, o, R, r)] = out[o];
            }
            moved_fini(&m);
            if (rc != TM_OK)
                return rc;
        }
    }
    /* means and intervals */
    for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++)
        stat_of(res->base_reps + rep_at(0, o, R, 0), R, &res->base[o], res->base_ci[o]);
    for (int i = 0; i < SIM__SENS_N_INPUTS; i++) {
        sim__sens_row *row = &res->rows[i];
        if (!row->present)
            continue;
        for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++) {
            stat_of(row->reps + rep_at(0, o, R, 0), R, &row->low[o], row->low_ci[o]);
            stat_of(row->reps + rep_at(1, o, R, 0), R, &row->high[o], row->high_ci[o]);
        }
        double s = fabs(row->high[0] - row->low[0]);
        row->swing = isfinite(s) ? s : 0;
    }
    /* breakeven: the base and both ends of every input present */
    if (cfg->be_runner && cfg->be_cfg) {
        if ((rc = be_at(cfg, sc, "the base", &res->base_be, diag)) != TM_OK)
            return rc;
        for (int i = 0; i < SIM__SENS_N_INPUTS; i++) {
            sim__sens_row *row = &res->rows[i];
            for (int side = 0; side < 2 && row->present; side++) {
                double f = side ? 1 + cfg->delta : 1 - cfg->delta;
                char what[96];
                snprintf(what, sizeof what, "%s x %.3g", input_labels[i], f);
                moved m;
                if ((rc = move_input(sc, i, f, &m, diag)) == TM_OK)
                    rc = be_at(cfg, &m.sc, what, &row->be[side], diag);
                moved_fini(&m);
                if (rc != TM_OK)
                    return rc;
            }
        }
    }
    /* size: the base and both ends of the simulated inputs; a price moves
     * no fleet */
    if (cfg->size_runner) {
        if ((rc = size_at(cfg, sc, "the base", &res->base_size, diag)) != TM_OK)
            return rc;
        for (int i = 0; i < SIM__SENS_N_INPUTS; i++) {
            sim__sens_row *row = &res->rows[i];
            for (int side = 0; side < 2 && row->present; side++) {
                if (!row->resimulated) {
                    row->size[side] = res->base_size;
                    row->size[side].state = SIM__SENS_SIZE_UNCHANGED;
                    row->size[side].usd_per_month = NAN; /* its cost moves; not searched */
                    continue;
                }
                double f = side ? 1 + cfg->delta : 1 - cfg->delta;
                char what[96];
                snprintf(what, sizeof what, "%s x %.3g", input_labels[i], f);
                moved m;
                if ((rc = move_input(sc, i, f, &m, diag)) == TM_OK)
                    rc = size_at(cfg, &m.sc, what, &row->size[side], diag);
                moved_fini(&m);
                if (rc != TM_OK)
                    return rc;
            }
        }
    }
    return TM_OK;
}

int sim__sens_run(const sim__sens_cfg *cfg, sim__sens_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    if (!(cfg->delta > 0 && cfg->delta < 1))
        return tm_diag_set(diag, TM_ERR_INVAL, "sensitivity", "delta %g is not in (0, 1)",
                           cfg->delta);
    res->replications = cfg->replications ? cfg->replications : 1;
    int rc = sens_run(cfg, res, diag);
    if (rc != TM_OK) {
        sim__sens_result_fini(res);
        return rc;
    }
    sim__sens_sort(res->rows, SIM__SENS_N_INPUTS);
    return TM_OK;
}

/* The replications: intervals and every replication's value. */
static int write_reps(sim__h5w *w, const sim__sens_cfg *cfg, const sim__sens_result *res,
                      tm_diag *diag)
{
    (void)cfg;
    enum { N = SIM__SENS_N_INPUTS };
    uint32_t R = res->replications;
    double *m = malloc((size_t)N * R * sizeof *m);
    if (!m)
        return tm_diag_set(diag, TM_ERR_NOMEM, "sensitivity", "out of memory");
    int rc = sim__h5w_scalar_i64(w, "/sensitivity/replications", (int64_t)R, "1",
                                 "replications at the base and at every simulated end (each end "
                                 "is their mean)",
                                 diag);
    char p[160], d[256];
    for (int o = 0; o < SIM__SENS_N_OUTPUTS && rc == TM_OK; o++) {
        for (int side = 0; side < 2 && rc == TM_OK; side++) {
            const char *sn = side ? "high" : "low";
            for (int b = 0; b < 2 && rc == TM_OK; b++) {
                double v[N];
                for (size_t i = 0; i < N; i++)
                    v[i] = side ? res->rows[i].high_ci[o][b] : res->rows[i].low_ci[o][b];
                snprintf(p, sizeof p, "/sensitivity/%s_%s_ci_%s", output_keys[o], sn,
                         b ? "hi" : "lo");
                snprintf(d, sizeof d,
                         "%s bound of the 95 %% Student-t interval of the mean %s_%s over the "
                         "replications; NaN with one replication or an absent input",
                         b ? "upper" : "lower", output_keys[o], sn);
                rc = sim__h5w_array_f64(w, p, v, N, output_units[o], d, diag);
            }
            for (size_t i = 0; i < N && rc == TM_OK; i++)
                for (uint32_t r = 0; r < R; r++)
                    m[i * R + r] =
                        res->rows[i].reps ? res->rows[i].reps[rep_at(side, o, R, r)] : NAN;
            snprintf(p, sizeof p, "/sensitivity/%s_%s_reps", output_keys[o], sn);
            snprintf(d, sizeof d,
                     "%s_%s of every replication (row: input, column: replication; NaN absent)",
                     output_keys[o], sn);
            if (rc == TM_OK)
                rc = sim__h5w_matrix_f64(w, p, m, N, R, output_units[o], d, diag);
        }
        snprintf(p, sizeof p, "/sensitivity/base/%s_reps", output_keys[o]);
        if (rc == TM_OK)
            rc = sim__h5w_array_f64(w, p, res->base_reps + (size_t)o * R, R, output_units[o],
                                    "the base's value in every replication", diag);
        for (int b = 0; b < 2 && rc == TM_OK; b++) {
            snprintf(p, sizeof p, "/sensitivity/base/%s_ci_%s", output_keys[o], b ? "hi" : "lo");
            rc = sim__h5w_scalar_f64(w, p, res->base_ci[o][b], output_units[o],
                                     "the base's 95 % interval (NaN with one replication)", diag);
        }
    }
    free(m);
    return rc;
}

/* /sensitivity/breakeven (only when computed). */
static int write_be(sim__h5w *w, const sim__sens_cfg *cfg, const sim__sens_result *res,
                    tm_diag *diag)
{
    enum { N = SIM__SENS_N_INPUTS };
    if (!cfg->be_runner || !cfg->be_cfg)
        return TM_OK;
    const sim__sens_be *b = &res->base_be;
    int rc;
    if ((rc = sim__h5w_scalar_f64(w, "/sensitivity/breakeven/base/tokens_per_month",
                                  b->tokens_per_month, "1/month",
                                  "the base's breakeven: the volume from which owning the fleet "
                                  "sized for it costs less than the API (docs/cost.md §5); NaN "
                                  "when it does not in the range",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sensitivity/breakeven/base/state", b->state, "1",
                                  "0 not computed, 1 crosses, 2 owning wins already at the lowest "
                                  "volume, 3 owning never wins in the range",
                                  diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/sensitivity/breakeven/base/scenario_tokens_per_month",
                                  b->v0_tokens_per_month, "1/month",
                                  "the services' own volume at base", diag)) ||
        (rc = sim__h5w_scalar_i64(
             w, "/sensitivity/breakeven/replications", (int64_t)cfg->be_runner->replications, "1",
             "replications per candidate fleet of every breakeven search", diag)))
        return rc;
    for (int side = 0; side < 2 && rc == TM_OK; side++) {
        const char *sn = side ? "high" : "low";
        double v[6][N];
        int64_t st[N];
        for (size_t i = 0; i < N; i++) {
            const sim__sens_be *e = &res->rows[i].be[side];
            st[i] = e->state;
            int on = e->state != SIM__SENS_BE_NONE;
            v[0][i] = on ? e->tokens_per_month : NAN;
            v[1][i] = on ? e->v0_tokens_per_month : NAN;
            v[2][i] = on ? e->lo_tokens_per_month : NAN;
            v[3][i] = on ? e->hi_tokens_per_month : NAN;
            v[4][i] = on ? e->own_usd : NAN;
            v[5][i] = on ? e->api_usd : NAN;
        }
        static const char *const names[6] = {
            "tokens_per_month",          "scenario_tokens_per_month", "range_lo_tokens_per_month",
            "range_hi_tokens_per_month", "end_own_usd_per_month",     "end_api_usd_per_month"};
        static const char *const units[6] = {"1/month", "1/month", "1/month",
                                             "1/month", "USD",     "USD"};
        static const char *const descs[6] = {
            "the breakeven volume (owning beats the API from it) with the input at this end; "
            "NaN: not computed, or owning never wins in the range (state)",
            "the services' own volume with the input at this end",
            "the lowest volume searched",
            "the highest volume searched",
            "owning per month at the end of the range that says by how much (the lowest volume "
            "when owning wins throughout, the highest when it never does; NaN otherwise)",
            "the API per month at that volume"};
        char p[160];
        for (int k = 0; k < 6 && rc == TM_OK; k++) {
            snprintf(p, sizeof p, "/sensitivity/breakeven/%s_%s", names[k], sn);
            rc = sim__h5w_array_f64(w, p, v[k], N, units[k], descs[k], diag);
        }
        snprintf(p, sizeof p, "/sensitivity/breakeven/state_%s", sn);
        if (rc == TM_OK &&
            (rc = sim__h5w_array_i64(w, p, st, N, "1",
                                     "per input: the state at this end (attribute 'labels')",
                                     diag)) == TM_OK)
            rc = sim__h5w_labels(w, p, be_state_keys, SIM__SENS_BE_N_STATES, diag);
    }
    return rc;
}

/* /sensitivity/size (only when computed). */
static int write_size(sim__h5w *w, const sim__sens_cfg *cfg, const sim__sens_result *res,
                      tm_diag *diag)
{
    enum { N = SIM__SENS_N_INPUTS };
    const sim__size_runner *r = cfg->size_runner;
    if (!r)
        return TM_OK;
    size_t nv = r->n_vary;
    const char *pools[SIM__SIZE_MAX_VARY];
    double bn[SIM__SIZE_MAX_VARY];
    for (size_t k = 0; k < nv; k++) {
        pools[k] = cfg->sc->pools[r->vary[k]].name;
        bn[k] = res->base_size.nodes[k];
    }
    int rc;
    if ((rc = sim__h5w_scalar_str(w, "/sensitivity/size/target",
                                  cfg->size_target ? cfg->size_target : "",
                                  "the targets every size meets (--size-target)", diag)) ||
        (rc = sim__h5w_array_str(w, "/sensitivity/size/pool", pools, nv,
                                 "the pools searched (columns of the nodes arrays)", diag)) ||
        (rc =
             sim__h5w_scalar_i64(w, "/sensitivity/size/replications", (int64_t)r->replications, "1",
                                 "replications per candidate fleet of every size search", diag)) ||
        (rc = sim__h5w_array_f64(w, "/sensitivity/size/base/nodes", bn, nv, "1",
                                 "the base's size: nodes per searched pool", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/sensitivity/size/base/gpus", res->base_size.gpus, "1",
                                  "... its GPUs", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sensitivity/size/base/state", res->base_size.state, "1",
                                  "1 found, 2 nothing within the node limit meets the targets",
                                  diag)))
        return rc;
    for (int side = 0; side < 2 && rc == TM_OK; side++) {
        const char *sn = side ? "high" : "low";
        double g[N], nodes[N * SIM__SIZE_MAX_VARY];
        int64_t st[N];
        for (size_t i = 0; i < N; i++) {
            const sim__sens_size *z = &res->rows[i].size[side];
            st[i] = z->state;
            g[i] = z->state == SIM__SENS_SIZE_NONE ? NAN : z->gpus;
            for (size_t k = 0; k < nv; k++)
                nodes[i * nv + k] = z->state == SIM__SENS_SIZE_NONE ? NAN : (double)z->nodes[k];
        }
        char p[160];
        snprintf(p, sizeof p, "/sensitivity/size/gpus_%s", sn);
        if ((rc = sim__h5w_array_f64(w, p, g, N, "1",
                                     "GPUs of the size with the input at this end (NaN: not "
                                     "computed)",
                                     diag)))
            break;
        snprintf(p, sizeof p, "/sensitivity/size/nodes_%s", sn);
        if ((rc = sim__h5w_matrix_f64(w, p, nodes, N, nv, "1",
                                      "nodes per searched pool (row: input, column: "
                                      "/sensitivity/size/pool)",
                                      diag)))
            break;
        snprintf(p, sizeof p, "/sensitivity/size/state_%s", sn);
        if ((rc = sim__h5w_array_i64(w, p, st, N, "1",
                                     "per input: 0 not computed, 1 found, 2 none within the node "
                                     "limit, 3 a price: unchanged (the base size, not searched "
                                     "again)",
                                     diag)) == TM_OK)
            rc = sim__h5w_labels(w, p, size_state_keys, SIM__SENS_SIZE_N_STATES, diag);
    }
    return rc;
}

int sim__sens_write(const char *path, const sim__sens_cfg *cfg, const sim__sens_result *res,
                    tm_diag *diag)
{
    enum { N = SIM__SENS_N_INPUTS };
    const char *names[N];
    double col[4 + 2 * SIM__SENS_N_OUTPUTS][N];
    int64_t present[N], resim[N], code[N];
    for (size_t i = 0; i < N; i++) {
        const sim__sens_row *r = &res->rows[i];
        names[i] = input_keys[r->input];
        present[i] = r->present;
        code[i] = r->input;
        resim[i] = r->resimulated;
        col[0][i] = r->base_value;
        col[1][i] = r->low_value;
        col[2][i] = r->high_value;
        col[3][i] = r->present ? r->swing : NAN;
        for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++) {
            col[4 + 2 * o][i] = r->low[o];
            col[5 + 2 * o][i] = r->high[o];
        }
    }
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
    const char *G = "/sensitivity";
    char p[128];
#define PATH_(name) (snprintf(p, sizeof p, "%s/%s", G, name), p)
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", 1, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#sensitivity-files", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "sensitivity", diag)) ||
        (rc = sim__h5w_array_str(w, PATH_("input"), names, N,
                                 "the inputs, sorted by swing (largest first, absent last)",
                                 diag)) ||
        (rc = sim__h5w_array_i64(w, PATH_("input_code"), code, N, "1",
                                 "the inputs as codes (attribute 'labels': the names in code "
                                 "order)",
                                 diag)) ||
        (rc = sim__h5w_labels(w, PATH_("input_code"), input_keys, SIM__SENS_N_INPUTS, diag)) ||
        (rc = sim__h5w_array_i64(w, PATH_("present"), present, N, "1",
                                 "1: the scenario has the input; 0: not in this scenario", diag)) ||
        (rc = sim__h5w_array_i64(w, PATH_("resimulated"), resim, N, "1",
                                 "1: simulated at low and high; 0: the base run re-accounted",
                                 diag)) ||
        (rc = sim__h5w_array_f64(w, PATH_("base_value"), col[0], N, "",
                                 "a representative value of the input at base (units: "
                                 "/sensitivity/unit)",
                                 diag)) ||
        (rc = sim__h5w_array_f64(w, PATH_("low_value"), col[1], N, "", "... at 1 - delta", diag)) ||
        (rc =
             sim__h5w_array_f64(w, PATH_("high_value"), col[2], N, "", "... at 1 + delta", diag)) ||
        (rc = sim__h5w_array_f64(w, PATH_("swing"), col[3], N, "USD/h",
                                 "|high - low| of usd_per_useful_gpu_h", diag)))
        goto fail;
    {
        const char *units[N];
        for (size_t i = 0; i < N; i++)
            units[i] = input_units[res->rows[i].input];
        if ((rc = sim__h5w_array_str(w, PATH_("unit"), units, N, "the units of the input values",
                                     diag)))
            goto fail;
    }
    for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++) {
        char name[96], d[160];
        snprintf(name, sizeof name, "%s_low", output_keys[o]);
        snprintf(d, sizeof d, "%s with the input at 1 - delta", output_labels[o]);
        if ((rc = sim__h5w_array_f64(w, PATH_(name), col[4 + 2 * o], N, output_units[o], d, diag)))
            goto fail;
        snprintf(name, sizeof name, "%s_high", output_keys[o]);
        snprintf(d, sizeof d, "%s with the input at 1 + delta", output_labels[o]);
        if ((rc = sim__h5w_array_f64(w, PATH_(name), col[5 + 2 * o], N, output_units[o], d, diag)))
            goto fail;
        snprintf(name, sizeof name, "base/%s", output_keys[o]);
        snprintf(d, sizeof d, "%s of the base run", output_labels[o]);
        if ((rc = sim__h5w_scalar_f64(w, PATH_(name), res->base[o], output_units[o], d, diag)))
            goto fail;
    }
    static const char *const parts[] = {"depreciation_usd", "capital_usd", "maintenance_usd",
                                        "colocation_usd",   "staff_usd",   "energy_usd",
                                        "fleet_usd",        "api_usd"};
    const double pv[] = {res->depreciation_usd, res->capital_usd, res->maintenance_usd,
                         res->colocation_usd,   res->staff_usd,   res->energy_usd,
                         res->fleet_usd,        res->api_usd};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "base/%s", parts[k]);
        if ((rc =
                 sim__h5w_scalar_f64(w, PATH_(name), pv[k], "USD",
                                     "the base run's cost part over the run (docs/cost.md)", diag)))
            goto fail;
    }
    if ((rc = write_reps(w, cfg, res, diag)) || (rc = write_be(w, cfg, res, diag)) ||
        (rc = write_size(w, cfg, res, diag)))
        goto fail;
    if ((rc = sim__h5w_scalar_f64(w, PATH_("base/hours"), res->hours, "h", "the run's length",
                                  diag)) ||
        (rc = sim__h5w_scalar_f64(w, PATH_("delta"), cfg->delta, "1",
                                  "each input moved to (1 - delta) and (1 + delta) times base",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, PATH_("runs"), (int64_t)res->runs, "1",
                                  "simulations made (the base and the re-simulated inputs)",
                                  diag)) ||
        (rc = sim__h5w_scalar_str(w, PATH_("cost_parameters"), params,
                                  "the base cost model with every default filled in (JSON; "
                                  "docs/cost.md)",
                                  diag)) ||
        (rc = sim__provenance_write(w, cfg->sc, NULL, diag)))
        goto fail;
#undef PATH_
    free(params);
    return sim__h5w_commit(w, diag);
fail:
    free(params);
    sim__h5w_abort(w);
    return rc;
}
