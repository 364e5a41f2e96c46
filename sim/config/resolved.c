/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolved.c — the resolved scenario as JSON: every default filled in.
 *
 * What a run actually used, for the provenance of its output file: the
 * loader's typed structs written back as a cJSON tree and printed. The tree
 * is built without checking each call; the allocation hooks of json.c note
 * any failure, and then the whole text is refused rather than written with
 * pieces missing.
 */
#include "config/config_int.h"

#include "model/service_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------- */
/* the resolved scenario, as JSON                                             */

static cJSON *num_or_null(double x)
{
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static const char *dist_name(trace_dist_kind k)
{
    static const char *const names[] = {"constant", "exponential", "lognormal", "weibull",
                                        "pareto",   "uniform",     "discrete",  "empirical"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static cJSON *dist_json(const trace_dist *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dist", dist_name(d->kind));
    switch (d->kind) {
    case TRACE_DIST_CONSTANT:
        cJSON_AddNumberToObject(o, "value", d->p[0]);
        break;
    case TRACE_DIST_EXPONENTIAL:
        cJSON_AddNumberToObject(o, "mean", d->p[0]);
        break;
    case TRACE_DIST_LOGNORMAL:
        cJSON_AddNumberToObject(o, "mu", d->p[0]);
        cJSON_AddNumberToObject(o, "sigma", d->p[1]);
        break;
    case TRACE_DIST_WEIBULL:
        cJSON_AddNumberToObject(o, "scale", d->p[0]);
        cJSON_AddNumberToObject(o, "shape", d->p[1]);
        break;
    case TRACE_DIST_PARETO:
        cJSON_AddNumberToObject(o, "scale", d->p[0]);
        cJSON_AddNumberToObject(o, "alpha", d->p[1]);
        break;
    case TRACE_DIST_UNIFORM:
        cJSON_AddNumberToObject(o, "low", d->p[0]);
        cJSON_AddNumberToObject(o, "high", d->p[1]);
        break;
    case TRACE_DIST_DISCRETE:
        cJSON_AddItemToObject(o, "values", cJSON_CreateDoubleArray(d->values, (int)d->n));
        cJSON_AddItemToObject(o, "weights", cJSON_CreateDoubleArray(d->weights, (int)d->n));
        break;
    case TRACE_DIST_EMPIRICAL:
        cJSON_AddNumberToObject(o, "n_values", (double)d->n);
        break;
    }
    cJSON_AddItemToObject(o, "mean", num_or_null(trace_dist_mean(d)));
    cJSON_AddNumberToObject(o, "min", d->min);
    cJSON_AddItemToObject(o, "max", num_or_null(d->max));
    return o;
}

/* What a class's jobs are (also its specialization's). */
static void class_json(cJSON *o, const sim_scenario *sc, const sim_class_cfg *cc)
{
    cJSON_AddItemToObject(o, "gpus", dist_json(&cc->gpus));
    if (cc->use_work) {
        cJSON_AddItemToObject(o, "work_gpu_s", dist_json(&cc->work_gpu_s));
        cJSON_AddNumberToObject(o, "scaling_per_doubling", cc->scaling_per_doubling);
    } else {
        cJSON_AddItemToObject(o, "duration_s", dist_json(&cc->duration_s));
    }
    if (cc->has_share)
        cJSON_AddItemToObject(o, "gpu_milli", dist_json(&cc->share_milli));
    if (cc->slices)
        cJSON_AddNumberToObject(o, "gpu_slices", cc->slices);
    if (cc->has_estimate)
        cJSON_AddItemToObject(o, "estimate_factor", dist_json(&cc->estimate_factor));
    else
        cJSON_AddStringToObject(o, "estimate", "none");
    cJSON_AddBoolToObject(o, "preemptible", (cc->flags & TRACE_JOB_PREEMPTIBLE) != 0);
    cJSON_AddNumberToObject(o, "checkpoint_s", (double)cc->checkpoint_us / SIM_US_PER_S);
    cJSON_AddNumberToObject(o, "restart_overhead_s", (double)cc->restart_us / SIM_US_PER_S);
    cJSON_AddNumberToObject(o, "span_slowdown", cc->span_slowdown);
    cJSON_AddNumberToObject(o, "value", cc->value);
    if (cc->deadline_us >= 0)
        cJSON_AddNumberToObject(o, "deadline_s", (double)cc->deadline_us / SIM_US_PER_S);
    cJSON_AddStringToObject(o, "speed_basis",
                            cc->speed_basis == SIM_SPEED_MEMORY ? "memory" : "compute");
    cJSON *sp = cJSON_AddObjectToObject(o, "speeds");
    for (size_t t = 0; t < sc->n_types; t++)
        cJSON_AddNumberToObject(sp, sc->types[t].name, cc->speed[t]);
}

static void service_model_json(cJSON *o, const sim_scenario *sc, const sim__svc_cfg *cfg)
{
    cJSON_AddStringToObject(o, "model", cfg->model);
    cJSON_AddNumberToObject(o, "replica_gpus", cfg->replica_gpus);
    cJSON_AddNumberToObject(o, "gpu_mem_gib", cfg->gpu_mem_mib / 1024.0);
    cJSON *tps = cJSON_AddObjectToObject(o, "tokens_per_s");
    cJSON *conc = cJSON_AddObjectToObject(o, "concurrency");
    for (uint32_t t = 0; t < sc->n_types; t++)
        if (sim__svc_type_ok(cfg, t)) {
            cJSON_AddNumberToObject(tps, sc->types[t].name, cfg->tokens_per_s[t]);
            cJSON_AddNumberToObject(conc, sc->types[t].name, sim__svc_concurrency(cfg, t));
        }
    cJSON_AddNumberToObject(o, "tokens_in", cfg->tokens_in_per_req);
    cJSON_AddNumberToObject(o, "tokens_out", cfg->tokens_out_per_req);
    cJSON_AddNumberToObject(o, "prefill_weight", cfg->prefill_weight);
}

char *sim_scenario_resolved_json(const sim_scenario *sc)
{
    static const char *const own[] = {"owned", "reserved", "on-demand"};
    /* The tree is built without checking each call: any allocation that
     * fails on the way is noted by the hooks of json.c, and then the whole
     * text is refused rather than written with pieces missing. */
    sim__json_track_oom();
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return NULL;
    cJSON_AddStringToObject(r, "name", sc->name);
    cJSON_AddNumberToObject(r, "seed", (double)sc->seed);
    cJSON_AddNumberToObject(r, "horizon_s", (double)sc->horizon_us / SIM_US_PER_S);
    cJSON_AddStringToObject(r, "stop", sc->stop == SIM_STOP_DRAIN ? "drain" : "horizon");
    cJSON_AddNumberToObject(r, "sample_s", (double)sc->sample_us / SIM_US_PER_S);
    cJSON_AddStringToObject(r, "policy", sc->policy);
    cJSON_AddStringToObject(r, "reference_gpu", sc->types[sc->reference_type].name);
    cJSON *tenants = cJSON_AddArrayToObject(r, "tenants");
    for (size_t k = 0; k < sc->n_tenants; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sc->tenants[k]);
        cJSON_AddNumberToObject(o, "share", sc->tenant_share[k]);
        cJSON_AddItemToArray(tenants, o);
    }
    if (sc->failures.enabled) {
        cJSON *f = cJSON_AddObjectToObject(r, "failures");
        cJSON *m = cJSON_AddObjectToObject(f, "mtbf_h");
        for (size_t t = 0; t < sc->n_types; t++)
            cJSON_AddNumberToObject(m, sc->types[t].name, sc->failures.mtbf_h[t]);
        cJSON_AddItemToObject(f, "repair_s", dist_json(&sc->failures.repair_s));
        cJSON_AddBoolToObject(f, "restart", sc->failures.restart);
    }
    cJSON *types = cJSON_AddArrayToObject(r, "gpu_types");
    for (size_t t = 0; t < sc->n_types; t++) {
        const sim_gpu_type *g = &sc->types[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", g->name);
        cJSON_AddNumberToObject(o, "mem_gib", g->mem_mib / 1024.0);
        cJSON_AddItemToObject(o, "bf16_tflops", num_or_null(g->bf16_tflops));
        cJSON_AddItemToObject(o, "mem_bw_gbs", num_or_null(g->mem_bw_gbs));
        cJSON_AddItemToObject(o, "power_idle_w", num_or_null(g->power_idle_w));
        cJSON_AddItemToObject(o, "power_peak_w", num_or_null(g->power_peak_w));
        cJSON_AddItemToObject(o, "purchase_usd", num_or_null(g->purchase_usd));
        cJSON_AddItemToObject(o, "ondemand_usd_per_h", num_or_null(g->ondemand_usd_per_h));
        cJSON_AddItemToObject(o, "reserved_usd_per_h", num_or_null(g->reserved_usd_per_h));
        cJSON_AddNumberToObject(o, "partition_slices", g->partition_slices);
        cJSON_AddItemToArray(types, o);
    }
    cJSON *pools = cJSON_AddArrayToObject(cJSON_AddObjectToObject(r, "fleet"), "pools");
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", pc->name);
        cJSON_AddStringToObject(o, "gpu_type", sc->types[pc->type].name);
        cJSON_AddNumberToObject(o, "nodes", pc->nodes);
        cJSON_AddNumberToObject(o, "gpus_per_node", pc->gpus_per_node);
        if (pc->cpu_milli < INT64_MAX / 4)
            cJSON_AddNumberToObject(o, "cpu_cores", (double)pc->cpu_milli / 1000.0);
        if (pc->mem_mib < INT64_MAX / 4)
            cJSON_AddNumberToObject(o, "host_mem_gib", (double)pc->mem_mib / 1024.0);
        cJSON_AddStringToObject(o, "ownership", own[pc->ownership]);
        cJSON_AddNumberToObject(o, "delivered_s", (double)pc->delivered_us / SIM_US_PER_S);
        if (pc->retired_us >= 0)
            cJSON_AddNumberToObject(o, "retired_s", (double)pc->retired_us / SIM_US_PER_S);
        if (pc->has_tenant)
            cJSON_AddStringToObject(o, "tenant", sc->tenants[pc->tenant]);
        cJSON_AddItemToArray(pools, o);
    }
    cJSON *workload = cJSON_AddObjectToObject(r, "workload");
    cJSON *classes = cJSON_AddArrayToObject(workload, "classes");
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_cfg *cc = &sc->classes[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", cc->name);
        cJSON_AddStringToObject(o, "kind", sim_kind_name((int)cc->kind));
        cJSON *a = cJSON_AddObjectToObject(o, "arrival");
        cJSON_AddStringToObject(a, "process", "poisson");
        cJSON_AddNumberToObject(a, "rate_per_s", cc->arrival.rate_per_s);
        cJSON_AddItemToObject(a, "daily", cJSON_CreateDoubleArray(cc->arrival.daily, 24));
        cJSON_AddItemToObject(a, "weekly", cJSON_CreateDoubleArray(cc->arrival.weekly, 7));
        cJSON_AddNumberToObject(a, "growth_per_month", cc->arrival.growth_per_month);
        cJSON_AddNumberToObject(a, "start_offset_s", cc->arrival.t0_offset_s);
        if (cc->arrival.mmpp_states > 1) {
            cJSON *m = cJSON_AddObjectToObject(a, "mmpp");
            cJSON_AddItemToObject(
                m, "multipliers",
                cJSON_CreateDoubleArray(cc->arrival.mmpp_mult, (int)cc->arrival.mmpp_states));
            cJSON_AddItemToObject(
                m, "sojourn_s",
                cJSON_CreateDoubleArray(cc->arrival.mmpp_sojourn_s, (int)cc->arrival.mmpp_states));
        }
        class_json(o, sc, cc);
        cJSON_AddNumberToObject(o, "gpu_mem_gib", cc->gpu_mem_mib / 1024.0);
        cJSON *tl = cJSON_AddArrayToObject(o, "gpu_types");
        for (size_t t = 0; t < sc->n_types; t++)
            if ((cc->type_mask >> t) & 1u)
                cJSON_AddItemToArray(tl, cJSON_CreateString(sc->types[t].name));
        cJSON_AddBoolToObject(o, "can_span", (cc->flags & TRACE_JOB_CAN_SPAN) != 0);
        cJSON_AddNumberToObject(o, "priority", cc->priority);
        cJSON_AddNumberToObject(o, "max_jobs", (double)cc->max_jobs);
        if (cc->special) {
            cJSON *sp = cJSON_AddObjectToObject(o, "specialize");
            cJSON_AddNumberToObject(sp, "at_s", (double)cc->special_at_us / SIM_US_PER_S);
            class_json(sp, sc, cc->special);
        }
        cJSON_AddItemToArray(classes, o);
    }
    cJSON *services = cJSON_AddArrayToObject(workload, "services");
    for (size_t v = 0; v < sc->n_services; v++) {
        const sim_service_spec *sp = &sc->services[v];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sp->cfg.name);
        service_model_json(o, sc, &sp->cfg);
        const sim__svc_cfg *cfg = &sp->cfg;
        cJSON *ld = cJSON_AddObjectToObject(o, "load");
        cJSON_AddNumberToObject(ld, "rate_per_s", cfg->load.rate_per_s);
        cJSON_AddItemToObject(ld, "daily", cJSON_CreateDoubleArray(cfg->load.daily, 24));
        cJSON_AddItemToObject(ld, "weekly", cJSON_CreateDoubleArray(cfg->load.weekly, 7));
        cJSON_AddNumberToObject(ld, "growth_per_month", cfg->load.growth_per_month);
        cJSON_AddNumberToObject(ld, "start_offset_s", cfg->load.t0_offset_s);
        cJSON *slo = cJSON_AddObjectToObject(o, "slo");
        cJSON_AddNumberToObject(slo, "latency_s", cfg->slo_s);
        cJSON_AddStringToObject(slo, "kind",
                                cfg->slo_kind == SIM__SVC_SLO_WAIT ? "wait" : "response");
        cJSON_AddNumberToObject(slo, "target", cfg->slo_target);
        cJSON_AddStringToObject(o, "overflow",
                                cfg->overflow == SIM__SVC_OVERFLOW_API ? "api" : "miss");
        cJSON *as = cJSON_AddObjectToObject(o, "autoscale");
        cJSON_AddNumberToObject(as, "min", cfg->min_replicas);
        cJSON_AddNumberToObject(as, "max", cfg->max_replicas);
        cJSON_AddNumberToObject(as, "target_util", cfg->target_util);
        cJSON_AddNumberToObject(as, "scale_up_delay_s", cfg->scale_up_delay_s);
        cJSON_AddNumberToObject(as, "scale_down_window_s", cfg->scale_down_window_s);
        cJSON_AddNumberToObject(o, "priority", sp->priority);
        cJSON *api = cJSON_AddObjectToObject(o, "api_price");
        cJSON_AddNumberToObject(api, "input_usd_per_mtok", sp->api_in_usd_per_mtok);
        cJSON_AddNumberToObject(api, "output_usd_per_mtok", sp->api_out_usd_per_mtok);
        if (sp->special_at_us >= 0) {
            cJSON *s2 = cJSON_AddObjectToObject(o, "specialize");
            cJSON_AddNumberToObject(s2, "at_s", (double)sp->special_at_us / SIM_US_PER_S);
            service_model_json(s2, sc, &sp->special);
        }
        cJSON_AddItemToArray(services, o);
    }
    char *s = sim__json_oom_seen() ? NULL : cJSON_Print(r);
    cJSON_Delete(r);
    if (s && sim__json_oom_seen()) {
        free(s);
        s = NULL;
    }
    return s;
}
