/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cost_json.c — the "cost" section of a scenario, and its resolved form.
 *
 * The cost model's parameters (model/cost_int.h; docs/cost.md) start at
 * sim_cost_defaults and every key given replaces one. The section is read
 * after the fleet and the workload, so GPU types, classes and services can
 * be named. sim__scenario_cost_json writes back what the model uses, for
 * the output files of the cost report and of breakeven studies.
 */
#include "config/config_int.h"

#include "model/cost_int.h"
#include "model/service_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The "cost" section (the model: docs/cost.md; keys: scenarios/SCHEMA.md).
 * Parsed after the fleet and the workload, so GPU types, classes and
 * services can be named. Every key is optional: what is not given keeps the
 * default of sim_cost_defaults. */

static int load_cost_api(sim__loader *L, const cJSON *o, sim_cost_cfg *c)
{
    static const char *const keys[] = {"model", "prices", "services", "yearly_price_factor", NULL};
    const char *p = "cost.api";
    char q[SIM__PATH_MAX_LEN], id[SIM_NAME_MAX];
    int rc = sim__cfg_check_object(L, o, p, keys);
    if (rc || (rc = sim__cfg_get_number(L, o, p, "yearly_price_factor",
                                        &c->api_price_factor_per_year, 0.01, 100, 0)))
        return rc;
    const cJSON *prices = sim__json_member(o, "prices");
    sim__json_child(q, p, "prices");
    if (prices && !cJSON_IsArray(prices))
        return sim__cfg_fail(L, q, "expected an array of prices, got %s", sim__json_kind(prices));
    int i = 0;
    for (const cJSON *e = prices ? prices->child : NULL; e; e = e->next, i++) {
        static const char *const pk[] = {
            "id", "input_usd_per_mtok", "output_usd_per_mtok", "batch_discount", "serves", NULL};
        char r[SIM__PATH_MAX_LEN];
        sim__json_element(r, q, i);
        if ((rc = sim__cfg_check_object(L, e, r, pk)) ||
            (rc = sim__cfg_get_string(L, e, r, "id", id, sizeof id, NULL)))
            return rc;
        int k = sim_cost_api_find(c, id);
        sim_cost_api_price *a;
        if (k >= 0) {
            a = &c->api[k];
        } else {
            if (c->n_api == SIM_COST_API_MAX)
                return sim__cfg_fail(L, r, "more than %d API prices", SIM_COST_API_MAX);
            a = &c->api[c->n_api++];
            memset(a, 0, sizeof *a);
            snprintf(a->id, sizeof a->id, "%s", id);
        }
        if ((rc = sim__cfg_get_number(L, e, r, "input_usd_per_mtok", &a->in_usd_per_mtok, 0, 1e6,
                                      k < 0)) ||
            (rc = sim__cfg_get_number(L, e, r, "output_usd_per_mtok", &a->out_usd_per_mtok, 0, 1e6,
                                      k < 0)) ||
            (rc = sim__cfg_get_number(L, e, r, "batch_discount", &a->batch_discount, 0, 1, 0)) ||
            (rc = sim__cfg_get_string(L, e, r, "serves", a->serves, sizeof a->serves, a->serves)))
            return rc;
    }
    if (sim__json_member(o, "model")) {
        if ((rc = sim__cfg_get_string(L, o, p, "model", id, sizeof id, NULL)))
            return rc;
        sim__json_child(q, p, "model");
        if ((c->api_default = sim_cost_api_find(c, id)) < 0)
            return sim__cfg_fail(L, q,
                                 "no API \"%s\" in the price list (docs/cost.md, or add it under "
                                 "cost.api.prices)",
                                 id);
    }
    const cJSON *svc = sim__json_member(o, "services");
    sim__json_child(q, p, "services");
    if (svc && !cJSON_IsObject(svc))
        return sim__cfg_fail(L, q, "expected {\"service\": \"API id\"}, got %s",
                             sim__json_kind(svc));
    for (const cJSON *e = svc ? svc->child : NULL; e; e = e->next) {
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, e->string);
        size_t s;
        for (s = 0; s < L->sc->n_services; s++)
            if (strcmp(L->sc->services[s].cfg.name, e->string) == 0)
                break;
        if (s == L->sc->n_services)
            return sim__cfg_fail(L, r, "no service named \"%s\" in workload.services", e->string);
        if (!cJSON_IsString(e))
            return sim__cfg_fail(L, r, "expected an API id, got %s", sim__json_kind(e));
        int k = sim_cost_api_find(c, e->valuestring);
        if (k < 0)
            return sim__cfg_fail(L, r, "no API \"%s\" in the price list", e->valuestring);
        if (c->n_service_api == SIM_COST_MAP_MAX)
            return sim__cfg_fail(L, r, "more than %d services mapped", SIM_COST_MAP_MAX);
        c->service_api[c->n_service_api++] = (sim_cost_service_api){(uint32_t)s, k};
    }
    return TM_OK;
}

static int load_cost_batch(sim__loader *L, const cJSON *arr, sim_cost_cfg *c)
{
    const char *p = "cost.batch";
    if (!cJSON_IsArray(arr))
        return sim__cfg_fail(
            L, p, "expected an array of {\"class\", \"tokens_in_per_gpu_s\", ...}, got %s",
            sim__json_kind(arr));
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        static const char *const keys[] = {"class", "tokens_in_per_gpu_s", "tokens_out_per_gpu_s",
                                           "api", NULL};
        char r[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN], name[SIM_NAME_MAX], api[SIM_NAME_MAX];
        sim__json_element(r, p, i);
        if (c->n_batch == SIM_COST_MAP_MAX)
            return sim__cfg_fail(L, r, "more than %d batch classes", SIM_COST_MAP_MAX);
        sim_cost_batch *b = &c->batch[c->n_batch];
        memset(b, 0, sizeof *b);
        int rc = sim__cfg_check_object(L, e, r, keys);
        if (rc || (rc = sim__cfg_get_string(L, e, r, "class", name, sizeof name, NULL)) ||
            (rc = sim__cfg_get_number(L, e, r, "tokens_in_per_gpu_s", &b->tok_in_per_gpu_s, 0, 1e12,
                                      0)) ||
            (rc = sim__cfg_get_number(L, e, r, "tokens_out_per_gpu_s", &b->tok_out_per_gpu_s, 0,
                                      1e12, 0)) ||
            (rc = sim__cfg_get_string(L, e, r, "api", api, sizeof api, "")))
            return rc;
        size_t k;
        for (k = 0; k < L->sc->n_classes; k++)
            if (strcmp(L->sc->classes[k].name, name) == 0)
                break;
        sim__json_child(q, r, "class");
        if (k == L->sc->n_classes)
            return sim__cfg_fail(L, q, "no class named \"%s\" in workload.classes", name);
        b->cls = (uint32_t)k;
        b->api = api[0] ? sim_cost_api_find(c, api) : c->api_default;
        sim__json_child(q, r, "api");
        if (b->api < 0)
            return sim__cfg_fail(L, q, "no API \"%s\" in the price list", api);
        if (!(b->tok_in_per_gpu_s + b->tok_out_per_gpu_s > 0))
            return sim__cfg_fail(L, r, "give tokens_in_per_gpu_s or tokens_out_per_gpu_s (> 0)");
        c->n_batch++;
    }
    return TM_OK;
}

static int load_cost_owned(sim__loader *L, const cJSON *o, sim_cost_cfg *c)
{
    static const char *const keys[] = {"server_usd_per_gpu",
                                       "gpu_share_of_server",
                                       "spares",
                                       "network",
                                       "storage",
                                       "install",
                                       "depreciation_years",
                                       "residual",
                                       "cost_of_capital",
                                       "maintenance_per_year",
                                       "server_power_factor",
                                       "pue",
                                       "electricity_usd_per_kwh",
                                       "colocation_usd_per_kw_month",
                                       "staff_fte_per_1000_gpus",
                                       "staff_min_fte",
                                       "staff_usd_per_fte_year",
                                       NULL};
    const char *p = "cost.owned";
    int rc = sim__cfg_check_object(L, o, p, keys);
    if (rc ||
        (rc = sim__cfg_get_number(L, o, p, "gpu_share_of_server", &c->gpu_share_of_server, 1e-3, 1,
                                  0)) ||
        (rc = sim__cfg_get_number(L, o, p, "spares", &c->spares_fraction, 0, 10, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "network", &c->network_fraction, 0, 10, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "storage", &c->storage_fraction, 0, 10, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "install", &c->install_fraction, 0, 10, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "depreciation_years", &c->depreciation_years, 0.01, 100,
                                  0)) ||
        (rc = sim__cfg_get_number(L, o, p, "residual", &c->residual_fraction, 0, 1, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "cost_of_capital", &c->capital_rate_per_year, 0, 10,
                                  0)) ||
        (rc = sim__cfg_get_number(L, o, p, "maintenance_per_year",
                                  &c->maintenance_fraction_per_year, 0, 10, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "server_power_factor", &c->server_power_factor, 1, 100,
                                  0)) ||
        (rc = sim__cfg_get_number(L, o, p, "pue", &c->pue, 1, 10, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "electricity_usd_per_kwh", &c->electricity_usd_per_kwh,
                                  0, 1e3, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "colocation_usd_per_kw_month",
                                  &c->colocation_usd_per_kw_month, 0, 1e6, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "staff_fte_per_1000_gpus", &c->staff_fte_per_1000_gpus,
                                  0, 1e6, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "staff_min_fte", &c->staff_min_fte, 0, 1e6, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "staff_usd_per_fte_year", &c->staff_usd_per_fte_year, 0,
                                  1e9, 0)))
        return rc;
    if (sim__json_member(o, "gpu_share_of_server"))
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            c->gpu_share_of_server_type[t] = NAN; /* one share for every type, as given */
    const cJSON *srv = sim__json_member(o, "server_usd_per_gpu");
    char q[SIM__PATH_MAX_LEN];
    sim__json_child(q, p, "server_usd_per_gpu");
    if (srv && !cJSON_IsObject(srv))
        return sim__cfg_fail(L, q, "expected {\"GPU type\": USD per GPU of a server}, got %s",
                             sim__json_kind(srv));
    for (const cJSON *e = srv ? srv->child : NULL; e; e = e->next) {
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, e->string);
        uint32_t t = 0;
        if ((rc = sim__cfg_find_type(L, r, e->string, &t)))
            return rc;
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > 1e9)
            return sim__cfg_fail(L, r, "expected a price in [0, 1e9] USD, got %s",
                                 sim__json_kind(e));
        c->server_usd_per_gpu[t] = e->valuedouble;
    }
    return TM_OK;
}

int sim__cfg_load_cost(sim__loader *L, const cJSON *o)
{
    if (!o)
        return TM_OK;
    static const char *const keys[] = {"owned", "cloud", "api", "batch", NULL};
    int rc = sim__cfg_check_object(L, o, "cost", keys);
    if (rc)
        return rc;
    sim_cost_cfg *c = malloc(sizeof *c);
    if (!c)
        return sim__cfg_oom(L);
    sim_cost_defaults(c);
    L->sc->cost = c; /* owned by the scenario from here: fini frees it */
    const cJSON *cl = sim__json_member(o, "cloud");
    if (sim__json_member(o, "owned") && (rc = load_cost_owned(L, sim__json_member(o, "owned"), c)))
        return rc;
    if (cl) {
        static const char *const ck[] = {"overhead", NULL};
        if ((rc = sim__cfg_check_object(L, cl, "cost.cloud", ck)) ||
            (rc = sim__cfg_get_number(L, cl, "cost.cloud", "overhead", &c->cloud_overhead_fraction,
                                      0, 10, 0)))
            return rc;
    }
    if (sim__json_member(o, "api") && (rc = load_cost_api(L, sim__json_member(o, "api"), c)))
        return rc;
    if (sim__json_member(o, "batch") && (rc = load_cost_batch(L, sim__json_member(o, "batch"), c)))
        return rc;
    return TM_OK;
}

char *sim__scenario_cost_json(const sim_scenario *sc)
{
    const sim_cost_cfg *c = sim_scenario_cost(sc);
    /* the Add calls below are not checked one by one: the hooks note any
     * allocation that failed, and then the text (which would lack members)
     * is not returned */
    sim__json_track_oom();
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return NULL;
    cJSON *o = cJSON_AddObjectToObject(r, "owned");
    cJSON *srv = cJSON_AddObjectToObject(o, "server_usd_per_gpu");
    for (size_t t = 0; t < sc->n_types; t++)
        if (isfinite(c->server_usd_per_gpu[t]))
            cJSON_AddNumberToObject(srv, sc->types[t].name, c->server_usd_per_gpu[t]);
    const struct {
        const char *k;
        double v;
    } f[] = {{"gpu_share_of_server", c->gpu_share_of_server},
             {"spares", c->spares_fraction},
             {"network", c->network_fraction},
             {"storage", c->storage_fraction},
             {"install", c->install_fraction},
             {"depreciation_years", c->depreciation_years},
             {"residual", c->residual_fraction},
             {"cost_of_capital", c->capital_rate_per_year},
             {"maintenance_per_year", c->maintenance_fraction_per_year},
             {"server_power_factor", c->server_power_factor},
             {"pue", c->pue},
             {"electricity_usd_per_kwh", c->electricity_usd_per_kwh},
             {"colocation_usd_per_kw_month", c->colocation_usd_per_kw_month},
             {"staff_fte_per_1000_gpus", c->staff_fte_per_1000_gpus},
             {"staff_min_fte", c->staff_min_fte},
             {"staff_usd_per_fte_year", c->staff_usd_per_fte_year}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        cJSON_AddNumberToObject(o, f[i].k, f[i].v);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(r, "cloud"), "overhead",
                            c->cloud_overhead_fraction);
    cJSON *api = cJSON_AddObjectToObject(r, "api");
    cJSON_AddStringToObject(api, "model", c->api_default >= 0 ? c->api[c->api_default].id : "");
    cJSON_AddNumberToObject(api, "yearly_price_factor", c->api_price_factor_per_year);
    cJSON *prices = cJSON_AddArrayToObject(api, "prices");
    for (size_t i = 0; i < c->n_api; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "id", c->api[i].id);
        cJSON_AddNumberToObject(e, "input_usd_per_mtok", c->api[i].in_usd_per_mtok);
        cJSON_AddNumberToObject(e, "output_usd_per_mtok", c->api[i].out_usd_per_mtok);
        cJSON_AddNumberToObject(e, "batch_discount", c->api[i].batch_discount);
        if (c->api[i].serves[0])
            cJSON_AddStringToObject(e, "serves", c->api[i].serves);
        if (!cJSON_AddItemToArray(prices, e))
            cJSON_Delete(e); /* prices could not be made: noted by the hooks */
    }
    cJSON *svc = cJSON_AddObjectToObject(api, "services");
    for (size_t i = 0; i < c->n_service_api; i++)
        cJSON_AddStringToObject(svc, sc->services[c->service_api[i].svc].cfg.name,
                                c->api[c->service_api[i].api].id);
    cJSON *batch = cJSON_AddArrayToObject(r, "batch");
    for (size_t i = 0; i < c->n_batch; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "class", sc->classes[c->batch[i].cls].name);
        cJSON_AddNumberToObject(e, "tokens_in_per_gpu_s", c->batch[i].tok_in_per_gpu_s);
        cJSON_AddNumberToObject(e, "tokens_out_per_gpu_s", c->batch[i].tok_out_per_gpu_s);
        cJSON_AddStringToObject(e, "api", c->api[c->batch[i].api].id);
        if (!cJSON_AddItemToArray(batch, e))
            cJSON_Delete(e);
    }
    char *s = sim__json_oom_seen() ? NULL : cJSON_Print(r);
    cJSON_Delete(r);
    if (s && sim__json_oom_seen()) {
        free(s);
        s = NULL;
    }
    return s;
}
