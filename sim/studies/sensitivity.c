/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sensitivity.c — one-at-a-time sensitivity of the cost to the main inputs
 * (the method and the API: sensitivity_int.h; docs/cost.md "Sensitivity").
 */
#include "studies/sensitivity_int.h"

#include "config/config.h"
#include "model/cost_int.h"
#include "model/service_int.h"
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

static int run_one(const sim__sens_cfg *cfg, const sim_scenario *sc, const char *what,
                   sim_result *r, sim__sens_result *res, tm_diag *diag)
{
    sim_run_opts opts = {.replication = 0, .stop_flag = cfg->stop};
    int rc = sim_run(sc, &opts, NULL, r, diag);
    if (rc == TM_OK) {
        res->runs++;
        if (cfg->log)
            fprintf(cfg->log, "sensitivity: ran %s (%.1f s)\n", what, r->wall_s);
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

int sim__sens_run(const sim__sens_cfg *cfg, sim__sens_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    const sim_scenario *sc = cfg->sc;
    if (!(cfg->delta > 0 && cfg->delta < 1))
        return tm_diag_set(diag, TM_ERR_INVAL, "sensitivity", "delta %g is not in (0, 1)",
                           cfg->delta);
    sim_result base;
    int rc = run_one(cfg, sc, "the base", &base, res, diag);
    if (rc != TM_OK)
        return rc;
    sim__cost_report c;
    if ((rc = sim__cost_account(sc, &base, &c, diag)) != TM_OK) {
        sim_result_fini(&base);
        return rc;
    }
    res->base[SIM__SENS_USD_PER_USEFUL_GPU_H] = c.usd_per_work_ref_gpu_h;
    res->base[SIM__SENS_USD_PER_MONTH] = c.usd_per_month;
    for (size_t p = 0; p < c.n_pools; p++) {
        res->depreciation_usd += c.pools[p].depreciation_usd;
        res->capital_usd += c.pools[p].capital_usd;
        res->maintenance_usd += c.pools[p].maintenance_usd;
        res->colocation_usd += c.pools[p].colocation_usd;
        res->staff_usd += c.pools[p].staff_usd;
        res->energy_usd += c.pools[p].energy_usd;
    }
    res->fleet_usd = c.fleet_usd;
    res->api_usd = c.api_usd;
    res->hours = c.hours;
    sim__cost_report_fini(&c);

    for (int i = 0; i < SIM__SENS_N_INPUTS && rc == TM_OK; i++) {
        sim__sens_row *row = &res->rows[i];
        row->input = i;
        row->unit = input_units[i];
        row->resimulated = i == SIM__SENS_UTIL_TARGET || i == SIM__SENS_GROWTH;
        row->present = input_present(sc, i, &row->base_value);
        row->low_value = row->high_value = NAN;
        for (int o = 0; o < SIM__SENS_N_OUTPUTS; o++)
            row->low[o] = row->high[o] = NAN;
        row->swing = -1;
        if (!row->present)
            continue;
        for (int side = 0; side < 2 && rc == TM_OK; side++) {
            double f = side ? 1 + cfg->delta : 1 - cfg->delta;
            moved m;
            rc = move_input(sc, i, f, &m, diag);
            double v;
            if (rc == TM_OK) {
                input_present(&m.sc, i, &v);
                *(side ? &row->high_value : &row->low_value) = v;
            }
            double *out = side ? row->high : row->low;
            if (rc == TM_OK && row->resimulated) {
                char what[96];
                snprintf(what, sizeof what, "%s x %.3g", input_labels[i], f);
                sim_result r;
                rc = run_one(cfg, &m.sc, what, &r, res, diag);
                if (rc == TM_OK) {
                    rc = outputs_of(&m.sc, &r, out, diag);
                    sim_result_fini(&r);
                }
            } else if (rc == TM_OK) {
                rc = outputs_of(&m.sc, &base, out, diag);
            }
            moved_fini(&m);
        }
        double s = fabs(row->high[0] - row->low[0]);
        row->swing = isfinite(s) ? s : 0;
    }
    sim_result_fini(&base);
    if (rc != TM_OK)
        return rc;
    sim__sens_sort(res->rows, SIM__SENS_N_INPUTS);
    return TM_OK;
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
