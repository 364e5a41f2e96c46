/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cost_report.c — a run's cost as the /cost group of its file and as the
 * lines of `tarmac run`'s summary (layout: docs/output.md "/cost"; the model
 * that computes the figures: model/cost.c, docs/cost.md).
 *
 * Writers only: the accounting (sim__cost_account) is done before, by the
 * study that ran the model, and handed in finished.
 */
#include "output/report_int.h"

#include "config/config.h"
#include "model/service_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* the file                                                                   */

/* The names of a code column: `labels` and `<obj>_name` (sim__h5w_labels). */
static int attr_joined(sim__h5w *w, const char *obj, const char *const *labels, size_t n,
                       tm_diag *diag)
{
    return sim__h5w_labels(w, obj, labels, n, diag);
}

typedef struct scalar {
    const char *name;
    double v;
    const char *units, *desc;
} scalar;

static int write_totals(sim__h5w *w, const sim__cost_report *r, tm_diag *diag)
{
    const scalar f[] = {
        {"hours", r->hours, "h", "length of the run the costs cover"},
        {"total_usd", r->total_usd, "USD", "fleet and API over the run"},
        {"usd_per_month", r->usd_per_month, "USD/month", "total_usd scaled to a month (730.5 h)"},
        {"fleet_usd", r->fleet_usd, "USD", "owned + reserved + on-demand pools"},
        {"owned_usd", r->owned_usd, "USD",
         "owned pools: depreciation, capital, maintenance, colocation, staff, energy"},
        {"reserved_usd", r->reserved_usd, "USD",
         "reserved pools by the calendar hour, with the cloud overhead share"},
        {"ondemand_usd", r->ondemand_usd, "USD",
         "on-demand pools by the allocated GPU-hour (elastic), with the cloud overhead share"},
        {"api_usd", r->api_usd, "USD", "service requests sent to the API (overflow)"},
        {"idle_usd", r->idle_usd, "USD", "what the GPU-hours not allocated cost"},
        {"capex_usd", r->capex_usd, "USD",
         "purchase of the owned pools (servers, spares, network, storage, installation)"},
        {"owned_opex_usd", r->owned_opex_usd, "USD",
         "owned pools' running costs: energy, colocation, maintenance, staff"},
        {"energy_kwh", r->energy_kwh, "kW h", "owned pools' energy at the meter (PUE included)"},
        {"power_kw_mean", r->power_kw_mean, "kW", "owned pools' mean draw at the meter"},
        {"usd_per_goodput_gpu_hour", r->usd_per_goodput_gpu_h, "USD/h",
         "fleet_usd / GPU-hours of work that survived (jobs and replicas)"},
        {"usd_per_alloc_gpu_hour", r->usd_per_alloc_gpu_h, "USD/h",
         "fleet_usd / GPU-hours allocated"},
        {"usd_per_work_ref_gpu_hour", r->usd_per_work_ref_gpu_h, "USD/h",
         "fleet_usd / useful reference GPU-hours (jobs and replicas); NaN without any"},
        {"usd_per_value_work_ref_gpu_hour", r->usd_per_value_work_ref_gpu_h, "USD/h",
         "fleet_usd / value-weighted useful reference GPU-hours: the cost of a unit of value"},
        {"tokens_served", r->tokens_served, "1",
         "input + output tokens served on the fleet: services, and batch classes with a token "
         "mapping"},
        {"usd_per_mtok_served", r->usd_per_mtok_served, "USD",
         "their chargeback per million of those tokens; NaN without tokens"},
        {"api_equivalent_usd", r->api_equivalent_usd, "USD",
         "what those tokens would have cost at their API prices (batch classes at the batch rate)"},
    };
    char p[128];
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        snprintf(p, sizeof p, "/cost/%s", f[i].name);
        int rc = sim__h5w_scalar_f64(w, p, f[i].v, f[i].units, f[i].desc, diag);
        if (rc)
            return rc;
    }
    return TM_OK;
}

enum {
    P_POOL,
    P_OWNERSHIP,
    P_GPUS,
    P_CAL,
    P_ALLOC,
    P_BUSY,
    P_CAPEX,
    P_DEP,
    P_CAPITAL,
    P_MAINT,
    P_COLO,
    P_STAFF,
    P_ENERGY,
    P_KWH,
    P_CLOUD,
    P_OVERHEAD,
    P_TOTAL,
    P_IDLE,
    P_PER_H,
    P_NCOLS
};

static const sim__h5_col pool_cols[P_NCOLS] = {
    {"pool", SIM__H5_I32, "1", "pool index (attribute 'labels': the pool names)"},
    {"ownership", SIM__H5_I32, "1", "0 owned, 1 reserved, 2 on-demand (attribute 'labels')"},
    {"gpus", SIM__H5_F64, "GPU", "GPUs of the pool"},
    {"calendar_gpu_hours", SIM__H5_F64, "GPU h",
     "GPU-hours from delivery to retirement, clipped to the run"},
    {"gpu_hours_alloc", SIM__H5_F64, "GPU h", "GPU-hours allocated (jobs and replicas)"},
    {"gpu_hours_busy", SIM__H5_F64, "GPU h", "GPU-hours doing work"},
    {"capex_usd", SIM__H5_F64, "USD", "owned: purchase of the pool's share of the fleet"},
    {"depreciation_usd", SIM__H5_F64, "USD", "owned: (capex - residual) / life, by the hour"},
    {"capital_usd", SIM__H5_F64, "USD", "owned: the cost of capital (annuity interest)"},
    {"maintenance_usd", SIM__H5_F64, "USD", "owned: hardware maintenance"},
    {"colocation_usd", SIM__H5_F64, "USD", "owned: colocation per provisioned kW-month"},
    {"staff_usd", SIM__H5_F64, "USD", "owned: operations staff per 1000 GPUs"},
    {"energy_usd", SIM__H5_F64, "USD", "owned: energy drawn as simulated, at the meter"},
    {"energy_kwh", SIM__H5_F64, "kW h", "owned: energy at the meter (PUE included)"},
    {"cloud_usd", SIM__H5_F64, "USD",
     "reserved: rate x calendar GPU-hours; on-demand: rate x allocated GPU-hours"},
    {"cloud_overhead_usd", SIM__H5_F64, "USD",
     "cloud: the non-GPU overhead share (egress, storage, CPU, support)"},
    {"total_usd", SIM__H5_F64, "USD", "the pool's cost over the run"},
    {"idle_usd", SIM__H5_F64, "USD", "what its GPU-hours not allocated cost"},
    {"usd_per_gpu_hour", SIM__H5_F64, "USD/h", "total_usd / calendar_gpu_hours"},
};

static int write_pools(sim__h5w *w, const sim_scenario *sc, const sim__cost_report *r,
                       tm_diag *diag)
{
    size_t n = r->n_pools;
    int32_t *ic = malloc(2 * (n ? n : 1) * sizeof *ic);
    double *dc = malloc((P_NCOLS - 2) * (n ? n : 1) * sizeof *dc);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    sim__h5t *t = NULL;
    int rc;
    if (!ic || !dc || !names) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
        goto out;
    }
    const void *cols[P_NCOLS];
    cols[P_POOL] = ic;
    cols[P_OWNERSHIP] = ic + n;
    for (int k = 2; k < P_NCOLS; k++)
        cols[k] = dc + (size_t)(k - 2) * n;
    for (size_t p = 0; p < n; p++) {
        const sim__cost_pool *o = &r->pools[p];
        names[p] = sc->pools[p].name;
        ic[p] = (int32_t)p;
        ic[n + p] = (int32_t)sc->pools[p].ownership;
        const double v[P_NCOLS - 2] = {
            o->gpus,
            o->calendar_gpu_h,
            o->alloc_gpu_h,
            o->busy_gpu_h,
            o->capex_usd,
            o->depreciation_usd,
            o->capital_usd,
            o->maintenance_usd,
            o->colocation_usd,
            o->staff_usd,
            o->energy_usd,
            o->energy_kwh,
            o->cloud_usd,
            o->cloud_overhead_usd,
            o->total_usd,
            o->idle_usd,
            o->calendar_gpu_h > 0 ? o->total_usd / o->calendar_gpu_h : NAN,
        };
        for (int k = 0; k < P_NCOLS - 2; k++)
            dc[(size_t)k * n + p] = v[k];
    }
    static const char *const own[] = {"owned", "reserved", "on-demand"};
    if ((rc = sim__h5t_create(&t, w, "/cost/pools", "one row per pool: what it cost over the run",
                              pool_cols, P_NCOLS, diag)) ||
        (rc = sim__h5t_dim(t, "pool_name", NULL, "the pools, one per row", diag)) ||
        (rc = sim__h5t_append(t, cols, n, diag)) || (rc = sim__h5t_close(t, diag)))
        goto out;
    if ((rc = attr_joined(w, "/cost/pools/pool", names, n, diag)) ||
        (rc = attr_joined(w, "/cost/pools/ownership", own, 3, diag)))
        goto out;
out:
    free(ic);
    free(dc);
    free(names);
    return rc;
}

/* /cost/breakdown: one row per (category, pool) with a cost, the API last. */
static int write_breakdown(sim__h5w *w, const sim_scenario *sc, const sim__cost_report *r,
                           tm_diag *diag)
{
    size_t n = 2 * r->n_pools + 1, k = 0;
    int32_t *cat = malloc(n * sizeof *cat), *pool = malloc(n * sizeof *pool);
    double *usd = malloc(n * sizeof *usd);
    const char **names = malloc((r->n_pools ? r->n_pools : 1) * sizeof *names);
    sim__h5t *t = NULL;
    const char *labels[SIM__COST_N_CATEGORIES];
    for (int c = 0; c < SIM__COST_N_CATEGORIES; c++)
        labels[c] = sim__cost_category_label(c);
    int rc;
    if (!cat || !pool || !usd || !names) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
        goto out;
    }
    for (size_t p = 0; p < r->n_pools; p++) {
        const sim__cost_pool *o = &r->pools[p];
        names[p] = sc->pools[p].name;
        sim_ownership own = sc->pools[p].ownership;
        int used = own == SIM_OWNED      ? SIM__COST_OWNED_USED
                   : own == SIM_RESERVED ? SIM__COST_RESERVED_USED
                                         : SIM__COST_ONDEMAND;
        cat[k] = used;
        pool[k] = (int32_t)p;
        usd[k++] = o->total_usd - o->idle_usd;
        if (own != SIM_ONDEMAND) {
            cat[k] = used + 1; /* the idle category follows the used one */
            pool[k] = (int32_t)p;
            usd[k++] = o->idle_usd;
        }
    }
    cat[k] = SIM__COST_API;
    pool[k] = -1;
    usd[k++] = r->api_usd;
    static const sim__h5_col cols[3] = {
        {"category", SIM__H5_I32, "1", "cost category (attribute 'labels')"},
        {"pool", SIM__H5_I32, "1", "pool index (attribute 'labels'); -1 for the API"},
        {"usd", SIM__H5_F64, "USD", "cost over the run"},
    };
    const void *cv[3] = {cat, pool, usd};
    if ((rc = sim__h5t_create(&t, w, "/cost/breakdown",
                              "the run's cost by category and pool; the rows add up to total_usd",
                              cols, 3, diag)) ||
        (rc = sim__h5t_append(t, cv, k, diag)) || (rc = sim__h5t_close(t, diag)) ||
        (rc = attr_joined(w, "/cost/breakdown/category", labels, SIM__COST_N_CATEGORIES, diag)) ||
        (rc = attr_joined(w, "/cost/breakdown/pool", names, r->n_pools, diag)))
        goto out;
out:
    free(cat);
    free(pool);
    free(usd);
    free(names);
    return rc;
}

/* /cost/chargeback: one row per class, then per service. */
static int write_chargeback(sim__h5w *w, const sim_scenario *sc, const sim_result *res,
                            const sim__cost_report *r, tm_diag *diag)
{
    size_t n = r->n_classes + r->n_services;
    size_t m = n ? n : 1;
    int32_t *who = malloc(m * sizeof *who), *kind = malloc(m * sizeof *kind);
    double *d = malloc(7 * m * sizeof *d);
    char(*labels)[SIM_NAME_MAX + 16] = malloc(m * sizeof *labels);
    const char **lp = malloc(m * sizeof *lp);
    sim__h5t *t = NULL;
    int rc;
    if (!who || !kind || !d || !labels || !lp) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
        goto out;
    }
    double total_h = 0;
    for (size_t k = 0; k < r->n_classes; k++)
        total_h += res->classes[k].gpu_s_alloc / 3600;
    for (size_t s = 0; s < r->n_services; s++)
        total_h += res->services[s].gpu_hours_alloc;
    for (size_t i = 0; i < n; i++) {
        int is_class = i < r->n_classes;
        size_t j = is_class ? i : i - r->n_classes;
        double h = is_class ? res->classes[j].gpu_s_alloc / 3600 : res->services[j].gpu_hours_alloc;
        double good =
            is_class ? res->classes[j].gpu_s_goodput / 3600 : res->services[j].gpu_hours_busy;
        double usd = is_class ? r->class_usd[j] : r->service_usd[j];
        who[i] = (int32_t)i;
        kind[i] = is_class ? 0 : 1;
        snprintf(labels[i], sizeof labels[i], "%s",
                 is_class ? sc->classes[j].name : sc->services[j].cfg.name);
        lp[i] = labels[i];
        d[i] = h;
        d[m + i] = total_h > 0 ? h / total_h : 0;
        d[2 * m + i] = usd;
        d[3 * m + i] = good > 0 ? usd / good : NAN;
        d[4 * m + i] = is_class ? 0 : r->service_api_usd[j];
        d[5 * m + i] = is_class ? r->class_tokens[j]
                                : res->services[j].tok_in_owned + res->services[j].tok_out_owned;
        double work =
            is_class ? res->classes[j].work_ref_gpu_s / 3600 : res->services[j].work_ref_gpu_hours;
        d[6 * m + i] = work > 0 ? usd / work : NAN;
    }
    static const sim__h5_col cols[9] = {
        {"consumer", SIM__H5_I32, "1", "row index (attribute 'labels': class and service names)"},
        {"kind", SIM__H5_I32, "1", "0 a workload class, 1 a service (attribute 'labels')"},
        {"gpu_hours_alloc", SIM__H5_F64, "GPU h", "GPU-hours allocated to it"},
        {"share", SIM__H5_F64, "1", "its share of all allocated GPU-hours"},
        {"usd", SIM__H5_F64, "USD", "its charge: fleet_usd x share (idle cost shared too)"},
        {"usd_per_useful_gpu_hour", SIM__H5_F64, "USD/h",
         "usd per GPU-hour of useful work (a class's goodput, a service's busy GPU-hours)"},
        {"api_usd", SIM__H5_F64, "USD", "a service's overflow sent to the API (not in usd)"},
        {"tokens", SIM__H5_F64, "1",
         "tokens served on the fleet: a service's owned tokens, a mapped batch class's goodput "
         "as tokens; 0 otherwise"},
        {"usd_per_work_ref_gpu_hour", SIM__H5_F64, "USD/h",
         "usd per useful reference GPU-hour of its work; NaN without any"},
    };
    const void *cv[9] = {who,       kind,      d,         d + m,    d + 2 * m,
                         d + 3 * m, d + 4 * m, d + 5 * m, d + 6 * m};
    static const char *const kinds[] = {"class", "service"};
    if ((rc = sim__h5t_create(&t, w, "/cost/chargeback",
                              "the fleet cost allocated by allocated GPU-hours", cols, 9, diag)) ||
        (rc = sim__h5t_dim(t, "consumer_name", NULL, "the consumers, one per row", diag)) ||
        (rc = sim__h5t_append(t, cv, n, diag)) || (rc = sim__h5t_close(t, diag)) ||
        (rc = attr_joined(w, "/cost/chargeback/consumer", lp, n, diag)) ||
        (rc = attr_joined(w, "/cost/chargeback/kind", kinds, 2, diag)))
        goto out;
out:
    free(who);
    free(kind);
    free(d);
    free(labels);
    free(lp);
    return rc;
}

static int write_tenants(sim__h5w *w, const sim_scenario *sc, const sim__cost_report *r,
                         tm_diag *diag)
{
    size_t n = r->n_tenants;
    int32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    sim__h5t *t = NULL;
    int rc;
    if (!idx || !names) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        idx[k] = (int32_t)k;
        names[k] = sc->tenants[k];
    }
    static const sim__h5_col cols[2] = {
        {"tenant", SIM__H5_I32, "1", "tenant index (attribute 'labels')"},
        {"usd", SIM__H5_F64, "USD",
         "the classes' charges split by each class's tenant mix (expected shares)"},
    };
    const void *cv[2] = {idx, r->tenant_usd};
    if ((rc = sim__h5t_create(&t, w, "/cost/tenants",
                              "chargeback per tenant (services are not tenants' here)", cols, 2,
                              diag)) ||
        (rc = sim__h5t_dim(t, "tenant_name", NULL, "the tenants, one per row", diag)) ||
        (rc = sim__h5t_append(t, cv, n, diag)) || (rc = sim__h5t_close(t, diag)) ||
        (rc = attr_joined(w, "/cost/tenants/tenant", names, n, diag)))
        goto out;
out:
    free(idx);
    free(names);
    return rc;
}

int sim__cost_write_h5(sim__h5w *w, const sim_scenario *sc, const sim_result *res,
                       const sim__cost_report *r, tm_diag *diag)
{
    int rc;
    if ((rc = write_totals(w, r, diag)) == TM_OK && (rc = write_pools(w, sc, r, diag)) == TM_OK &&
        (rc = write_breakdown(w, sc, r, diag)) == TM_OK &&
        (rc = write_chargeback(w, sc, res, r, diag)) == TM_OK)
        rc = write_tenants(w, sc, r, diag);
    if (rc == TM_OK) {
        char *js = sim__scenario_cost_json(sc);
        rc = js ? sim__h5w_scalar_str(w, "/cost/parameters", js,
                                      "the cost model with every default filled in (JSON; "
                                      "docs/cost.md)",
                                      diag)
                : tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
        free(js);
    }
    return rc;
}

/* ------------------------------------------------------------------------- */
/* the summary                                                                */

void sim__cost_fmt_usd(char *buf, size_t n, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    if (fabs(v) < 100) {
        snprintf(buf, n, "$%.2f", v);
        return;
    }
    char raw[48];
    snprintf(raw, sizeof raw, "%.0f", fabs(v));
    size_t len = strlen(raw), o = 0;
    char out[64];
    if (v < 0)
        out[o++] = '-';
    out[o++] = '$';
    for (size_t i = 0; i < len && o < sizeof out - 2; i++) {
        if (i && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    out[o] = '\0';
    snprintf(buf, n, "%s", out);
}

void sim__cost_print_summary(FILE *f, const sim_scenario *sc, const sim__cost_report *r)
{
    (void)sc;
    char tot[48], mo[48], own[48], res[48], od[48], api[48], idle[48], good[48], mtok[48];
    sim__cost_fmt_usd(tot, sizeof tot, r->total_usd);
    sim__cost_fmt_usd(mo, sizeof mo, r->usd_per_month);
    sim__cost_fmt_usd(own, sizeof own, r->owned_usd);
    sim__cost_fmt_usd(res, sizeof res, r->reserved_usd);
    sim__cost_fmt_usd(od, sizeof od, r->ondemand_usd);
    sim__cost_fmt_usd(api, sizeof api, r->api_usd);
    sim__cost_fmt_usd(idle, sizeof idle, r->idle_usd);
    sim__cost_fmt_usd(good, sizeof good, r->usd_per_goodput_gpu_h);
    sim__cost_fmt_usd(mtok, sizeof mtok, r->usd_per_mtok_served);
    fprintf(f,
            "cost: %s over the run (%s per month): owned %s, reserved %s, on-demand %s, API %s\n",
            tot, mo, own, res, od, api);
    fprintf(f,
            "      %s per useful (goodput) GPU-hour; idle GPU-hours cost %s (%.1f %% of the fleet)",
            good, idle, r->fleet_usd > 0 ? 100 * r->idle_usd / r->fleet_usd : 0.0);
    if (r->tokens_served > 0)
        fprintf(f, "; %s per million tokens served", mtok);
    fputc('\n', f);
    char work[48], value[48];
    sim__cost_fmt_usd(work, sizeof work, r->usd_per_work_ref_gpu_h);
    sim__cost_fmt_usd(value, sizeof value, r->usd_per_value_work_ref_gpu_h);
    fprintf(f, "      %s per useful reference GPU-hour of work, %s per unit of value\n", work,
            value);
}
