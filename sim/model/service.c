/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service.c — the model of a real-time inference service: its configuration
 * (defaults and checks) and the presets of published throughput at the SLO.
 * service_int.h has the contract, docs/services.md the derivations and
 * sources. The rest of the model is in three files, one concern each:
 *   service_queue.c   the queueing formulas (Erlang B and C, M/M/n latency),
 *                     the SLO capacity and overflow rule, interval accounting;
 *   service_scaler.c  the autoscaler;
 *   service_reqsim.c  the request-level simulation that validates the formulas.
 *
 * How it works: a configuration starts from sim__svc_cfg_defaults (sources in
 * docs/services.md) and is checked field by field against the scenario's GPU
 * types; every error names its field as "service.<field>" (sim__svc_bad, which
 * the other service files use too). A preset fills the replica shape and the
 * per-type throughput and batch slots for the scenario's types, the slots by
 * Little's law from the measured inter-token latency.
 */
#include "model/service_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Azure LLM inference trace 2023, conversation service (splitwise_conv.csv):
 * means over its 19,366 requests, computed in ../shared/data/.../SOURCE.md. */
#define AZURE_CONV_TOKENS_IN  1154.7
#define AZURE_CONV_TOKENS_OUT 211.1

/* ------------------------------------------------------------------------- */
/* Configuration                                                              */

void sim__svc_cfg_defaults(sim__svc_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->name, sizeof cfg->name, "service");
    snprintf(cfg->model, sizeof cfg->model, "unspecified");
    cfg->replica_gpus = 1;
    cfg->tokens_in_per_req = AZURE_CONV_TOKENS_IN;
    cfg->tokens_out_per_req = AZURE_CONV_TOKENS_OUT;
    cfg->prefill_weight = 0.0;
    trace_arrival_cfg_poisson(&cfg->load, 0.0);
    /* MLPerf Inference Llama 2 70B Server: TTFT <= 2 s at the 99th percentile */
    cfg->slo_kind = SIM__SVC_SLO_WAIT;
    cfg->slo_s = 2.0;
    cfg->slo_target = 0.99;
    cfg->overflow = SIM__SVC_OVERFLOW_MISS;
    cfg->min_replicas = 1;
    cfg->max_replicas = 1000;
    cfg->target_util = 0.7;
    cfg->scale_up_delay_s = 300.0;
    cfg->scale_down_window_s = 300.0; /* Kubernetes HPA scale-down stabilization default */
}

double sim__svc_work_per_req(const sim__svc_cfg *cfg)
{
    return cfg->tokens_out_per_req + cfg->prefill_weight * cfg->tokens_in_per_req;
}

uint32_t sim__svc_concurrency(const sim__svc_cfg *cfg, uint32_t type)
{
    if (type >= PLACE_MAX_TYPES)
        return 0;
    return cfg->concurrency[type] ? cfg->concurrency[type] : SIM__SVC_CONCURRENCY_DEFAULT;
}

int sim__svc_type_ok(const sim__svc_cfg *cfg, uint32_t type)
{
    if (type >= PLACE_MAX_TYPES)
        return 0;
    if (cfg->type_mask && !(cfg->type_mask & (UINT64_C(1) << type)))
        return 0;
    return cfg->tokens_per_s[type] > 0.0;
}

int sim__svc_bad(tm_diag *diag, const char *field, const char *what, double got)
{
    char where[96];
    snprintf(where, sizeof where, "service.%s", field);
    return tm_diag_set(diag, TM_ERR_INVAL, where, "expected %s, got %.17g", what, got);
}

int sim__svc_cfg_check(const sim__svc_cfg *cfg, size_t n_types, tm_diag *diag)
{
    if (n_types == 0 || n_types > PLACE_MAX_TYPES)
        return sim__svc_bad(diag, "types", "1..64 GPU types in the scenario", (double)n_types);
    if (cfg->replica_gpus < 1 || cfg->replica_gpus > 64)
        return sim__svc_bad(diag, "replica_gpus", "1..64 GPUs per replica",
                            (double)cfg->replica_gpus);
    if (n_types < 64 && (cfg->type_mask >> n_types) != 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.type_mask",
                           "expected bits of the scenario's %zu types only, got 0x%llx", n_types,
                           (unsigned long long)cfg->type_mask);
    size_t usable = 0;
    for (uint32_t t = 0; t < n_types; t++) {
        char f[48];
        double v = cfg->tokens_per_s[t];
        if (!(isfinite(v) && v >= 0.0)) {
            snprintf(f, sizeof f, "tokens_per_s[%u]", t);
            return sim__svc_bad(diag, f, "a finite throughput >= 0 tokens/s", v);
        }
        if (cfg->concurrency[t] > (1u << 20)) {
            snprintf(f, sizeof f, "concurrency[%u]", t);
            return sim__svc_bad(diag, f, "0 (default) or at most 1048576 batch slots",
                                (double)cfg->concurrency[t]);
        }
        usable += (size_t)sim__svc_type_ok(cfg, t);
    }
    if (usable == 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.tokens_per_s",
                           "expected a throughput > 0 on at least one allowed GPU type, got none");
    if (!(isfinite(cfg->tokens_in_per_req) && cfg->tokens_in_per_req >= 0.0))
        return sim__svc_bad(diag, "tokens_in_per_req", "a finite count >= 0",
                            cfg->tokens_in_per_req);
    if (!(isfinite(cfg->tokens_out_per_req) && cfg->tokens_out_per_req >= 0.0))
        return sim__svc_bad(diag, "tokens_out_per_req", "a finite count >= 0",
                            cfg->tokens_out_per_req);
    if (!(isfinite(cfg->prefill_weight) && cfg->prefill_weight >= 0.0))
        return sim__svc_bad(diag, "prefill_weight", "a finite weight >= 0", cfg->prefill_weight);
    double w = sim__svc_work_per_req(cfg);
    if (!(isfinite(w) && w > 0.0))
        return sim__svc_bad(diag, "tokens_out_per_req", "work per request (out + weight x in) > 0",
                            w);
    trace_arrival a;
    int rc = trace_arrival_init(&a, &cfg->load, 0.0, diag);
    if (rc != TM_OK) {
        if (diag && strncmp(diag->where, "arrival.", 8) == 0) {
            char where[sizeof diag->where];
            snprintf(where, sizeof where, "service.load.%.400s", diag->where + 8);
            memcpy(diag->where, where, sizeof where);
        }
        return rc;
    }
    if (cfg->slo_kind != SIM__SVC_SLO_RESPONSE && cfg->slo_kind != SIM__SVC_SLO_WAIT)
        return sim__svc_bad(diag, "slo_kind", "response (0) or wait (1)", (double)cfg->slo_kind);
    if (!(isfinite(cfg->slo_s) && cfg->slo_s > 0.0))
        return sim__svc_bad(diag, "slo_s", "a finite latency > 0 s", cfg->slo_s);
    if (!(cfg->slo_target > 0.0 && cfg->slo_target < 1.0))
        return sim__svc_bad(diag, "slo_target", "a fraction in (0, 1)", cfg->slo_target);
    if (cfg->overflow != SIM__SVC_OVERFLOW_MISS && cfg->overflow != SIM__SVC_OVERFLOW_API)
        return sim__svc_bad(diag, "overflow", "miss (0) or api (1)", (double)cfg->overflow);
    if (cfg->max_replicas < 1)
        return sim__svc_bad(diag, "max_replicas", "at least 1", (double)cfg->max_replicas);
    if (cfg->min_replicas > cfg->max_replicas)
        return sim__svc_bad(diag, "min_replicas", "at most max_replicas",
                            (double)cfg->min_replicas);
    if (!(cfg->target_util > 0.0 && cfg->target_util <= 1.0))
        return sim__svc_bad(diag, "target_util", "a utilisation in (0, 1]", cfg->target_util);
    if (!(cfg->scale_up_delay_s >= 0.0 && cfg->scale_up_delay_s <= 1e9))
        return sim__svc_bad(diag, "scale_up_delay_s", "0..1e9 s", cfg->scale_up_delay_s);
    if (!(cfg->scale_down_window_s >= 0.0 && cfg->scale_down_window_s <= 1e9))
        return sim__svc_bad(diag, "scale_down_window_s", "0..1e9 s", cfg->scale_down_window_s);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* Presets (docs/services.md, "Presets", has the table with its sources)      */

/* Little's law: sequences in flight = token rate x time per token (ITL). */
#define LITTLE(tok_s, itl_s) ((uint32_t)((tok_s) * (itl_s) + 0.5))

/* Memory per GPU of a replica in MiB, derived ⚠️ (rounded up): weights at the
 * stated precision plus a BF16 KV cache for `conc` (the preset's largest) contexts of `ctx` tokens
 * (2 x layers x kv_heads x head_dim x 2 bytes per token), split over `tp` GPUs.
 * Architecture figures are the models' published configurations (Llama 3.1
 * 8B: 8.03e9 parameters, 32 layers; 70B: 70.6e9, 80 layers; both 8 KV heads
 * of dimension 128): recalled, not in cost-figures.md ⚠️. ctx = 2,048 tokens
 * covers the mean prompt + output of both Azure 2023 services (1,366 and 2,076). */
#define MEM_MIB(params, bytes_per_param, layers, conc, tp)                                         \
    ((uint32_t)(((params) * (bytes_per_param) +                                                    \
                 2.0 * (layers)*8.0 * 128.0 * 2.0 * (conc)*2048.0) /                               \
                (tp) / 1048576.0) +                                                                \
     1u)

/* Offline TensorRT-LLM figures at ISL/OSL 1000/1000 (cost-figures.md §4.1 ✅),
 * used only for the H200/H100 ratios of the derived rows. */
#define TRT_8B_H100  15220.0
#define TRT_8B_H200  17744.0
#define TRT_70B_H100 (4205.0 / 2.0) /* per GPU at TP2 */
#define TRT_70B_H200 2909.0         /* TP1 */
/* the derived rows */
#define TPS_8B_H200      (3400.0 * TRT_8B_H200 / TRT_8B_H100)
#define TPS_70B_TP2_H200 (1728.0 * TRT_70B_H200 / TRT_70B_H100)

static const sim__svc_preset presets[] = {
    {"llama-3.1-8b-fp8",
     "Llama 3.1 8B FP8",
     1,
     MEM_MIB(8.03e9, 1.0, 32, LITTLE(TPS_8B_H200, 0.0198), 1),
     4,
     {
         /* cost-figures.md §4.2: vLLM 0.5.4, 320 prompts, ITL 19.8 ms ✅ */
         {"H100", 3400.0, LITTLE(3400.0, 0.0198), "LambdaLabsML/vllm-benchmark (2024-09) solid"},
         /* same benchmark, ITL 42.9 ms ✅ */
         {"A100-80GB", 1518.0, LITTLE(1518.0, 0.0429),
          "LambdaLabsML/vllm-benchmark (2024-09) solid"},
         /* derived ⚠️: H100 x offline H200/H100 ratio, at the H100's ITL */
         {"H200", TPS_8B_H200, LITTLE(TPS_8B_H200, 0.0198),
          "derived: H100 row x TRT-LLM offline H200/H100 uncertain"},
         /* ◐ Koyeb via aihardwareindex.com, batch 32, latency not given */
         {"L40S", 1124.0, 32, "Koyeb benchmarks (2025-12) secondary, batch 32"},
     }},
    {"llama-3.1-70b-fp8-tp2",
     "Llama 3.1 70B FP8",
     2,
     MEM_MIB(70.6e9, 1.0, 80, LITTLE(TPS_70B_TP2_H200, 0.049), 2),
     3,
     {
         /* §4.2: 2x H100, ITL 49 ms ✅ */
         {"H100", 1728.0, LITTLE(1728.0, 0.049), "LambdaLabsML/vllm-benchmark (2024-09) solid"},
         /* §4.2: 2x A100, ITL 120 ms ✅ (within MLPerf Server TPOT 200 ms) */
         {"A100-80GB", 663.0, LITTLE(663.0, 0.120), "LambdaLabsML/vllm-benchmark (2024-09) solid"},
         /* derived ⚠️: H100 row x offline per-GPU H200/H100 ratio, at the H100's ITL */
         {"H200", TPS_70B_TP2_H200, LITTLE(TPS_70B_TP2_H200, 0.049),
          "derived: H100 row x TRT-LLM offline H200/H100 uncertain"},
     }},
    {"llama-3.1-70b-fp8-tp4",
     "Llama 3.1 70B FP8",
     4,
     MEM_MIB(70.6e9, 1.0, 80, LITTLE(2243.0, 0.038), 4),
     1,
     {
         /* §4.2: 4x H100, ITL 38 ms ✅ */
         {"H100", 2243.0, LITTLE(2243.0, 0.038), "LambdaLabsML/vllm-benchmark (2024-09) solid"},
     }},
    {"llama-3.1-8b-fp8-vllm0.6",
     "Llama 3.1 8B FP8",
     1,
     MEM_MIB(8.03e9, 1.0, 32, LITTLE(8088.0, 0.0256), 1),
     1,
     {
         /* §4.2: vLLM 0.6.0, 10 scheduler steps, median TPOT 25.6 ms ✅ */
         {"H100", 8088.0, LITTLE(8088.0, 0.0256), "LambdaLabsML/vllm-benchmark (2024-09) solid"},
     }},
};

const sim__svc_preset *sim__svc_presets(size_t *n)
{
    *n = sizeof presets / sizeof presets[0];
    return presets;
}

const sim__svc_preset *sim__svc_preset_find(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

int sim__svc_cfg_apply_preset(sim__svc_cfg *cfg, const sim__svc_preset *p,
                              const sim_gpu_type *types, size_t n_types, tm_diag *diag)
{
    if (n_types > PLACE_MAX_TYPES)
        return tm_diag_set(diag, TM_ERR_INVAL, p->name, "expected at most 64 types, got %zu",
                           n_types);
    uint64_t mask = 0;
    double tps[PLACE_MAX_TYPES] = {0};
    uint32_t conc[PLACE_MAX_TYPES] = {0};
    for (size_t i = 0; i < p->n_types; i++) {
        int t = sim_catalog_find(types, n_types, p->types[i].gpu_type);
        if (t < 0)
            continue;
        mask |= UINT64_C(1) << t;
        tps[t] = p->types[i].tokens_per_s;
        conc[t] = p->types[i].concurrency;
    }
    if (!mask)
        return tm_diag_set(diag, TM_ERR_INVAL, p->name,
                           "none of the preset's GPU types is in the scenario");
    snprintf(cfg->model, sizeof cfg->model, "%s", p->model);
    cfg->replica_gpus = p->replica_gpus;
    cfg->gpu_mem_mib = p->gpu_mem_mib;
    cfg->type_mask = mask;
    memcpy(cfg->tokens_per_s, tps, sizeof tps);
    memcpy(cfg->concurrency, conc, sizeof conc);
    return TM_OK;
}
