/* SPDX-License-Identifier: Apache-2.0 */
/*
 * services.c — real-time inference services: model, load, SLO, overflow,
 * autoscaling and specialization.
 *
 * A service starts from sim__svc_cfg_defaults, then a preset (a model on
 * known GPU types) if one is named, then the keys given. The model part
 * (load_service_model) is also what a specialization may replace, so it is
 * read by the same function for both. model/ checks the finished
 * configuration; its message is placed at the service's path.
 */
#include "config/config_int.h"

#include "model/llm_int.h"
#include "model/service_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* services                                                                   */

static const char *const service_keys[] = {
    "name",         "preset",      "model",     "replica_gpus", "gpu_mem_gib",    "gpu_types",
    "tokens_per_s", "concurrency", "tokens_in", "tokens_out",   "prefill_weight", "load",
    "slo",          "overflow",    "autoscale", "priority",     "api_price",      "specialize",
    "mode",         "request",     NULL};

/* "mode": "hourly" (default) or "request", and the request mode's
 * "request": {"model", "batching", "tpot"} (docs/llm-serving.md, "In fleet
 * runs"). The model defaults to the preset's name without its -tpN or
 * -vllmX suffix when that is a model of llm_iter.c. */
static int load_request_mode(sim__loader *L, const cJSON *o, const char *p, sim__svc_cfg *cfg)
{
    char mode[16], q[SIM__PATH_MAX_LEN], preset[SIM_NAME_MAX];
    int rc;
    if ((rc = sim__cfg_get_string(L, o, p, "mode", mode, sizeof mode, "hourly")))
        return rc;
    const cJSON *rq = sim__json_member(o, "request");
    if (strcmp(mode, "hourly") == 0) {
        if (rq) {
            sim__json_child(q, p, "request");
            return sim__cfg_fail(L, q, "only with \"mode\": \"request\"");
        }
        return TM_OK;
    }
    if (strcmp(mode, "request") != 0) {
        sim__json_child(q, p, "mode");
        return sim__cfg_fail(L, q, "expected \"hourly\" or \"request\", got \"%s\"", mode);
    }
    cfg->request_mode = 1;
    if ((rc = sim__cfg_get_string(L, o, p, "preset", preset, sizeof preset, "")))
        return rc;
    char *cut = strstr(preset, "-tp");
    if (!cut)
        cut = strstr(preset, "-vllm");
    if (cut)
        *cut = '\0';
    snprintf(cfg->llm_model, sizeof cfg->llm_model, "%s", preset);
    char batching[16] = "vllm";
    int64_t tpot_us = 200000;
    if (rq) {
        sim__json_child(q, p, "request");
        static const char *const keys[] = {"model", "batching", "tpot", NULL};
        if ((rc = sim__cfg_check_object(L, rq, q, keys)) ||
            (rc = sim__cfg_get_string(L, rq, q, "model", cfg->llm_model, sizeof cfg->llm_model,
                                      cfg->llm_model)) ||
            (rc = sim__cfg_get_string(L, rq, q, "batching", batching, sizeof batching, "vllm")) ||
            (rc = sim__cfg_get_duration(L, rq, q, "tpot", &tpot_us, 0)))
            return rc;
    } else {
        sim__json_child(q, p, "mode");
    }
    if (!sim__llm_model_find(cfg->llm_model)) {
        size_t n;
        const sim__llm_model *all = sim__llm_models(&n);
        char list[256] = "";
        for (size_t i = 0; i < n; i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, all[i].name, sizeof list - strlen(list) - 1);
        }
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, rq ? "model" : "");
        return sim__cfg_fail(L, rq ? r : q,
                             "request mode needs a model (%s) in request.model, got \"%s\"", list,
                             cfg->llm_model);
    }
    if (strcmp(batching, "vllm") == 0)
        cfg->llm_sarathi = 0;
    else if (strcmp(batching, "sarathi") == 0)
        cfg->llm_sarathi = 1;
    else {
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, "batching");
        return sim__cfg_fail(L, r, "expected \"vllm\" or \"sarathi\", got \"%s\"", batching);
    }
    if (tpot_us <= 0) {
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, "tpot");
        return sim__cfg_fail(L, r, "expected a duration > 0");
    }
    cfg->slo_tpot_s = (double)tpot_us / (double)SIM_US_PER_S;
    return TM_OK;
}

/* autoscale.signal (request mode only): "queue" or "kv", its target and
 * the re-evaluation period (docs/llm-serving.md, "Scaling on a signal"). */
static int load_scale_signal(sim__loader *L, const cJSON *as, const char *q, sim__svc_cfg *cfg)
{
    char sig[16], r[SIM__PATH_MAX_LEN];
    int rc;
    if ((rc = sim__cfg_get_string(L, as, q, "signal", sig, sizeof sig, "")))
        return rc;
    if (sig[0] == '\0') {
        static const char *const dep[] = {"signal_target", "signal_period", NULL};
        for (int i = 0; dep[i]; i++)
            if (sim__json_member(as, dep[i])) {
                sim__json_child(r, q, dep[i]);
                return sim__cfg_fail(L, r, "only with \"signal\"");
            }
        return TM_OK;
    }
    sim__json_child(r, q, "signal");
    if (strcmp(sig, "queue") == 0)
        cfg->scale_signal = SIM__SVC_SIGNAL_QUEUE;
    else if (strcmp(sig, "kv") == 0)
        cfg->scale_signal = SIM__SVC_SIGNAL_KV;
    else
        return sim__cfg_fail(L, r, "expected \"queue\" or \"kv\", got \"%s\"", sig);
    if (!cfg->request_mode)
        return sim__cfg_fail(L, r,
                             "only with \"mode\": \"request\" (the hourly model has no "
                             "queue or KV cache)");
    int64_t per = 3600 * SIM_US_PER_S;
    if ((rc = sim__cfg_get_number(L, as, q, "signal_target", &cfg->scale_target, 1e-9,
                                  cfg->scale_signal == SIM__SVC_SIGNAL_KV ? 1.0 : 1e9, 1)) ||
        (rc = sim__cfg_get_duration(L, as, q, "signal_period", &per, 0)))
        return rc;
    if (per < SIM_US_PER_S) {
        sim__json_child(r, q, "signal_period");
        return sim__cfg_fail(L, r, "expected a duration of at least 1s");
    }
    cfg->scale_period_s = (double)per / SIM_US_PER_S;
    return TM_OK;
}

/* The shape and throughput of a service's model (also what a specialization
 * may change). */
static int load_service_model(sim__loader *L, const cJSON *o, const char *p, sim__svc_cfg *cfg,
                              sim_service_spec *spec)
{
    char q[SIM__PATH_MAX_LEN], preset[SIM_NAME_MAX];
    tm_diag sub;
    tm_diag_clear(&sub);
    int rc = sim__cfg_get_string(L, o, p, "preset", preset, sizeof preset, "");
    if (rc)
        return rc;
    if (preset[0]) {
        sim__json_child(q, p, "preset");
        const sim__svc_preset *ps = sim__svc_preset_find(preset);
        if (!ps) {
            size_t n;
            const sim__svc_preset *all = sim__svc_presets(&n);
            char list[300] = "";
            size_t len = 0;
            for (size_t i = 0; i < n && len < sizeof list - 60; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                        all[i].name);
            return sim__cfg_fail(L, q, "no service preset \"%s\" (%s)", preset, list);
        }
        if (sim__svc_cfg_apply_preset(cfg, ps, L->sc->types, L->sc->n_types, &sub) != TM_OK)
            return sim__cfg_fail(L, q, "%s", sub.msg);
    }
    int64_t rg = cfg->replica_gpus;
    double mem = cfg->gpu_mem_mib / 1024.0;
    if ((rc = sim__cfg_get_text(L, o, p, "model", cfg->model, sizeof cfg->model, cfg->model, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "replica_gpus", &rg, 1, PLACE_MAX_GPUS_PER_NODE, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "gpu_mem_gib", &mem, 0, 65536, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "tokens_in", &cfg->tokens_in_per_req, 0, 1e9, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "tokens_out", &cfg->tokens_out_per_req, 0, 1e9, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "prefill_weight", &cfg->prefill_weight, 0, 1e3, 0)))
        return rc;
    cfg->replica_gpus = (uint32_t)rg;
    cfg->gpu_mem_mib = (uint32_t)llround(mem * 1024);
    const cJSON *tps = sim__json_member(o, "tokens_per_s");
    if (tps) {
        sim__json_child(q, p, "tokens_per_s");
        if (!cJSON_IsObject(tps))
            return sim__cfg_fail(
                L, q, "expected {\"GPU type\": tokens/s of one replica at the SLO}, got %s",
                sim__json_kind(tps));
        for (const cJSON *e = tps->child; e; e = e->next) {
            char r[SIM__PATH_MAX_LEN];
            sim__json_child(r, q, e->string);
            uint32_t t = 0;
            if ((rc = sim__cfg_find_type(L, r, e->string, &t)))
                return rc;
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
                e->valuedouble > 1e9)
                return sim__cfg_fail(L, r, "expected tokens/s in [0, 1e+09], got %s",
                                     sim__json_kind(e));
            cfg->tokens_per_s[t] = e->valuedouble;
            if (e->valuedouble > 0 && cfg->type_mask)
                cfg->type_mask |= 1ull << t;
        }
    }
    const cJSON *conc = sim__json_member(o, "concurrency");
    if (cJSON_IsNumber(conc)) {
        int64_t c;
        if ((rc = sim__cfg_get_int(L, o, p, "concurrency", &c, 1, 1 << 20, 1)))
            return rc;
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            cfg->concurrency[t] = (uint32_t)c;
    } else if (conc) {
        sim__json_child(q, p, "concurrency");
        if (!cJSON_IsObject(conc))
            return sim__cfg_fail(L, q, "expected a number or {\"GPU type\": slots}, got %s",
                                 sim__json_kind(conc));
        for (const cJSON *e = conc->child; e; e = e->next) {
            char r[SIM__PATH_MAX_LEN];
            sim__json_child(r, q, e->string);
            uint32_t t = 0;
            if ((rc = sim__cfg_find_type(L, r, e->string, &t)))
                return rc;
            if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > (1 << 20) ||
                e->valuedouble != floor(e->valuedouble))
                return sim__cfg_fail(L, r, "expected an integer number of slots >= 1, got %s",
                                     sim__json_kind(e));
            cfg->concurrency[t] = (uint32_t)e->valuedouble;
        }
    }
    const cJSON *types = sim__json_member(o, "gpu_types");
    if (types) {
        sim__json_child(q, p, "gpu_types");
        if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) < 1)
            return sim__cfg_fail(L, q, "expected a non-empty array of GPU type names, got %s",
                                 sim__json_kind(types));
        uint64_t mask = 0;
        int i = 0;
        for (const cJSON *e = types->child; e; e = e->next, i++) {
            char r[SIM__PATH_MAX_LEN];
            sim__json_element(r, q, i);
            uint32_t t = 0;
            if (!cJSON_IsString(e))
                return sim__cfg_fail(L, r, "expected a GPU type name, got %s", sim__json_kind(e));
            if ((rc = sim__cfg_find_type(L, r, e->valuestring, &t)))
                return rc;
            mask |= 1ull << t;
        }
        cfg->type_mask = mask;
    }
    const cJSON *api = sim__json_member(o, "api_price");
    if (api) {
        sim__json_child(q, p, "api_price");
        static const char *const keys[] = {"input_usd_per_mtok", "output_usd_per_mtok", NULL};
        if ((rc = sim__cfg_check_object(L, api, q, keys)) ||
            (rc = sim__cfg_get_number(L, api, q, "input_usd_per_mtok", &spec->api_in_usd_per_mtok,
                                      0, 1e6, 1)) ||
            (rc = sim__cfg_get_number(L, api, q, "output_usd_per_mtok", &spec->api_out_usd_per_mtok,
                                      0, 1e6, 1)))
            return rc;
    }
    return TM_OK;
}

static int load_service(sim__loader *L, const cJSON *o, const char *p, sim_service_spec *spec,
                        int index)
{
    int rc = sim__cfg_check_object(L, o, p, service_keys);
    if (rc)
        return rc;
    sim__svc_cfg *cfg = &spec->cfg;
    sim__svc_cfg_defaults(cfg);
    spec->priority = 100;
    spec->special_at_us = -1;
    char defname[SIM_NAME_MAX], q[SIM__PATH_MAX_LEN];
    snprintf(defname, sizeof defname, "service%d", index);
    if ((rc = sim__cfg_get_name(L, o, p, "name", cfg->name, sizeof cfg->name, defname)) ||
        (rc = load_service_model(L, o, p, cfg, spec)))
        return rc;
    sim__json_child(q, p, "load");
    const cJSON *ld = sim__json_member(o, "load");
    if (!ld)
        return sim__cfg_fail(L, q, "required: the request load (requests/s, with its profile)");
    double offered;
    if ((rc = sim__cfg_load_arrival(L, ld, q, &cfg->load, &offered)))
        return rc;
    if (!isnan(offered))
        return sim__cfg_fail(
            L, q, "a service's load is a request rate (rate_per_s, ...), not offered_load");
    const cJSON *slo = sim__json_member(o, "slo");
    if (slo) {
        sim__json_child(q, p, "slo");
        static const char *const keys[] = {"latency", "kind", "target", NULL};
        int64_t lat_us = (int64_t)(cfg->slo_s * SIM_US_PER_S);
        char kind[16];
        if ((rc = sim__cfg_check_object(L, slo, q, keys)) ||
            (rc = sim__cfg_get_duration(L, slo, q, "latency", &lat_us, 0)) ||
            (rc = sim__cfg_get_string(L, slo, q, "kind", kind, sizeof kind, "wait")) ||
            (rc = sim__cfg_get_number(L, slo, q, "target", &cfg->slo_target, 1e-6, 0.999999, 0)))
            return rc;
        cfg->slo_s = (double)lat_us / SIM_US_PER_S;
        if (strcmp(kind, "wait") == 0)
            cfg->slo_kind = SIM__SVC_SLO_WAIT;
        else if (strcmp(kind, "response") == 0)
            cfg->slo_kind = SIM__SVC_SLO_RESPONSE;
        else {
            char r[SIM__PATH_MAX_LEN];
            sim__json_child(r, q, "kind");
            return sim__cfg_fail(
                L, r, "expected \"wait\" (time to first token) or \"response\", got \"%s\"", kind);
        }
    }
    if ((rc = load_request_mode(L, o, p, cfg)))
        return rc;
    char ov[16];
    if ((rc = sim__cfg_get_string(L, o, p, "overflow", ov, sizeof ov, "miss")))
        return rc;
    if (strcmp(ov, "miss") == 0)
        cfg->overflow = SIM__SVC_OVERFLOW_MISS;
    else if (strcmp(ov, "api") == 0)
        cfg->overflow = SIM__SVC_OVERFLOW_API;
    else {
        sim__json_child(q, p, "overflow");
        return sim__cfg_fail(L, q, "expected \"miss\" or \"api\", got \"%s\"", ov);
    }
    const cJSON *as = sim__json_member(o, "autoscale");
    if (as) {
        sim__json_child(q, p, "autoscale");
        static const char *const keys[] = {"min",
                                           "max",
                                           "target_util",
                                           "scale_up_delay",
                                           "scale_down_window",
                                           "signal",
                                           "signal_target",
                                           "signal_period",
                                           NULL};
        int64_t mn = cfg->min_replicas, mx = cfg->max_replicas;
        int64_t up = (int64_t)(cfg->scale_up_delay_s * SIM_US_PER_S);
        int64_t down = (int64_t)(cfg->scale_down_window_s * SIM_US_PER_S);
        if ((rc = sim__cfg_check_object(L, as, q, keys)) ||
            (rc = sim__cfg_get_int(L, as, q, "min", &mn, 0, 1000000, 0)) ||
            (rc = sim__cfg_get_int(L, as, q, "max", &mx, 1, 1000000, 0)) ||
            (rc = sim__cfg_get_number(L, as, q, "target_util", &cfg->target_util, 0.01, 1, 0)) ||
            (rc = sim__cfg_get_duration(L, as, q, "scale_up_delay", &up, 0)) ||
            (rc = sim__cfg_get_duration(L, as, q, "scale_down_window", &down, 0)))
            return rc;
        if (mn > mx)
            return sim__cfg_fail(L, q, "min (%lld) is above max (%lld)", (long long)mn,
                                 (long long)mx);
        cfg->min_replicas = (uint32_t)mn;
        cfg->max_replicas = (uint32_t)mx;
        cfg->scale_up_delay_s = (double)up / SIM_US_PER_S;
        cfg->scale_down_window_s = (double)down / SIM_US_PER_S;
        if ((rc = load_scale_signal(L, as, q, cfg)))
            return rc;
    }
    int64_t prio = spec->priority;
    if ((rc = sim__cfg_get_int(L, o, p, "priority", &prio, -1000000, 1000000, 0)))
        return rc;
    spec->priority = (int32_t)prio;
    tm_diag sub;
    tm_diag_clear(&sub);
    if (sim__svc_cfg_check(cfg, L->sc->n_types, &sub) != TM_OK)
        return sim__cfg_fail(L, p, "%s: %s", sub.where, sub.msg);
    const cJSON *sp = sim__json_member(o, "specialize");
    if (sp) {
        sim__json_child(q, p, "specialize");
        static const char *const keys[] = {
            "at",          "preset",     "model",          "replica_gpus",
            "gpu_mem_gib", "gpu_types",  "tokens_per_s",   "concurrency",
            "tokens_in",   "tokens_out", "prefill_weight", "api_price",
            NULL};
        if ((rc = sim__cfg_check_object(L, sp, q, keys)) ||
            (rc = sim__cfg_get_duration(L, sp, q, "at", &spec->special_at_us, 1)))
            return rc;
        /* the same service from the same defaults, its model fields replaced */
        spec->special = *cfg;
        if (sim__json_member(sp, "preset") || sim__json_member(sp, "tokens_per_s")) {
            memset(spec->special.tokens_per_s, 0, sizeof spec->special.tokens_per_s);
            memset(spec->special.concurrency, 0, sizeof spec->special.concurrency);
            spec->special.type_mask = 0;
        }
        if ((rc = load_service_model(L, sp, q, &spec->special, spec)))
            return rc;
        if (sim__svc_cfg_check(&spec->special, L->sc->n_types, &sub) != TM_OK)
            return sim__cfg_fail(L, q, "%s: %s", sub.where, sub.msg);
    }
    return TM_OK;
}

int sim__cfg_load_services(sim__loader *L, const cJSON *arr)
{
    sim_scenario *sc = L->sc;
    if (!arr)
        return TM_OK;
    if (!cJSON_IsArray(arr))
        return sim__cfg_fail(L, "workload.services", "expected an array of services, got %s",
                             sim__json_kind(arr));
    int n = cJSON_GetArraySize(arr);
    if (n > SIM__MAX_SERVICES)
        return sim__cfg_fail(L, "workload.services", "expected at most %d services, got %d",
                             SIM__MAX_SERVICES, n);
    sc->services = calloc(n ? (size_t)n : 1, sizeof *sc->services);
    if (!sc->services)
        return sim__cfg_oom(L);
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "workload.services", i);
        sc->n_services = (size_t)i + 1;
        int rc = load_service(L, o, p, &sc->services[i], i);
        if (rc)
            return rc;
    }
    size_t rep;
    if (sim__names_first_repeat(sc->services[0].cfg.name, sc->n_services, sizeof *sc->services,
                                &rep) != TM_OK)
        return sim__cfg_oom(L);
    if (rep < sc->n_services) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "workload.services", (int)rep);
        return sim__cfg_fail(L, p, "service name \"%s\" used twice", sc->services[rep].cfg.name);
    }
    return TM_OK;
}
