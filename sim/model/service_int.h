/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_int.h — the model of a real-time inference service (internal to
 * sim/): its configuration, the queueing model of its replicas, interval
 * accounting of demand, SLO attainment and overflow, the autoscaler, and a
 * request-level simulation that validates the queueing model. docs/services.md
 * is the long form; this header is the contract the engine integrates against.
 *
 * The module is pure: no globals, no clock, no I/O; randomness only through a
 * generator the caller passes (request-level mode only). The engine owns the
 * replicas (jobs holding GPUs) and calls in at every load change (the load is
 * piecewise constant per hour: sim__svc_next_change_us) and whenever replicas
 * become ready or go away.
 *
 * Units. Load is in requests/s (cfg.load, a trace_arrival_cfg whose rate is
 * requests per second; its deterministic intensity is used, the MMPP factor at
 * its stationary mean). Throughput is in "work tokens"/s: a request carries
 * W = tokens_out + prefill_weight * tokens_in work tokens; with the default
 * prefill_weight 0, W is the output tokens, which is what the published
 * throughput-at-latency figures count (decode-bound serving: the prefill cost
 * of the benchmark's prompts is inside the per-output-token rate).
 *
 * Queueing model. Ready replicas of GPU type t form a subpool of
 * n_t = replicas_t x concurrency_t servers (batch slots), each serving one
 * request in an exponential time of mean concurrency_t x W / tokens_per_s[t],
 * so a full replica produces its rated throughput. Arrivals are Poisson and
 * split among subpools in proportion to their capacity (Bernoulli routing, so
 * each subpool sees Poisson arrivals and the same utilisation); each subpool
 * is an exact M/M/n_t FCFS queue. Latency ("the SLO latency") is either the
 * response time (wait + service) or the wait for a batch slot (a TTFT-like
 * SLO), per cfg.slo_kind.
 *
 * The overflow rule. The SLO capacity lambda_max of the ready replicas is the
 * largest arrival rate at which the fraction of requests meeting the SLO is
 * still >= slo_target (0 if even an idle service misses the target). Of an
 * offered rate lambda, min(lambda, lambda_max) is admitted and served as an
 * M/M/n queue at that rate; its requests meet the SLO with probability
 * f(admitted) (the rest are late). The excess lambda - admitted is
 *   API mode:  sent to the API;
 *   MISS mode: counted as SLO misses; it is served at low priority on what
 *              capacity is left (late) up to the replicas' saturation
 *              throughput, and the part beyond it is unserved (it would queue
 *              without bound). With exponential service, preemptive priority
 *              leaves the admitted class exactly an M/M/n queue at the
 *              admitted rate, which is what makes this split exact.
 * Conservation: demanded = slo_ok + late + unserved + api, in requests and in
 * tokens; tokens served on owned GPUs = slo_ok + late.
 */
#ifndef TARMAC_SIM_SERVICE_INT_H
#define TARMAC_SIM_SERVICE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "model/model.h"

/* Batch slots per replica when cfg.concurrency[t] is 0. */
#define SIM__SVC_CONCURRENCY_DEFAULT 16u
/* Most servers (replicas x concurrency) of one subpool the model accepts. */
#define SIM__SVC_SERVERS_MAX (UINT32_C(1) << 30)
/* Most servers in all of a request-level simulation (its heap is in memory). */
#define SIM__SVC_REQSIM_SERVERS_MAX (UINT32_C(1) << 24)
/* Default limit on requests of one request-level simulation. */
#define SIM__SVC_REQSIM_MAX_DEFAULT ((size_t)100000000)
/* Most requests one hour of request mode simulates (320 MB of requests;
 * 5,555 requests/s). */
#define SIM__SVC_REQUEST_MAX ((size_t)20000000)
/* Entries of the autoscaler's scale-down window (see sim__svc_scaler). */
#define SIM__SVC_SCALER_WINDOW 16

typedef enum sim__svc_overflow {
    SIM__SVC_OVERFLOW_MISS = 0, /* excess load counts as SLO misses (late or unserved) */
    SIM__SVC_OVERFLOW_API = 1,  /* excess load is sent to an API at its per-token price */
} sim__svc_overflow;

typedef enum sim__svc_slo_kind {
    SIM__SVC_SLO_RESPONSE = 0, /* wait + service <= slo_s (end-to-end latency) */
    SIM__SVC_SLO_WAIT = 1,     /* wait for a batch slot <= slo_s (time-to-first-token) */
} sim__svc_slo_kind;

/* ------------------------------------------------------------------------- */
/* Configuration                                                              */

typedef struct sim__svc_cfg {
    char name[SIM_NAME_MAX];
    char model[SIM_NAME_MAX];
    /* replica shape */
    uint32_t replica_gpus; /* GPUs per replica (one node), >= 1 */
    uint32_t gpu_mem_mib;  /* memory needed on each of its GPUs; 0 = none */
    uint64_t type_mask;    /* allowed types (bits of scenario types); 0 = all */
    /* per GPU type (index into the scenario's types) */
    double
        tokens_per_s[PLACE_MAX_TYPES]; /* work tokens/s of one replica at the SLO; 0 = cannot run */
    uint32_t concurrency[PLACE_MAX_TYPES]; /* requests a replica serves at once; 0 = default */
    /* requests */
    double tokens_in_per_req;  /* mean prompt tokens (API input, prefill work) */
    double tokens_out_per_req; /* mean generated tokens (API output, decode work) */
    double prefill_weight;     /* work tokens per prompt token (default 0; see top) */
    trace_arrival_cfg load;    /* requests/s: daily/weekly profile, growth */
    /* SLO: at least slo_target of requests have latency <= slo_s */
    sim__svc_slo_kind slo_kind;
    double slo_s;
    double slo_target; /* in (0, 1), e.g. 0.99 for a p99 SLO */
    sim__svc_overflow overflow;
    /* autoscaler */
    uint32_t min_replicas, max_replicas; /* 0 <= min <= max, max >= 1 */
    double target_util;                  /* in (0, 1] */
    double scale_up_delay_s;             /* model loading: placed -> ready, >= 0 */
    double scale_down_window_s;          /* scale-down stabilization window, >= 0 */
    /* request-level mode (docs/llm-serving.md, "In fleet runs"): accounting by
     * simulating each request (sim__svc_interval_request) instead of M/M/n */
    int request_mode;             /* 0: the hourly model */
    char llm_model[SIM_NAME_MAX]; /* a sim__llm_model name (request mode) */
    int llm_sarathi;              /* batching: 0 vLLM, 1 Sarathi chunked prefill */
    double slo_tpot_s;            /* TPOT SLO of request mode (0: 0.2 s) */
    /* request mode: the autoscaler on a request-level signal instead of the
     * load model (sim__svc_scaler_step): 0 none, or a SIM__SVC_SIGNAL_* */
    int scale_signal;
    double scale_target;   /* the signal's target per ready replica (> 0) */
    double scale_period_s; /* re-evaluation period with a signal (0: 3600 s) */
} sim__svc_cfg;

#define SIM__SVC_SIGNAL_QUEUE 1 /* time-mean waiting requests per ready replica */
#define SIM__SVC_SIGNAL_KV    2 /* time-mean KV-cache use of the ready replicas, 0..1 */

/* Defaults (sources in docs/services.md): no GPU type usable (tokens_per_s all
 * 0), Azure 2023 conversation trace means for token counts, prefill weight 0,
 * a flat load of 0 requests/s, SLO wait <= 2 s for 99 % (MLPerf Llama 2 70B
 * Server TTFT), overflow MISS, 1..1000 replicas at target utilisation 0.7,
 * scale-up delay 300 s, scale-down window 300 s (Kubernetes HPA default). */
void sim__svc_cfg_defaults(sim__svc_cfg *cfg);

/* Check a configuration against a scenario with n_types GPU types: every
 * number finite and in range, at least one allowed type with tokens_per_s > 0,
 * W > 0, the load valid (trace_arrival_init's rules). TM_ERR_INVAL otherwise,
 * with diag.where "service.<field>" and the value found. */
int sim__svc_cfg_check(const sim__svc_cfg *cfg, size_t n_types, tm_diag *diag);

/* TM_ERR_INVAL with diag.where "service.<field>" and the message "expected
 * <what>, got <got>": the form of every argument error of the service files. */
int sim__svc_bad(tm_diag *diag, const char *field, const char *what, double got);

/* Work tokens per request: tokens_out + prefill_weight * tokens_in. */
double sim__svc_work_per_req(const sim__svc_cfg *cfg);
/* Batch slots of a replica of type t (the default when 0). */
uint32_t sim__svc_concurrency(const sim__svc_cfg *cfg, uint32_t type);
/* Whether type t may host a replica: allowed by type_mask and tokens_per_s > 0. */
int sim__svc_type_ok(const sim__svc_cfg *cfg, uint32_t type);

/* ------------------------------------------------------------------------- */
/* Presets: per-type throughput at the SLO, from docs/services.md's table      */

typedef struct sim__svc_preset_type {
    const char *gpu_type; /* catalog name */
    double tokens_per_s;  /* output tokens/s of one replica at the measured latency */
    uint32_t concurrency; /* batch slots: Little's law, tokens_per_s x ITL */
    const char *source;   /* source and confidence mark */
} sim__svc_preset_type;

#define SIM__SVC_PRESET_TYPES 4

typedef struct sim__svc_preset {
    const char *name;  /* "llama-3.1-8b-fp8" */
    const char *model; /* "Llama 3.1 8B FP8" */
    uint32_t replica_gpus;
    uint32_t gpu_mem_mib; /* derived: weights / TP + KV cache of `concurrency` contexts / TP */
    size_t n_types;
    sim__svc_preset_type types[SIM__SVC_PRESET_TYPES];
} sim__svc_preset;

/* The built-in presets; *n gets their number. */
const sim__svc_preset *sim__svc_presets(size_t *n);
/* The preset named `name` (case-sensitive), or NULL. */
const sim__svc_preset *sim__svc_preset_find(const char *name);
/* Set cfg's model, replica shape, type_mask, tokens_per_s and concurrency from
 * a preset for the scenario's types (matched by name with sim_catalog_find);
 * preset types absent from the scenario are skipped, and every other field of
 * cfg is left as it is. TM_ERR_INVAL if none of the preset's types is in
 * `types` (diag names the preset). */
int sim__svc_cfg_apply_preset(sim__svc_cfg *cfg, const sim__svc_preset *p,
                              const sim_gpu_type *types, size_t n_types, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* M/M/n                                                                      */

/* Erlang B (blocking probability of n servers at offered load a = lambda/mu),
 * by the Erlang B recursion run backwards, 1/B(n) = sum_i prod_{j<i} (n-j)/a:
 * positive terms only, stopped once they are negligible, so O(sqrt(n)) for a
 * near n and exact to rounding for any n (0 where B underflows below 1e-300).
 * NaN for a < 0 or a not finite; 1 for n = 0; 0 for a = 0 < n. */
double sim__svc_erlang_b(uint32_t n, double a);
/* Erlang C (probability an arrival waits), a < n: B / (1 - rho (1 - B)).
 * 1 for a >= n; NaN where erlang_b is. */
double sim__svc_erlang_c(uint32_t n, double a);

/* One M/M/n FCFS queue; fields are set by init: read them, do not write. */
typedef struct sim__svc_mmn {
    uint32_t n;
    double lambda, mu; /* arrival rate, service rate per server (1/s) */
    double a, rho;     /* lambda / mu, a / n */
    double c;          /* Erlang C */
    double theta;      /* n mu - lambda: the wait of a waiting request is Exp(theta) */
} sim__svc_mmn;

/* TM_ERR_INVAL unless n >= 1, mu > 0 and 0 <= lambda < n mu (all finite). */
int sim__svc_mmn_init(sim__svc_mmn *q, uint32_t n, double lambda, double mu);
/* P(latency > t) in closed form (1 for t < 0):
 *   wait:     C e^{-theta t}
 *   response: e^{-mu t} + C mu t e^{-min(theta, mu) t} phi(|theta - mu| t),
 *             phi(x) = (1 - e^{-x}) / x, phi(0) = 1,
 * which is (1 - C) e^{-mu t} + C (theta e^{-mu t} - mu e^{-theta t}) / (theta - mu)
 * written without the cancellation at theta = mu (where it is (1 + mu t) e^{-mu t}). */
double sim__svc_mmn_sf(const sim__svc_mmn *q, sim__svc_slo_kind kind, double t_s);
/* P(latency <= t) = 1 - sf. */
double sim__svc_mmn_cdf(const sim__svc_mmn *q, sim__svc_slo_kind kind, double t_s);
/* Mean latency: C / theta (wait), 1/mu + C / theta (response). */
double sim__svc_mmn_mean(const sim__svc_mmn *q, sim__svc_slo_kind kind);
/* The p-quantile (0 < p < 1): the smallest t with cdf(t) >= p, by bisection
 * on sf to a relative 1e-13 (0 where the wait's atom at 0 covers p). */
double sim__svc_mmn_quantile(const sim__svc_mmn *q, sim__svc_slo_kind kind, double p);

/* ------------------------------------------------------------------------- */
/* The ready replicas of a service                                            */

typedef struct sim__svc_sub {
    uint32_t type;     /* GPU type */
    uint32_t replicas; /* ready replicas of the type (> 0) */
    uint32_t servers;  /* replicas x concurrency */
    double mu;         /* per server: tokens_per_s / (concurrency x W), 1/s */
    double cap;        /* servers x mu: saturation throughput, requests/s */
    double weight;     /* cap / total cap: share of the arrivals routed here */
} sim__svc_sub;

/* The ready replicas by type, with their SLO capacity. Caller storage; borrows
 * cfg, which must outlive it and not change. Rebuild it when replicas change. */
typedef struct sim__svc_pool {
    const sim__svc_cfg *cfg;
    double work_per_req; /* W */
    uint32_t replicas;   /* ready replicas, all types */
    size_t n_sub;
    sim__svc_sub sub[PLACE_MAX_TYPES];
    double cap_req_per_s;     /* saturation throughput, requests/s (0 without replicas) */
    double slo_cap_req_per_s; /* lambda_max: the largest rate meeting the SLO target */
    double attain_idle;       /* fraction meeting the SLO at a vanishing load */
} sim__svc_pool;

/* Build the pool from ready_by_type[0..n_types) (types with 0 are skipped; a
 * replica on a type cfg cannot use is TM_ERR_INVAL) and find lambda_max by
 * bisection on the utilisation to 1e-12 (the admitted fraction meeting the
 * SLO decreases in the load). Cost: O(40 x subpools x sqrt(servers)). No
 * replicas is valid: capacity 0, everything overflows. */
int sim__svc_pool_init(sim__svc_pool *pool, const sim__svc_cfg *cfg, const uint32_t *ready_by_type,
                       size_t n_types, tm_diag *diag);

/* Fraction of requests meeting the SLO at arrival rate lambda < cap
 * (mixture over subpools of their M/M/n CDF at the SLO). */
double sim__svc_pool_attainment(const sim__svc_pool *pool, double lambda_req_per_s);

/* The steady state at one offered load. Rates in requests/s; latencies are of
 * the admitted requests (NaN without replicas). */
typedef struct sim__svc_perf {
    double offered, cap, slo_cap;
    double admitted;                    /* min(offered, slo_cap) */
    double slo_ok, late, unserved, api; /* sum = offered */
    double attain_admitted;             /* fraction of admitted requests meeting the SLO */
    double attainment;                  /* slo_ok / (offered - api); NaN when that is 0 */
    double util;                        /* busy fraction of the ready replicas */
    double wait_mean_s, response_mean_s;
    double lat_mean_s, lat_p50_s, lat_p95_s, lat_p99_s; /* the SLO latency */
} sim__svc_perf;

/* Evaluate the pool at an offered rate (finite, >= 0) by the overflow rule. */
int sim__svc_perf_eval(const sim__svc_pool *pool, double offered_req_per_s, sim__svc_perf *perf,
                       tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Interval accounting                                                        */

typedef struct sim__svc_vol {
    double req, tok_in, tok_out;
} sim__svc_vol;

/* Totals the engine accumulates per service; zero it to start. */
typedef struct sim__svc_acct {
    double seconds;
    sim__svc_vol demanded, slo_ok, late, unserved, api;
    double replica_s;      /* ready replica-seconds */
    double busy_replica_s; /* ready replica-seconds x utilisation (GPU-s: x replica_gpus) */
    /* request mode: the signals of the last simulated piece (sig_n pieces so
     * far): time-mean waiting requests per ready replica and KV-cache use */
    double sig_queue, sig_kv;
    uint64_t sig_n;
} sim__svc_acct;

/* Add [t0_us, t1_us) at the pool's ready replicas (constant over it) to acct.
 * The interval is cut at the load profile's hour boundaries; on each piece
 * the offered rate is its expected demand (trace_arrival_expected, exact,
 * growth included) over its length and the piece is evaluated by
 * sim__svc_perf_eval. So accounting [a, c) equals accounting [a, b) and
 * [b, c) for any b on an hour boundary. Tokens = requests x the configured
 * mean tokens. Cost O(hours in the interval). TM_ERR_INVAL if t1 < t0. */
int sim__svc_interval(const sim__svc_pool *pool, int64_t t0_us, int64_t t1_us, sim__svc_acct *acct,
                      tm_diag *diag);
/* The same accounting by request-level simulation (service_reqsim.c): the
 * requests of [t0_us, t1_us), Poisson from cfg.load with the configured mean
 * token counts, drawn from a generator seeded by (seed, t0_us), are routed to
 * the pool's subpools in proportion to capacity and served by continuous
 * batching on each subpool's replicas (sim__llm_run, model cfg.llm_model on
 * types[sub.type], TP = replica_gpus). A request meets the SLO when its TTFT
 * (wait kind) or end-to-end latency (response kind) is <= slo_s and its TPOT
 * <= slo_tpot_s; served otherwise is late; with overflow API, a request that
 * finds `concurrency` requests waiting at its replica goes to the API; one
 * longer than a replica's KV cache is unserved. The interval is simulated
 * in pieces cut at hour boundaries, one after the other on the service's
 * chains (*rq, one per GPU type; NULL before the first call, made here):
 * what waits or runs at the end of a piece goes on in the next, and a
 * request is counted in the piece where it ends (its latency from its
 * arrival). At a piece's start a type's replica count is the pool's: new
 * replicas start empty, removed ones hand their requests back to be routed
 * again (sim__llm_state_resize); a type with no ready replica loses what it
 * held (unserved); a new cfg (a specialization) first serves what the old
 * one's chains hold. Without replicas everything is API or unserved.
 * TM_ERR_INVAL on a bad model or shape (diag says which); TM_ERR_LIMIT past
 * SIM__SVC_REQUEST_MAX requests in the interval; TM_ERR_INTERRUPTED when
 * *stop is set (stop may be NULL). */
typedef struct sim__svc_reqstate sim__svc_reqstate;
int sim__svc_interval_request(const sim__svc_pool *pool, const sim_gpu_type *types, int64_t t0_us,
                              int64_t t1_us, uint64_t seed, sim__svc_reqstate **rq,
                              sim__svc_acct *acct, volatile int *stop, tm_diag *diag);
/* The end of the run, after the last sim__svc_interval_request: what the
 * chains hold is served to the end on their replicas and counted in acct
 * (its demand was counted when it arrived); *rq is freed and set to NULL. */
int sim__svc_request_finish(sim__svc_reqstate **rq, sim__svc_acct *acct, volatile int *stop,
                            tm_diag *diag);
/* Free without serving (an error path; NULL is fine). */
void sim__svc_reqstate_free(sim__svc_reqstate *rq);

/* Derived figures: tokens on owned GPUs (slo_ok + late), SLO misses (late +
 * unserved), attainment slo_ok / (demanded - api) in requests (NaN if 0). */
sim__svc_vol sim__svc_acct_owned(const sim__svc_acct *acct);
sim__svc_vol sim__svc_acct_missed(const sim__svc_acct *acct);
double sim__svc_acct_attainment(const sim__svc_acct *acct);

/* Mean offered rate over [t0_us, t1_us) (requests/s; the rate at t0 when the
 * interval is empty). */
double sim__svc_load_mean(const sim__svc_cfg *cfg, int64_t t0_us, int64_t t1_us);
/* The first hour boundary after t_us where the deterministic intensity may
 * change (INT64_MAX for a flat profile without growth): the engine calls
 * sim__svc_interval and the autoscaler at least at these times. */
int64_t sim__svc_next_change_us(const sim__svc_cfg *cfg, int64_t t_us);

/* ------------------------------------------------------------------------- */
/* Autoscaler                                                                 */

/* desired(lambda) = clamp(ceil(lambda W / (target_util x replica_tokens_per_s)),
 * min, max). Scale-up is immediate: when desired > ready + loading the
 * difference is requested, and each new replica is ready scale_up_delay_s
 * after the engine places it. Scale-down follows the Kubernetes HPA rule: the
 * count is lowered to the largest desired value in force during the last
 * scale_down_window_s, kept as a monotone window of (value, time it stopped
 * being in force) entries; if it fills, the two last entries merge into the
 * larger value (a later scale-down, never an earlier one). Released replicas
 * are taken from the loading ones first. Deterministic: a function of the
 * calls' times and loads. */
typedef struct sim__svc_scaler {
    uint32_t ready;   /* replicas serving */
    uint32_t loading; /* requested, not yet ready (waiting for GPUs or loading) */
    uint32_t desired; /* at the last step */
    int64_t last_us;  /* time of the last step (-inf before the first: INT64_MIN) */
    uint32_t n_win;
    uint32_t win_value[SIM__SVC_SCALER_WINDOW];   /* decreasing from the front */
    int64_t win_until_us[SIM__SVC_SCALER_WINDOW]; /* INT64_MAX: still in force */
    /* the request-level signal measured last (cfg.scale_signal), if any */
    int has_signal;
    double signal;
} sim__svc_scaler;

/* Hand the last measured request-level signal of acct (cfg.scale_signal) to
 * the scaler before a step; nothing without a signal or a measurement. With
 * one, sim__svc_scaler_step sizes on it as Kubernetes' HPA does on a custom
 * metric: desired = ceil(ready x signal / scale_target) within [min, max],
 * `ready` while the signal is within 10 % of the target (the HPA's
 * tolerance), the load model's value while no replica is ready; and asks to be
 * evaluated again scale_period_s later. */
void sim__svc_scaler_signal(sim__svc_scaler *s, const sim__svc_cfg *cfg, const sim__svc_acct *acct);

typedef struct sim__svc_action {
    uint32_t desired;
    uint32_t request;         /* new replicas to place now */
    int64_t ready_at_us;      /* when they are ready if placed now: t + delay */
    uint32_t release_loading; /* requested replicas to cancel */
    uint32_t release_ready;   /* ready replicas to stop */
    int64_t next_eval_us;     /* step again then even without a load change; INT64_MAX none */
} sim__svc_action;

/* The replicas the autoscaler sizes for: ceil(load x work per request /
 * (target_util x replica_tokens_per_s)) within [min_replicas, max_replicas]
 * (a relative slack of 1e-12 so that exactly k replicas' worth is k). The
 * step uses it for `desired`; a specialization report uses it for the model
 * the service no longer runs. Inputs as for the step (checked there). */
uint32_t sim__svc_desired(const sim__svc_cfg *cfg, double load_req_per_s,
                          double replica_tokens_per_s);

/* Start with `ready` replicas already serving (placed and loaded at t = 0). */
void sim__svc_scaler_init(sim__svc_scaler *s, uint32_t ready);
/* One decision at t_us (non-decreasing across calls) for the offered load
 * (requests/s, finite >= 0) and the capacity assumed per replica (work
 * tokens/s, > 0: the engine passes that of the type it places on). Applies
 * the action to s (loading += request, the releases subtracted). */
int sim__svc_scaler_step(sim__svc_scaler *s, const sim__svc_cfg *cfg, int64_t t_us,
                         double load_req_per_s, double replica_tokens_per_s, sim__svc_action *act,
                         tm_diag *diag);
/* k loading replicas became ready (TM_ERR_INVAL if k > loading). */
int sim__svc_scaler_ready(sim__svc_scaler *s, uint32_t k, tm_diag *diag);
/* Replicas went away without a release (GPU failure, a request that could not
 * be placed); step again to replace them. TM_ERR_INVAL if more than there are. */
int sim__svc_scaler_lost(sim__svc_scaler *s, uint32_t ready_lost, uint32_t loading_lost,
                         tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Request-level mode                                                         */

typedef enum sim__svc_service_dist {
    SIM__SVC_SERVICE_EXP = 0, /* Exp(mean concurrency W / tokens_per_s): the model's assumption */
    SIM__SVC_SERVICE_TOKENS = 1, /* concurrency W_i / tokens_per_s, W_i the request's own work */
} sim__svc_service_dist;

/* One request, e.g. a row of the Azure LLM inference trace. */
typedef struct sim__svc_request {
    double t_s; /* arrival, seconds on the scenario's clock */
    double tokens_in, tokens_out;
} sim__svc_request;

typedef struct sim__svc_reqsim_opts {
    int64_t t0_us, t1_us;         /* arrivals in [t0, t1) */
    int64_t warmup_us;            /* arrivals before t0 + warmup load the queue, uncounted */
    const sim__svc_request *reqs; /* sorted by t_s; NULL: Poisson arrivals from cfg.load */
    size_t n_reqs;
    sim__svc_service_dist service; /* with Poisson arrivals, TOKENS means the mean: D service */
    size_t max_requests;           /* arrivals simulated at most; 0 = SIM__SVC_REQSIM_MAX_DEFAULT */
    gsl_rng *r; /* arrivals, routing and service draws; NULL only if none needed */
} sim__svc_reqsim_opts;

typedef struct sim__svc_reqsim_result {
    uint64_t arrived; /* simulated */
    uint64_t counted; /* arrived after the warm-up */
    uint64_t slo_ok;
    double attainment; /* slo_ok / counted (NaN if none) */
    double wait_mean_s, response_mean_s;
    double lat_mean_s, lat_p50_s, lat_p95_s, lat_p99_s; /* the SLO latency, nearest rank */
    sim__svc_vol served, served_slo_ok;                 /* of counted requests (all are served) */
    double busy_frac; /* service time of counted requests / (servers x counted window) */
} sim__svc_reqsim_result;

/* Simulate individual requests through the pool's replicas: capacity-
 * proportional random routing to subpools (one uniform per arrival when there
 * are several), FCFS on each subpool's n servers (the server that frees first
 * takes the next request), every request served to completion (no overflow:
 * this is the queue the analytic model describes at the full load). Draw
 * order per arrival: the arrival gap (Poisson), routing, service. Memory:
 * servers + counted requests doubles. TM_ERR_INVAL for a pool without
 * replicas, unsorted or non-finite requests, a missing generator;
 * TM_ERR_LIMIT past max_requests or SIM__SVC_REQSIM_SERVERS_MAX; TM_ERR_NOMEM. */
int sim__svc_reqsim_run(const sim__svc_pool *pool, const sim__svc_reqsim_opts *opts,
                        sim__svc_reqsim_result *res, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* A service as a scenario gives it (what the engine runs)                    */

struct sim_service_spec {
    sim__svc_cfg cfg;
    int32_t priority;            /* of its replicas, for the placement policy */
    double api_in_usd_per_mtok;  /* price of input tokens sent to the API */
    double api_out_usd_per_mtok; /* price of output tokens sent to the API */
    /* specialization: from special_at_us on, the service runs `special` (another
     * model: replica shape, throughput); -1 never */
    int64_t special_at_us;
    sim__svc_cfg special;
};

#endif
