/*
 * service.c — the model of a real-time inference service: M/M/n subpools of
 * batch slots, the SLO capacity and the overflow rule, interval accounting,
 * the autoscaler, and a request-level simulation (service_int.h has the
 * contract, docs/services.md the derivations and sources).
 *
 * How it works:
 *  - Erlang B by the backward form of its recursion: 1/B(n, a) is the sum over
 *    i of n (n-1) ... (n-i+1) / a^i, positive terms that rise while n - i > a
 *    and then fall faster than a Gaussian of width sqrt(a), so the sum stops
 *    after O(sqrt(n)) terms with a bound on the tail; a sum past 1e300 means B
 *    is below 1e-300 and is returned as 0. Erlang C = B / (1 - rho + rho B).
 *  - Latency CDFs in closed form (service_int.h), the response time's written
 *    with phi(x) = -expm1(-x) / x so that theta = mu is not a special case and
 *    theta near mu loses nothing. Quantiles by bisection on the survival
 *    function (a mixture over subpools when GPU types differ).
 *  - The SLO capacity by bisection on the utilisation: the fraction meeting
 *    the SLO falls as the load rises (Erlang C rises, theta falls), so the set
 *    of loads that meet the target is an interval [0, lambda_max].
 *  - Interval accounting cuts at hour boundaries of the load profile and
 *    evaluates each piece at its mean rate (its exact expected demand divided
 *    by its length), so the totals are additive over hour-aligned pieces.
 *  - The autoscaler keeps a monotone window of desired values (the sliding
 *    maximum of a piecewise-constant signal): each entry is a value and the
 *    time it stopped being in force; a new value drops the entries it
 *    dominates, and the front expires once it stopped before the window.
 *  - The request-level mode keeps one binary min-heap of server free times
 *    per subpool: FCFS on n servers means each request starts at
 *    max(arrival, earliest free time), O(log n) per request.
 */
#include "model/service_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>

#define HOUR_S 3600.0

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

static int bad(tm_diag *diag, const char *field, const char *what, double got)
{
    char where[96];
    snprintf(where, sizeof where, "service.%s", field);
    return tm_diag_set(diag, TM_ERR_INVAL, where, "expected %s, got %.17g", what, got);
}

int sim__svc_cfg_check(const sim__svc_cfg *cfg, size_t n_types, tm_diag *diag)
{
    if (n_types == 0 || n_types > PLACE_MAX_TYPES)
        return bad(diag, "types", "1..64 GPU types in the scenario", (double)n_types);
    if (cfg->replica_gpus < 1 || cfg->replica_gpus > 64)
        return bad(diag, "replica_gpus", "1..64 GPUs per replica", (double)cfg->replica_gpus);
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
            return bad(diag, f, "a finite throughput >= 0 tokens/s", v);
        }
        if (cfg->concurrency[t] > (1u << 20)) {
            snprintf(f, sizeof f, "concurrency[%u]", t);
            return bad(diag, f, "0 (default) or at most 1048576 batch slots",
                       (double)cfg->concurrency[t]);
        }
        usable += (size_t)sim__svc_type_ok(cfg, t);
    }
    if (usable == 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.tokens_per_s",
                           "expected a throughput > 0 on at least one allowed GPU type, got none");
    if (!(isfinite(cfg->tokens_in_per_req) && cfg->tokens_in_per_req >= 0.0))
        return bad(diag, "tokens_in_per_req", "a finite count >= 0", cfg->tokens_in_per_req);
    if (!(isfinite(cfg->tokens_out_per_req) && cfg->tokens_out_per_req >= 0.0))
        return bad(diag, "tokens_out_per_req", "a finite count >= 0", cfg->tokens_out_per_req);
    if (!(isfinite(cfg->prefill_weight) && cfg->prefill_weight >= 0.0))
        return bad(diag, "prefill_weight", "a finite weight >= 0", cfg->prefill_weight);
    double w = sim__svc_work_per_req(cfg);
    if (!(isfinite(w) && w > 0.0))
        return bad(diag, "tokens_out_per_req", "work per request (out + weight x in) > 0", w);
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
        return bad(diag, "slo_kind", "response (0) or wait (1)", (double)cfg->slo_kind);
    if (!(isfinite(cfg->slo_s) && cfg->slo_s > 0.0))
        return bad(diag, "slo_s", "a finite latency > 0 s", cfg->slo_s);
    if (!(cfg->slo_target > 0.0 && cfg->slo_target < 1.0))
        return bad(diag, "slo_target", "a fraction in (0, 1)", cfg->slo_target);
    if (cfg->overflow != SIM__SVC_OVERFLOW_MISS && cfg->overflow != SIM__SVC_OVERFLOW_API)
        return bad(diag, "overflow", "miss (0) or api (1)", (double)cfg->overflow);
    if (cfg->max_replicas < 1)
        return bad(diag, "max_replicas", "at least 1", (double)cfg->max_replicas);
    if (cfg->min_replicas > cfg->max_replicas)
        return bad(diag, "min_replicas", "at most max_replicas", (double)cfg->min_replicas);
    if (!(cfg->target_util > 0.0 && cfg->target_util <= 1.0))
        return bad(diag, "target_util", "a utilisation in (0, 1]", cfg->target_util);
    if (!(cfg->scale_up_delay_s >= 0.0 && cfg->scale_up_delay_s <= 1e9))
        return bad(diag, "scale_up_delay_s", "0..1e9 s", cfg->scale_up_delay_s);
    if (!(cfg->scale_down_window_s >= 0.0 && cfg->scale_down_window_s <= 1e9))
        return bad(diag, "scale_down_window_s", "0..1e9 s", cfg->scale_down_window_s);
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

/* ------------------------------------------------------------------------- */
/* M/M/n                                                                      */

double sim__svc_erlang_b(uint32_t n, double a)
{
    if (!(isfinite(a) && a >= 0.0))
        return NAN;
    if (n == 0)
        return 1.0;
    if (a == 0.0)
        return 0.0;
    /* 1/B = sum_{i=0..n} term_i, term_i = term_{i-1} (n - i + 1) / a. Once
     * r = (n - i) / a < 1 the later terms fall at least geometrically by r, so
     * the tail is below term r / (1 - r): stop when that is below 1e-17 sum. */
    double sum = 1.0, term = 1.0;
    for (uint32_t i = 1; i <= n; i++) {
        term *= (double)(n - i + 1) / a;
        sum += term;
        if (sum > 1e300)
            return 0.0;
        double rest = (double)(n - i);
        if (rest < a && term * rest < 1e-17 * sum * (a - rest))
            break;
    }
    return 1.0 / sum;
}

double sim__svc_erlang_c(uint32_t n, double a)
{
    if (!(isfinite(a) && a >= 0.0))
        return NAN;
    if (a >= (double)n)
        return 1.0;
    double b = sim__svc_erlang_b(n, a);
    double rho = a / (double)n;
    return b / (1.0 - rho + rho * b);
}

int sim__svc_mmn_init(sim__svc_mmn *q, uint32_t n, double lambda, double mu)
{
    memset(q, 0, sizeof *q);
    if (n < 1 || !(isfinite(mu) && mu > 0.0) || !(isfinite(lambda) && lambda >= 0.0))
        return TM_ERR_INVAL;
    double a = lambda / mu;
    double theta = (double)n * mu - lambda;
    if (!(a < (double)n && theta > 0.0))
        return TM_ERR_INVAL;
    q->n = n;
    q->lambda = lambda;
    q->mu = mu;
    q->a = a;
    q->rho = a / (double)n;
    q->c = sim__svc_erlang_c(n, a);
    q->theta = theta;
    return TM_OK;
}

/* (1 - e^{-x}) / x for x >= 0, 1 at 0. */
static double phi(double x)
{
    return x == 0.0 ? 1.0 : -expm1(-x) / x;
}

double sim__svc_mmn_sf(const sim__svc_mmn *q, sim__svc_slo_kind kind, double t_s)
{
    if (isnan(t_s))
        return NAN;
    if (t_s < 0.0)
        return 1.0;
    if (kind == SIM__SVC_SLO_WAIT)
        return q->c * exp(-q->theta * t_s);
    double m = q->theta < q->mu ? q->theta : q->mu;
    return exp(-q->mu * t_s) +
           q->c * q->mu * t_s * exp(-m * t_s) * phi(fabs(q->theta - q->mu) * t_s);
}

double sim__svc_mmn_cdf(const sim__svc_mmn *q, sim__svc_slo_kind kind, double t_s)
{
    return 1.0 - sim__svc_mmn_sf(q, kind, t_s);
}

double sim__svc_mmn_mean(const sim__svc_mmn *q, sim__svc_slo_kind kind)
{
    double w = q->c / q->theta;
    return kind == SIM__SVC_SLO_WAIT ? w : 1.0 / q->mu + w;
}

/* A mixture of M/M/n queues with weights summing to 1 (one entry: a queue). */
typedef struct mix {
    size_t n;
    const sim__svc_mmn *q;
    const double *w;
    sim__svc_slo_kind kind;
} mix;

static double mix_sf(const mix *m, double t)
{
    double s = 0.0;
    for (size_t i = 0; i < m->n; i++)
        s += m->w[i] * sim__svc_mmn_sf(&m->q[i], m->kind, t);
    return s;
}

static double mix_mean(const mix *m)
{
    double s = 0.0;
    for (size_t i = 0; i < m->n; i++)
        s += m->w[i] * sim__svc_mmn_mean(&m->q[i], m->kind);
    return s;
}

/* The smallest t with sf(t) <= 1 - p, by bisection: ~45 steps to 1e-13. */
static double mix_quantile(const mix *m, double p)
{
    if (!(p > 0.0 && p < 1.0))
        return NAN;
    double s = 1.0 - p;
    if (mix_sf(m, 0.0) <= s)
        return 0.0;
    double hi = 0.0;
    for (size_t i = 0; i < m->n; i++) /* a scale: the slowest mean service */
        if (1.0 / m->q[i].mu > hi)
            hi = 1.0 / m->q[i].mu;
    double mean = mix_mean(m);
    if (mean > hi)
        hi = mean;
    int k = 0;
    while (mix_sf(m, hi) > s) {
        hi *= 2.0;
        if (++k > 2000 || !isfinite(hi))
            return INFINITY;
    }
    double lo = 0.0;
    for (k = 0; k < 400 && hi - lo > 1e-13 * hi; k++) {
        double mid = lo + 0.5 * (hi - lo);
        if (mix_sf(m, mid) <= s)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

double sim__svc_mmn_quantile(const sim__svc_mmn *q, sim__svc_slo_kind kind, double p)
{
    double one = 1.0;
    mix m = {1, q, &one, kind};
    return mix_quantile(&m, p);
}

/* ------------------------------------------------------------------------- */
/* Pools                                                                      */

/* The subpools' queues at total arrival rate lambda < cap (weights = routing). */
static void pool_queues(const sim__svc_pool *pool, double lambda, sim__svc_mmn *q, double *w)
{
    for (size_t i = 0; i < pool->n_sub; i++) {
        const sim__svc_sub *s = &pool->sub[i];
        double l = lambda * s->weight;
        if (l >= s->cap) /* rounding at rho -> 1 */
            l = nextafter(s->cap, 0.0);
        int rc = sim__svc_mmn_init(&q[i], s->servers, l, s->mu);
        if (rc != TM_OK) { /* theta rounded to 0: a queue that waits for ever */
            q[i] = (sim__svc_mmn){s->servers, l, s->mu, l / s->mu, l / s->cap, 1.0, 0.0};
        }
        w[i] = s->weight;
    }
}

double sim__svc_pool_attainment(const sim__svc_pool *pool, double lambda_req_per_s)
{
    if (pool->n_sub == 0)
        return 0.0;
    if (!(lambda_req_per_s >= 0.0))
        return NAN;
    if (lambda_req_per_s >= pool->cap_req_per_s)
        return 0.0;
    sim__svc_mmn q[PLACE_MAX_TYPES];
    double w[PLACE_MAX_TYPES];
    pool_queues(pool, lambda_req_per_s, q, w);
    mix m = {pool->n_sub, q, w, pool->cfg->slo_kind};
    return 1.0 - mix_sf(&m, pool->cfg->slo_s);
}

int sim__svc_pool_init(sim__svc_pool *pool, const sim__svc_cfg *cfg, const uint32_t *ready_by_type,
                       size_t n_types, tm_diag *diag)
{
    memset(pool, 0, sizeof *pool);
    pool->cfg = cfg;
    double w = sim__svc_work_per_req(cfg);
    if (!(isfinite(w) && w > 0.0))
        return bad(diag, "tokens_out_per_req", "work per request > 0", w);
    if (n_types > PLACE_MAX_TYPES)
        return bad(diag, "types", "at most 64 GPU types", (double)n_types);
    pool->work_per_req = w;
    double cap = 0.0;
    for (uint32_t t = 0; t < n_types; t++) {
        uint32_t r = ready_by_type[t];
        if (r == 0)
            continue;
        if (!sim__svc_type_ok(cfg, t)) {
            char where[64];
            snprintf(where, sizeof where, "service.replicas[%u]", t);
            return tm_diag_set(diag, TM_ERR_INVAL, where,
                               "%u replicas on GPU type %u, which the service cannot use", r, t);
        }
        uint64_t servers = (uint64_t)r * sim__svc_concurrency(cfg, t);
        if (servers > SIM__SVC_SERVERS_MAX) {
            char where[64];
            snprintf(where, sizeof where, "service.replicas[%u]", t);
            return tm_diag_set(diag, TM_ERR_LIMIT, where,
                               "%llu batch slots, more than the model's limit %u",
                               (unsigned long long)servers, (unsigned)SIM__SVC_SERVERS_MAX);
        }
        sim__svc_sub *s = &pool->sub[pool->n_sub++];
        s->type = t;
        s->replicas = r;
        s->servers = (uint32_t)servers;
        s->mu = cfg->tokens_per_s[t] / ((double)sim__svc_concurrency(cfg, t) * w);
        s->cap = (double)servers * s->mu;
        pool->replicas += r;
        cap += s->cap;
    }
    pool->cap_req_per_s = cap;
    if (pool->n_sub == 0)
        return TM_OK; /* capacity 0: everything overflows */
    double idle = 0.0;
    for (size_t i = 0; i < pool->n_sub; i++) {
        sim__svc_sub *s = &pool->sub[i];
        s->weight = s->cap / cap;
        /* at a vanishing load nobody waits: the response is the service alone */
        double f = cfg->slo_kind == SIM__SVC_SLO_WAIT ? 1.0 : -expm1(-s->mu * cfg->slo_s);
        idle += s->weight * f;
    }
    pool->attain_idle = idle;
    if (idle < cfg->slo_target)
        return TM_OK; /* no load meets the target: lambda_max = 0 */
    /* f(rho cap) >= target at lo, < target at hi (f -> 0 as rho -> 1) */
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 200 && hi - lo > 1e-12; k++) {
        double mid = lo + 0.5 * (hi - lo);
        if (sim__svc_pool_attainment(pool, mid * cap) >= cfg->slo_target)
            lo = mid;
        else
            hi = mid;
    }
    pool->slo_cap_req_per_s = lo * cap;
    return TM_OK;
}

/* The rates of the overflow rule (no latency statistics): cheap. */
static void perf_rates(const sim__svc_pool *pool, double offered, sim__svc_perf *p)
{
    memset(p, 0, sizeof *p);
    p->offered = offered;
    p->cap = pool->cap_req_per_s;
    p->slo_cap = pool->slo_cap_req_per_s;
    double adm = offered < p->slo_cap ? offered : p->slo_cap;
    double f =
        pool->n_sub ? (adm > 0.0 ? sim__svc_pool_attainment(pool, adm) : pool->attain_idle) : NAN;
    p->admitted = adm;
    p->attain_admitted = f;
    p->slo_ok = adm > 0.0 ? adm * f : 0.0;
    p->late = adm > 0.0 ? adm - p->slo_ok : 0.0;
    double excess = offered - adm;
    if (pool->cfg->overflow == SIM__SVC_OVERFLOW_API) {
        p->api = excess;
        p->util = p->cap > 0.0 ? adm / p->cap : 0.0;
    } else {
        double served = offered < p->cap ? offered : p->cap; /* all the replicas can do */
        double extra = served - adm > 0.0 ? served - adm : 0.0;
        if (extra > excess)
            extra = excess;
        p->late += extra;
        p->unserved = excess - extra;
        p->util = p->cap > 0.0 ? served / p->cap : 0.0;
    }
    double kept = offered - p->api;
    p->attainment = kept > 0.0 ? p->slo_ok / kept : NAN;
}

int sim__svc_perf_eval(const sim__svc_pool *pool, double offered_req_per_s, sim__svc_perf *perf,
                       tm_diag *diag)
{
    if (!(isfinite(offered_req_per_s) && offered_req_per_s >= 0.0))
        return bad(diag, "load", "a finite rate >= 0 requests/s", offered_req_per_s);
    perf_rates(pool, offered_req_per_s, perf);
    if (pool->n_sub == 0) {
        perf->wait_mean_s = perf->response_mean_s = NAN;
        perf->lat_mean_s = perf->lat_p50_s = perf->lat_p95_s = perf->lat_p99_s = NAN;
        return TM_OK;
    }
    sim__svc_mmn q[PLACE_MAX_TYPES];
    double w[PLACE_MAX_TYPES];
    pool_queues(pool, perf->admitted, q, w);
    mix mw = {pool->n_sub, q, w, SIM__SVC_SLO_WAIT};
    mix mr = {pool->n_sub, q, w, SIM__SVC_SLO_RESPONSE};
    perf->wait_mean_s = mix_mean(&mw);
    perf->response_mean_s = mix_mean(&mr);
    const mix *ml = pool->cfg->slo_kind == SIM__SVC_SLO_WAIT ? &mw : &mr;
    perf->lat_mean_s = mix_mean(ml);
    perf->lat_p50_s = mix_quantile(ml, 0.50);
    perf->lat_p95_s = mix_quantile(ml, 0.95);
    perf->lat_p99_s = mix_quantile(ml, 0.99);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* Interval accounting                                                        */

static void vol_add(sim__svc_vol *v, const sim__svc_cfg *cfg, double req)
{
    v->req += req;
    v->tok_in += req * cfg->tokens_in_per_req;
    v->tok_out += req * cfg->tokens_out_per_req;
}

int sim__svc_interval(const sim__svc_pool *pool, int64_t t0_us, int64_t t1_us, sim__svc_acct *acct,
                      tm_diag *diag)
{
    if (t1_us < t0_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.interval",
                           "expected t1 >= t0, got [%lld, %lld) us", (long long)t0_us,
                           (long long)t1_us);
    const sim__svc_cfg *cfg = pool->cfg;
    double t0 = (double)t0_us / (double)SIM_US_PER_S, t1 = (double)t1_us / (double)SIM_US_PER_S;
    double off = cfg->load.t0_offset_s;
    /* pieces [a, b) on which the profile is constant: O(hours) */
    double h = floor((t0 + off) / HOUR_S);
    for (double a = t0; a < t1; h += 1.0) {
        double b = (h + 1.0) * HOUR_S - off;
        if (b > t1)
            b = t1;
        if (b <= a)
            continue; /* rounding at a boundary */
        double n = trace_arrival_expected(&cfg->load, a, b);
        if (!isfinite(n))
            return tm_diag_set(diag, TM_ERR_INVAL, "service.load",
                               "no finite expected demand over [%.17g, %.17g) s", a, b);
        double dt = b - a;
        sim__svc_perf p;
        perf_rates(pool, n / dt, &p);
        acct->seconds += dt;
        vol_add(&acct->demanded, cfg, n);
        vol_add(&acct->slo_ok, cfg, p.slo_ok * dt);
        vol_add(&acct->late, cfg, p.late * dt);
        vol_add(&acct->unserved, cfg, p.unserved * dt);
        vol_add(&acct->api, cfg, p.api * dt);
        acct->replica_s += (double)pool->replicas * dt;
        acct->busy_replica_s += p.util * (double)pool->replicas * dt;
        a = b;
    }
    return TM_OK;
}

static sim__svc_vol vol_sum(const sim__svc_vol *x, const sim__svc_vol *y)
{
    return (sim__svc_vol){x->req + y->req, x->tok_in + y->tok_in, x->tok_out + y->tok_out};
}

sim__svc_vol sim__svc_acct_owned(const sim__svc_acct *acct)
{
    return vol_sum(&acct->slo_ok, &acct->late);
}

sim__svc_vol sim__svc_acct_missed(const sim__svc_acct *acct)
{
    return vol_sum(&acct->late, &acct->unserved);
}

double sim__svc_acct_attainment(const sim__svc_acct *acct)
{
    double kept = acct->demanded.req - acct->api.req;
    return kept > 0.0 ? acct->slo_ok.req / kept : NAN;
}

/* The stationary mean of the MMPP multiplier (pi_i proportional to the sojourn). */
static double mmpp_mean(const trace_arrival_cfg *c)
{
    if (c->mmpp_states <= 1)
        return c->mmpp_mult[0];
    double num = 0.0, den = 0.0;
    for (uint32_t i = 0; i < c->mmpp_states && i < TRACE_MMPP_MAX_STATES; i++) {
        num += c->mmpp_mult[i] * c->mmpp_sojourn_s[i];
        den += c->mmpp_sojourn_s[i];
    }
    return den > 0.0 ? num / den : NAN;
}

double sim__svc_load_mean(const sim__svc_cfg *cfg, int64_t t0_us, int64_t t1_us)
{
    double t0 = (double)t0_us / (double)SIM_US_PER_S, t1 = (double)t1_us / (double)SIM_US_PER_S;
    if (t1_us <= t0_us)
        return trace_arrival_rate(&cfg->load, t0) * mmpp_mean(&cfg->load);
    return trace_arrival_expected(&cfg->load, t0, t1) / (t1 - t0);
}

int64_t sim__svc_next_change_us(const sim__svc_cfg *cfg, int64_t t_us)
{
    const trace_arrival_cfg *l = &cfg->load;
    int flat = l->growth_per_month == 0.0;
    for (int i = 1; i < 24 && flat; i++)
        flat = l->daily[i] == l->daily[0];
    for (int i = 1; i < 7 && flat; i++)
        flat = l->weekly[i] == l->weekly[0];
    if (flat)
        return INT64_MAX;
    double t = (double)t_us / (double)SIM_US_PER_S;
    double h = floor((t + l->t0_offset_s) / HOUR_S) + 1.0;
    for (int k = 0; k < 4; k++, h += 1.0) {
        double b = h * HOUR_S - l->t0_offset_s;
        if (!(b < TRACE_ARRIVAL_T_MAX_S))
            return INT64_MAX;
        int64_t b_us = (int64_t)ceil(b * (double)SIM_US_PER_S);
        if (b_us > t_us)
            return b_us;
    }
    return t_us + 1; /* unreachable for |t| within the arrival range */
}

/* ------------------------------------------------------------------------- */
/* Autoscaler                                                                 */

void sim__svc_scaler_init(sim__svc_scaler *s, uint32_t ready)
{
    memset(s, 0, sizeof *s);
    s->ready = ready;
    s->desired = ready;
    s->last_us = INT64_MIN;
}

static int64_t us_of(double s)
{
    return (int64_t)llround(s * (double)SIM_US_PER_S);
}

int sim__svc_scaler_step(sim__svc_scaler *s, const sim__svc_cfg *cfg, int64_t t_us,
                         double load_req_per_s, double replica_tokens_per_s, sim__svc_action *act,
                         tm_diag *diag)
{
    memset(act, 0, sizeof *act);
    act->next_eval_us = INT64_MAX;
    if (!(isfinite(load_req_per_s) && load_req_per_s >= 0.0))
        return bad(diag, "load", "a finite rate >= 0 requests/s", load_req_per_s);
    if (!(isfinite(replica_tokens_per_s) && replica_tokens_per_s > 0.0))
        return bad(diag, "replica_tokens_per_s", "a finite throughput > 0", replica_tokens_per_s);
    if (t_us < s->last_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.autoscaler",
                           "time went back: %lld us after %lld us", (long long)t_us,
                           (long long)s->last_us);
    /* desired: ceil with a relative slack of 1e-12, so that a load of exactly
     * k replicas' worth does not round up to k + 1 */
    double x = load_req_per_s * sim__svc_work_per_req(cfg) /
               (cfg->target_util * replica_tokens_per_s) / (1.0 + 1e-12);
    uint32_t d;
    if (!(x < (double)cfg->max_replicas))
        d = cfg->max_replicas;
    else
        d = (uint32_t)ceil(x);
    if (d < cfg->min_replicas)
        d = cfg->min_replicas;

    /* the window of values in force: the last one stops now */
    if (s->n_win > 0)
        s->win_until_us[s->n_win - 1] = t_us;
    while (s->n_win > 0 && s->win_value[s->n_win - 1] <= d)
        s->n_win--;
    if (s->n_win == SIM__SVC_SCALER_WINDOW) { /* merge the last two into the larger value */
        s->win_until_us[s->n_win - 2] = s->win_until_us[s->n_win - 1];
        s->n_win--;
    }
    s->win_value[s->n_win] = d;
    s->win_until_us[s->n_win] = INT64_MAX;
    s->n_win++;
    int64_t w_us = us_of(cfg->scale_down_window_s);
    int64_t from = t_us < INT64_MIN + w_us ? INT64_MIN : t_us - w_us;
    uint32_t drop = 0;
    while (s->n_win - drop > 1 && s->win_until_us[drop] <= from)
        drop++;
    if (drop) {
        memmove(s->win_value, s->win_value + drop, (s->n_win - drop) * sizeof s->win_value[0]);
        memmove(s->win_until_us, s->win_until_us + drop,
                (s->n_win - drop) * sizeof s->win_until_us[0]);
        s->n_win -= drop;
    }
    uint32_t keep = s->win_value[0]; /* the largest desired in the window, >= d */

    uint64_t have = (uint64_t)s->ready + s->loading;
    act->desired = d;
    if (d > have) {
        act->request = (uint32_t)(d - have);
        act->ready_at_us = t_us + us_of(cfg->scale_up_delay_s);
        s->loading += act->request;
    } else if (keep < have) {
        uint32_t rel = (uint32_t)(have - keep);
        act->release_loading = rel < s->loading ? rel : s->loading;
        act->release_ready = rel - act->release_loading;
        s->loading -= act->release_loading;
        s->ready -= act->release_ready;
    }
    if (s->n_win > 1 && (uint64_t)s->ready + s->loading > d) {
        int64_t u = s->win_until_us[0];
        act->next_eval_us = u > INT64_MAX - w_us ? INT64_MAX : u + w_us;
    }
    s->desired = d;
    s->last_us = t_us;
    return TM_OK;
}

int sim__svc_scaler_ready(sim__svc_scaler *s, uint32_t k, tm_diag *diag)
{
    if (k > s->loading)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.autoscaler",
                           "%u replicas ready, but only %u loading", k, s->loading);
    s->loading -= k;
    s->ready += k;
    return TM_OK;
}

int sim__svc_scaler_lost(sim__svc_scaler *s, uint32_t ready_lost, uint32_t loading_lost,
                         tm_diag *diag)
{
    if (ready_lost > s->ready || loading_lost > s->loading)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.autoscaler",
                           "lost %u ready and %u loading replicas of %u and %u", ready_lost,
                           loading_lost, s->ready, s->loading);
    s->ready -= ready_lost;
    s->loading -= loading_lost;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* Request-level mode                                                         */

/* Restore the min-heap h[0..n) after h[0] grew: O(log n). */
static void heap_sift_down(double *h, uint32_t n)
{
    uint32_t i = 0;
    double v = h[0];
    for (;;) {
        uint64_t l = 2 * (uint64_t)i + 1;
        if (l >= n)
            break;
        uint64_t m = l;
        if (l + 1 < n && h[l + 1] < h[l])
            m = l + 1;
        if (!(h[m] < v))
            break;
        h[i] = h[m];
        i = (uint32_t)m;
    }
    h[i] = v;
}

static int push_lat(double **v, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 4096;
        double *p = realloc(*v, nc * sizeof *p);
        if (!p)
            return TM_ERR_NOMEM;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = x;
    return TM_OK;
}

/* Nearest rank on sorted v[0..n): the smallest x with >= ceil(p n) values <= x. */
static double rank_quantile(const double *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double k = ceil(p * (double)n);
    size_t i = k < 1.0 ? 0 : (size_t)k - 1;
    return v[i < n ? i : n - 1];
}

int sim__svc_reqsim_run(const sim__svc_pool *pool, const sim__svc_reqsim_opts *opts,
                        sim__svc_reqsim_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    const sim__svc_cfg *cfg = pool->cfg;
    int rc = TM_OK;
    double *heap = NULL, *lat = NULL;
    size_t n_lat = 0, cap_lat = 0;
    if (pool->n_sub == 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "no ready replicas");
    if (opts->t1_us < opts->t0_us || opts->warmup_us < 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim",
                           "expected t0 <= t1 and warm-up >= 0, got [%lld, %lld) and %lld us",
                           (long long)opts->t0_us, (long long)opts->t1_us,
                           (long long)opts->warmup_us);
    if (opts->service != SIM__SVC_SERVICE_EXP && opts->service != SIM__SVC_SERVICE_TOKENS)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "unknown service distribution %d",
                           (int)opts->service);
    int need_rng = !opts->reqs || opts->service == SIM__SVC_SERVICE_EXP || pool->n_sub > 1;
    if (need_rng && !opts->r)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "a random generator is needed");
    if (opts->n_reqs && !opts->reqs)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "n_reqs without reqs");

    uint64_t servers = 0;
    uint64_t off[PLACE_MAX_TYPES + 1];
    double cum[PLACE_MAX_TYPES];
    double acc = 0.0;
    for (size_t i = 0; i < pool->n_sub; i++) {
        off[i] = servers;
        servers += pool->sub[i].servers;
        acc += pool->sub[i].weight;
        cum[i] = acc;
    }
    off[pool->n_sub] = servers;
    if (servers > SIM__SVC_REQSIM_SERVERS_MAX)
        return tm_diag_set(diag, TM_ERR_LIMIT, "service.reqsim",
                           "%llu servers, more than the request-level limit %u",
                           (unsigned long long)servers, (unsigned)SIM__SVC_REQSIM_SERVERS_MAX);
    heap = malloc((size_t)servers * sizeof *heap);
    if (!heap) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "service.reqsim", "%llu servers",
                         (unsigned long long)servers);
        goto out;
    }
    for (uint64_t i = 0; i < servers; i++)
        heap[i] = -INFINITY;

    double t0 = (double)opts->t0_us / (double)SIM_US_PER_S;
    double t1 = (double)opts->t1_us / (double)SIM_US_PER_S;
    double tc = (double)(opts->t0_us + opts->warmup_us) / (double)SIM_US_PER_S;
    size_t max_req = opts->max_requests ? opts->max_requests : SIM__SVC_REQSIM_MAX_DEFAULT;
    double wmean = pool->work_per_req;
    trace_arrival arr;
    if (!opts->reqs) {
        rc = trace_arrival_init(&arr, &cfg->load, t0, diag);
        if (rc != TM_OK)
            goto out;
    }
    double sum_wait = 0.0, sum_resp = 0.0, sum_lat = 0.0, busy = 0.0, prev_t = -INFINITY;
    size_t ri = 0;
    for (;;) {
        double t, tin, tout;
        if (opts->reqs) {
            if (ri >= opts->n_reqs)
                break;
            const sim__svc_request *q = &opts->reqs[ri];
            if (!(isfinite(q->t_s) && q->t_s >= prev_t && isfinite(q->tokens_in) &&
                  q->tokens_in >= 0.0 && isfinite(q->tokens_out) && q->tokens_out >= 0.0)) {
                char where[64];
                snprintf(where, sizeof where, "service.reqsim.reqs[%zu]", ri);
                rc = tm_diag_set(diag, TM_ERR_INVAL, where,
                                 "expected a finite time >= the previous one and token counts "
                                 ">= 0, got t %.17g, in %.17g, out %.17g",
                                 q->t_s, q->tokens_in, q->tokens_out);
                goto out;
            }
            prev_t = q->t_s;
            ri++;
            t = q->t_s;
            tin = q->tokens_in;
            tout = q->tokens_out;
            if (t < t0)
                continue;
        } else {
            t = trace_arrival_next(&arr, opts->r);
            tin = cfg->tokens_in_per_req;
            tout = cfg->tokens_out_per_req;
        }
        if (!(t < t1))
            break;
        if (res->arrived >= max_req) {
            rc = tm_diag_set(diag, TM_ERR_LIMIT, "service.reqsim",
                             "more than %zu requests in the window", max_req);
            goto out;
        }
        res->arrived++;
        size_t k = 0;
        if (pool->n_sub > 1) {
            double u = gsl_rng_uniform(opts->r);
            while (k + 1 < pool->n_sub && !(u < cum[k]))
                k++;
        }
        const sim__svc_sub *sp = &pool->sub[k];
        double s;
        if (opts->service == SIM__SVC_SERVICE_EXP) {
            s = gsl_ran_exponential(opts->r, 1.0 / sp->mu);
        } else {
            double wi = tout + cfg->prefill_weight * tin;
            s = wi / (sp->mu * wmean); /* concurrency x W_i / tokens_per_s */
        }
        double *h = heap + off[k];
        double start = h[0] > t ? h[0] : t;
        h[0] = start + s;
        heap_sift_down(h, sp->servers);
        if (t < tc)
            continue;
        double wait = start - t, resp = wait + s;
        double l = cfg->slo_kind == SIM__SVC_SLO_WAIT ? wait : resp;
        res->counted++;
        sum_wait += wait;
        sum_resp += resp;
        sum_lat += l;
        busy += s;
        res->served.req += 1.0;
        res->served.tok_in += tin;
        res->served.tok_out += tout;
        if (l <= cfg->slo_s) {
            res->slo_ok++;
            res->served_slo_ok.req += 1.0;
            res->served_slo_ok.tok_in += tin;
            res->served_slo_ok.tok_out += tout;
        }
        rc = push_lat(&lat, &n_lat, &cap_lat, l);
        if (rc != TM_OK) {
            rc = tm_diag_set(diag, rc, "service.reqsim", "%zu latencies", n_lat);
            goto out;
        }
    }
    if (res->counted) {
        double n = (double)res->counted;
        res->attainment = (double)res->slo_ok / n;
        res->wait_mean_s = sum_wait / n;
        res->response_mean_s = sum_resp / n;
        res->lat_mean_s = sum_lat / n;
        gsl_sort(lat, 1, n_lat);
        res->lat_p50_s = rank_quantile(lat, n_lat, 0.50);
        res->lat_p95_s = rank_quantile(lat, n_lat, 0.95);
        res->lat_p99_s = rank_quantile(lat, n_lat, 0.99);
    } else {
        res->attainment = res->wait_mean_s = res->response_mean_s = NAN;
        res->lat_mean_s = res->lat_p50_s = res->lat_p95_s = res->lat_p99_s = NAN;
    }
    res->busy_frac = t1 > tc ? busy / ((double)servers * (t1 - tc)) : NAN;
out:
    free(heap);
    free(lat);
    return rc;
}
