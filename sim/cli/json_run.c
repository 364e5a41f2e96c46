/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_run.c — `tarmac run --json`: every figure of the run's text summary
 * and of its HDF5 file's /summary, /tenants, /ledger and /cost, under the
 * names of the file's datasets (docs/cli.md, "tarmac run --json").
 *
 * The layout follows the file: the scalars of /summary at the top level (the
 * run's metrics and those of all classes together), its groups as members
 * (shape_blocked an object; classes, services, pools and types arrays of
 * objects with a "name"), /tenants, /ledger and /cost as members of the same
 * names, their tables as arrays of row objects in which a code column (pool,
 * bucket, kind...) holds its label instead of the index. The figures come
 * from the same result structs and metric tables as the file; the test
 * tests/json_out.py compares them dataset by dataset, so a figure added to
 * the file and not here fails it.
 */
#include "cli/json_run.h"

#include "model/cost_int.h"
#include "model/service_int.h"
#include "output/report_int.h"
#include "version.h"

#include <math.h>
#include <string.h>

/* A figure of the JSON's own tables (/tenants, /cost); the groups of
 * /summary come as the file's figures (sim__fig, output/report_int.h). */
typedef struct fig {
    const char *name;
    double v;
    int count; /* printed as an integer */
} fig;

static void put_num(sim__jout *j, sim__jnode *o, const char *name, double v, int count)
{
    if (count && isfinite(v))
        sim__jout_int(j, o, name, (int64_t)v);
    else
        sim__jout_num(j, o, name, v);
}

static void put_figs(sim__jout *j, sim__jnode *o, const fig *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_num(j, o, f[i].name, f[i].v, f[i].count);
}

/* The file's figures of a /summary group (sim__figs_*) as members of o (a
 * count, as in the file, an integer), and its specialization figures, if
 * any, as the member "specialization". */
static void put_group(sim__jout *j, sim__jnode *o, const sim__fig *f, size_t n,
                      const sim__fig *spec, size_t n_spec)
{
    for (size_t i = 0; i < n; i++)
        put_num(j, o, f[i].name, f[i].v, strcmp(f[i].units, "count") == 0);
    if (n_spec > 0)
        put_group(j, sim__jout_object(j, o, "specialization"), spec, n_spec, NULL, 0);
}

#define N_(a) (sizeof(a) / sizeof((a)[0]))

/* One metric of a metric table: an integer for a count (as in the file). */
static void put_metric(sim__jout *j, sim__jnode *o, const sim_metric_desc *m, double v)
{
    if (strcmp(m->units, "count") == 0)
        sim__jout_int(j, o, m->name, (int64_t)v);
    else
        sim__jout_num(j, o, m->name, v);
}

static void put_class(sim__jout *j, sim__jnode *o, const sim_class_result *c)
{
    for (int m = 0; m < SIM_CLASS_METRIC_COUNT; m++)
        put_metric(j, o, &sim_class_metric_info[m], sim_class_metric_value(c, m));
}

static void put_gpu_time(sim__jout *j, sim__jnode *o, const sim_gpu_time *g)
{
    sim__fig f[SIM__FIGS_MAX];
    put_group(j, o, f, sim__figs_gpu_time(g, f), NULL, 0);
}

static void put_service(sim__jout *j, sim__jnode *o, const sim_service_spec *spec,
                        const sim_service_result *v)
{
    sim__jout_str(j, o, "model", spec->cfg.model);
    sim__jout_str(j, o, "slo_kind", spec->cfg.slo_kind == SIM__SVC_SLO_WAIT ? "wait" : "response");
    sim__jout_num(j, o, "slo_s", spec->cfg.slo_s);
    sim__jout_num(j, o, "slo_target", spec->cfg.slo_target);
    sim__fig f[SIM__FIGS_MAX], sp[SIM__FIGS_MAX];
    put_group(j, o, f, sim__figs_service(v, f), sp, sim__figs_service_special(v, sp));
}

/* /tenants: the scenario's tenants, then "(other)". */
static void put_tenants(sim__jout *j, sim__jnode *root, const sim_scenario *sc, const sim_result *r)
{
    sim__jnode *a = sim__jout_array(j, root, "tenants");
    for (size_t k = 0; k < r->n_tenants + 1; k++) {
        const sim_tenant_result *t = &r->tenants[k];
        sim__jnode *o = sim__jout_object(j, a, NULL);
        sim__jout_str(j, o, "tenant",
                      k < r->n_tenants && k < sc->n_tenants ? sc->tenants[k] : "(other)");
        const fig f[] = {
            {"jobs_arrived", (double)t->arrived, 1},
            {"jobs_completed", (double)t->completed, 1},
            {"gpu_hours_alloc", t->gpu_s_alloc / 3600, 0},
            {"work_ref_gpu_hours", t->work_ref_gpu_s / 3600, 0},
            {"value_work_ref_gpu_hours", t->value_work_ref_gpu_s / 3600, 0},
            {"jobs_started", (double)t->started, 1},
            {"wait_mean_s", t->started ? t->wait_mean_s : NAN, 0},
            {"wait_p50_s", t->started ? t->wait_p50_s : NAN, 0},
            {"wait_p95_s", t->started ? t->wait_p95_s : NAN, 0},
        };
        put_figs(j, o, f, N_(f));
    }
}

static double gpu_h(sim_gpu_area a)
{
    return (double)a / SIM_AREA_PER_GPU_HOUR;
}

static void put_buckets(sim__jout *j, sim__jnode *o, const sim_ledger *l)
{
    char key[80];
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        snprintf(key, sizeof key, "%s_gpu_hours", sim_ledger_key(b));
        sim__jout_num(j, o, key, gpu_h(l->a[b]));
    }
}

/* /ledger: fleet (one row per bucket), pools and consumers (one column per
 * bucket). */
static void put_ledger(sim__jout *j, sim__jnode *root, const sim_scenario *sc, const sim_result *r)
{
    sim__jnode *lg = sim__jout_object(j, root, "ledger");
    double owned = gpu_h(r->owned_area);
    sim__jout_num(j, lg, "gpu_hours_owned", owned);
    sim__jnode *fa = sim__jout_array(j, lg, "fleet");
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        sim__jnode *o = sim__jout_object(j, fa, NULL);
        double h = gpu_h(r->ledger.a[b]);
        sim__jout_str(j, o, "bucket", sim_ledger_key(b));
        sim__jout_str(j, o, "group", sim_ledger_group_key(sim_ledger_group_of(b)));
        sim__jout_num(j, o, "gpu_hours", h);
        sim__jout_num(j, o, "share", owned > 0 ? h / owned : 0.0);
    }
    double span_h = (double)r->t_end_us / SIM_US_PER_S / 3600;
    sim__jnode *pa = sim__jout_array(j, lg, "pools");
    for (size_t p = 0; p < sc->n_pools; p++) {
        sim__jnode *o = sim__jout_object(j, pa, NULL);
        sim__jout_str(j, o, "pool", sc->pools[p].name);
        sim__jout_num(j, o, "gpu_hours_owned",
                      (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node * span_h);
        put_buckets(j, o, &r->ledger_pools[p]);
    }
    sim__jnode *ca = sim__jout_array(j, lg, "consumers");
    size_t nk = sc->n_classes + sc->n_services + 1;
    for (size_t k = 0; k < nk; k++) {
        sim__jnode *o = sim__jout_object(j, ca, NULL);
        int is_class = k < sc->n_classes, none = k + 1 == nk;
        sim__jout_str(j, o, "consumer",
                      is_class ? sc->classes[k].name
                      : none   ? "(none)"
                               : sc->services[k - sc->n_classes].cfg.name);
        sim__jout_str(j, o, "kind", is_class ? "class" : none ? "none" : "service");
        put_buckets(j, o, &r->ledger_consumers[k]);
    }
}

static const char *ownership_label(sim_ownership own)
{
    return own == SIM_OWNED ? "owned" : own == SIM_RESERVED ? "reserved" : "on-demand";
}

/* /cost: the totals, then its tables as arrays of rows. */
static void put_cost(sim__jout *j, sim__jnode *root, const sim_scenario *sc, const sim_result *res,
                     const sim__cost_report *r)
{
    sim__jnode *c = sim__jout_object(j, root, "cost");
    const fig f[] = {
        {"hours", r->hours, 0},
        {"total_usd", r->total_usd, 0},
        {"usd_per_month", r->usd_per_month, 0},
        {"fleet_usd", r->fleet_usd, 0},
        {"owned_usd", r->owned_usd, 0},
        {"reserved_usd", r->reserved_usd, 0},
        {"ondemand_usd", r->ondemand_usd, 0},
        {"api_usd", r->api_usd, 0},
        {"idle_usd", r->idle_usd, 0},
        {"capex_usd", r->capex_usd, 0},
        {"owned_opex_usd", r->owned_opex_usd, 0},
        {"energy_kwh", r->energy_kwh, 0},
        {"power_kw_mean", r->power_kw_mean, 0},
        {"usd_per_goodput_gpu_hour", r->usd_per_goodput_gpu_h, 0},
        {"usd_per_alloc_gpu_hour", r->usd_per_alloc_gpu_h, 0},
        {"usd_per_work_ref_gpu_hour", r->usd_per_work_ref_gpu_h, 0},
        {"usd_per_value_work_ref_gpu_hour", r->usd_per_value_work_ref_gpu_h, 0},
        {"tokens_served", r->tokens_served, 0},
        {"usd_per_mtok_served", r->usd_per_mtok_served, 0},
        {"api_equivalent_usd", r->api_equivalent_usd, 0},
    };
    put_figs(j, c, f, N_(f));
    sim__jnode *pa = sim__jout_array(j, c, "pools");
    for (size_t p = 0; p < r->n_pools; p++) {
        const sim__cost_pool *o = &r->pools[p];
        sim__jnode *row = sim__jout_object(j, pa, NULL);
        sim__jout_str(j, row, "pool", sc->pools[p].name);
        sim__jout_str(j, row, "ownership", ownership_label(sc->pools[p].ownership));
        const fig pf[] = {
            {"gpus", o->gpus, 0},
            {"calendar_gpu_hours", o->calendar_gpu_h, 0},
            {"gpu_hours_alloc", o->alloc_gpu_h, 0},
            {"gpu_hours_busy", o->busy_gpu_h, 0},
            {"capex_usd", o->capex_usd, 0},
            {"depreciation_usd", o->depreciation_usd, 0},
            {"capital_usd", o->capital_usd, 0},
            {"maintenance_usd", o->maintenance_usd, 0},
            {"colocation_usd", o->colocation_usd, 0},
            {"staff_usd", o->staff_usd, 0},
            {"energy_usd", o->energy_usd, 0},
            {"energy_kwh", o->energy_kwh, 0},
            {"cloud_usd", o->cloud_usd, 0},
            {"cloud_overhead_usd", o->cloud_overhead_usd, 0},
            {"total_usd", o->total_usd, 0},
            {"idle_usd", o->idle_usd, 0},
            {"usd_per_gpu_hour", o->calendar_gpu_h > 0 ? o->total_usd / o->calendar_gpu_h : NAN, 0},
        };
        put_figs(j, row, pf, N_(pf));
    }
    /* one row per (category, pool) with a cost, the API last: as /cost/breakdown */
    sim__jnode *ba = sim__jout_array(j, c, "breakdown");
    for (size_t p = 0; p < r->n_pools; p++) {
        const sim__cost_pool *o = &r->pools[p];
        sim_ownership own = sc->pools[p].ownership;
        int used = own == SIM_OWNED      ? SIM__COST_OWNED_USED
                   : own == SIM_RESERVED ? SIM__COST_RESERVED_USED
                                         : SIM__COST_ONDEMAND;
        for (int idle = 0; idle < (own == SIM_ONDEMAND ? 1 : 2); idle++) {
            sim__jnode *row = sim__jout_object(j, ba, NULL);
            sim__jout_str(j, row, "category", sim__cost_category_label(used + idle));
            sim__jout_str(j, row, "pool", sc->pools[p].name);
            sim__jout_num(j, row, "usd", idle ? o->idle_usd : o->total_usd - o->idle_usd);
        }
    }
    sim__jnode *api = sim__jout_object(j, ba, NULL);
    sim__jout_str(j, api, "category", sim__cost_category_label(SIM__COST_API));
    sim__jout_null(j, api, "pool");
    sim__jout_num(j, api, "usd", r->api_usd);
    /* /cost/chargeback: the classes, then the services */
    double total_h = 0;
    for (size_t k = 0; k < r->n_classes; k++)
        total_h += res->classes[k].gpu_s_alloc / 3600;
    for (size_t s = 0; s < r->n_services; s++)
        total_h += res->services[s].gpu_hours_alloc;
    sim__jnode *cb = sim__jout_array(j, c, "chargeback");
    for (size_t i = 0; i < r->n_classes + r->n_services; i++) {
        int is_class = i < r->n_classes;
        size_t k = is_class ? i : i - r->n_classes;
        double h = is_class ? res->classes[k].gpu_s_alloc / 3600 : res->services[k].gpu_hours_alloc;
        double good =
            is_class ? res->classes[k].gpu_s_goodput / 3600 : res->services[k].gpu_hours_busy;
        double usd = is_class ? r->class_usd[k] : r->service_usd[k];
        double work =
            is_class ? res->classes[k].work_ref_gpu_s / 3600 : res->services[k].work_ref_gpu_hours;
        sim__jnode *row = sim__jout_object(j, cb, NULL);
        sim__jout_str(j, row, "consumer",
                      is_class ? sc->classes[k].name : sc->services[k].cfg.name);
        sim__jout_str(j, row, "kind", is_class ? "class" : "service");
        const fig cf[] = {
            {"gpu_hours_alloc", h, 0},
            {"share", total_h > 0 ? h / total_h : 0, 0},
            {"usd", usd, 0},
            {"usd_per_useful_gpu_hour", good > 0 ? usd / good : NAN, 0},
            {"api_usd", is_class ? 0 : r->service_api_usd[k], 0},
            {"tokens",
             is_class ? r->class_tokens[k]
                      : res->services[k].tok_in_owned + res->services[k].tok_out_owned,
             0},
            {"usd_per_work_ref_gpu_hour", work > 0 ? usd / work : NAN, 0},
        };
        put_figs(j, row, cf, N_(cf));
    }
    sim__jnode *ta = sim__jout_array(j, c, "tenants");
    for (size_t k = 0; k < r->n_tenants; k++) {
        sim__jnode *row = sim__jout_object(j, ta, NULL);
        sim__jout_str(j, row, "tenant", sc->tenants[k]);
        sim__jout_num(j, row, "usd", r->tenant_usd[k]);
    }
    char *params = sim__scenario_cost_json(sc);
    if (params)
        sim__jout_parsed(j, c, "parameters", params);
    else
        sim__jout_parsed(j, NULL, NULL, NULL); /* notes the lost member */
    free(params);
}

int sim__cli_run_json(FILE *f, const sim_scenario *sc, const sim_result *r, const char *out,
                      uint64_t rep, tm_diag *diag)
{
    sim__cost_report cost;
    int rc = sim__cost_account(sc, r, &cost, diag);
    if (rc != TM_OK)
        return rc;
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jout_str(j, root, "command", "run");
    sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
    sim__jout_str(j, root, "scenario", sc->name);
    sim__jout_str(j, root, "source", sc->source);
    sim__jout_uint(j, root, "seed", sc->seed);
    sim__jout_uint(j, root, "replication", rep);
    sim__jout_str(j, root, "policy", sc->policy);
    sim__jout_str(j, root, "output", out);
    sim__jout_num(j, root, "wall_s", r->wall_s);
    /* /summary's scalars: the run's metrics, then those of all classes */
    for (int m = 0; m < SIM_RUN_METRIC_COUNT; m++)
        put_metric(j, root, &sim_run_metric_info[m], sim_run_metric_value(r, m));
    put_class(j, root, &r->classes[r->n_classes]);
    sim__jnode *sb = sim__jout_object(j, root, "shape_blocked");
    char key[96];
    for (int k = 0; k < SIM_BLOCK_COUNT; k++) {
        snprintf(key, sizeof key, "%s_gpu_hours", sim_block_reason_key(k));
        sim__jout_num(j, sb, key, r->gpu_s_blocked[k] / 3600);
    }
    /* the classes, then "all" (the same figures as the top level), as
     * before the other groups were added */
    sim__jnode *ca = sim__jout_array(j, root, "classes");
    for (size_t c = 0; c <= sc->n_classes; c++) {
        sim__jnode *o = sim__jout_object(j, ca, NULL);
        sim__jout_str(j, o, "name", c < sc->n_classes ? sc->classes[c].name : "all");
        if (c < sc->n_classes) {
            sim__jout_str(j, o, "kind", sim_kind_name((int)sc->classes[c].kind));
            sim__jout_int(j, o, "index", (int64_t)c);
        }
        put_class(j, o, &r->classes[c]);
        sim__fig sp[SIM__FIGS_MAX];
        if (c < sc->n_classes)
            put_group(j, o, NULL, 0, sp, sim__figs_class_special(&r->classes[c], sp));
    }
    sim__jnode *sa = sim__jout_array(j, root, "services");
    for (size_t v = 0; v < sc->n_services; v++) {
        sim__jnode *o = sim__jout_object(j, sa, NULL);
        sim__jout_str(j, o, "name", sc->services[v].cfg.name);
        put_service(j, o, &sc->services[v], &r->services[v]);
    }
    sim__jnode *pa = sim__jout_array(j, root, "pools");
    for (size_t p = 0; p < sc->n_pools; p++) {
        sim__jnode *o = sim__jout_object(j, pa, NULL);
        sim__jout_str(j, o, "name", sc->pools[p].name);
        put_gpu_time(j, o, &r->pools[p]);
    }
    sim__jnode *ta = sim__jout_array(j, root, "types");
    for (size_t t = 0; t < sc->n_types; t++) {
        if (!sim__fleet_has_type(sc, t))
            continue;
        sim__jnode *o = sim__jout_object(j, ta, NULL);
        sim__jout_str(j, o, "name", sc->types[t].name);
        put_gpu_time(j, o, &r->types[t]);
    }
    put_tenants(j, root, sc, r);
    put_ledger(j, root, sc, r);
    put_cost(j, root, sc, r, &cost);
    rc = sim__jout_print(j, f, SIM__JOUT_PRETTY, diag);
    sim__jout_free(j);
    sim__cost_report_fini(&cost);
    return rc;
}
