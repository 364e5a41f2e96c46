/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_int.h — LLM serving at request level (internal to sim/): requests
 * arrive, are routed to replicas of one deployment (a model on a GPU type,
 * tensor-parallel over 1..8 GPUs), and run prefill then decode under
 * iteration-level continuous batching, with a KV cache of fixed-size blocks.
 * docs/llm-serving.md is the long form; this header is the contract.
 *
 * Three parts:
 *   models     the built-in model dimensions (llm_iter.c)
 *   iteration  the time of one iteration of a replica as a function of its
 *              batch: a roofline from the catalog, or a measured profile
 *              (CSV grid, interpolated) behind one interface (llm_iter.c)
 *   simulator  arrivals, routing, the vLLM and Sarathi batching policies,
 *              KV admission and preemption by recomputation, and the
 *              outputs: TTFT, TPOT, end-to-end latency, SLO attainment,
 *              throughput, batch-size and KV-use series (llm_sim.c)
 *
 * The module is pure: no globals, no clock, no I/O (a profile is parsed from
 * text the caller read); randomness only through a generator the caller
 * passes (synthetic requests). Time is in seconds as doubles: a request-level
 * run spans hours, not years, and iterations are milliseconds.
 */
#ifndef TARMAC_SIM_LLM_INT_H
#define TARMAC_SIM_LLM_INT_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "model/model.h"

/* Most replicas of one deployment. */
#define SIM__LLM_REPLICAS_MAX 4096u
/* Most cells of a profile grid, and most rows of its CSV. */
#define SIM__LLM_PROFILE_MAX 1000000u
/* Most time-series cells (replicas x bins) of one run. */
#define SIM__LLM_SERIES_MAX 20000000u

/* ------------------------------------------------------------------------- */
/* Models                                                                     */

typedef struct sim__llm_model {
    const char *name;              /* "llama-3.1-8b-fp8" */
    double params;                 /* parameters */
    double weight_bytes_per_param; /* 1 for FP8 weights, 2 for BF16 */
    uint32_t layers, hidden, heads, kv_heads, head_dim;
    double kv_bytes_per_elem; /* 2: a BF16 KV cache */
    const char *source;
} sim__llm_model;

/* The built-in models (*n gets their number), and one by name (NULL if none). */
const sim__llm_model *sim__llm_models(size_t *n);
const sim__llm_model *sim__llm_model_find(const char *name);
/* KV-cache bytes of one token over the whole model: 2 x layers x kv_heads x
 * head_dim x bytes per element. */
double sim__llm_kv_bytes_per_token(const sim__llm_model *m);

/* ------------------------------------------------------------------------- */
/* Iteration time                                                             */

/* What one iteration of a replica computes. */
typedef struct sim__llm_batch {
    uint32_t prefill_tokens; /* prompt tokens (whole prompts or chunks) */
    uint32_t decode_seqs;    /* sequences producing one token each */
    uint32_t seqs;           /* sequences in the iteration (prefill and decode) */
    uint64_t kv_tokens;      /* KV-cache tokens read: decodes' contexts + chunks' prior context */
    double attn_pairs;       /* sum over new tokens of the context they attend to */
} sim__llm_batch;

/* A measured profile: iteration time on a full grid of (prefill tokens,
 * decode sequences, KV tokens), read from CSV
 *     prefill_tokens,decode_seqs,kv_tokens,time_ms
 * (header required, columns in any order, '#' comments and blank lines
 * skipped). Every combination of the distinct values of the three axes must
 * be present once. Between grid points the time is interpolated linearly on
 * each axis; beyond the last point of an axis it is extrapolated from the
 * last two (iteration time grows linearly once compute- or memory-bound),
 * before the first it is the first; an axis with one value is constant. */
typedef struct sim__llm_profile {
    size_t n[3];     /* distinct values per axis */
    double *axis[3]; /* sorted values per axis */
    double *t_s;     /* t_s[(i * n[1] + j) * n[2] + k] */
} sim__llm_profile;

/* Parse a profile from text[0..len) read from `name` (used in messages:
 * "name:LINE: ..."). TM_ERR_DATA on a malformed file (the line named),
 * TM_ERR_NOMEM. pr is valid for _fini after any return. */
int sim__llm_profile_parse(sim__llm_profile *pr, const char *name, const char *text, size_t len,
                           tm_diag *diag);
void sim__llm_profile_fini(sim__llm_profile *pr);

/* The roofline: an iteration takes
 *     overhead + max(compute, memory) + communication
 *   compute = (2 x params x tokens + 4 x layers x heads x head_dim x attn_pairs)
 *             / (TP x peak FLOP/s x compute efficiency)
 *   memory  = (weight bytes + KV bytes per token x kv_tokens) / (TP x bandwidth x
 *             memory efficiency)
 *   communication (TP > 1) = 2 x layers all-reduces of tokens x hidden x 2 bytes,
 *             each latency + 2 (TP-1)/TP x bytes / link bandwidth (ring)
 * Peak is the catalog's BF16 dense TFLOPS, doubled for FP8 weights on types
 * with FP8 tensor cores. Efficiencies and overhead are calibrated (see
 * docs/llm-serving.md, "Calibration"). */
typedef struct sim__llm_roofline {
    double flops_per_s;         /* effective, whole replica */
    double bytes_per_s;         /* effective, whole replica */
    double weight_bytes;        /* whole model */
    double flops_per_token;     /* 2 x params */
    double attn_flops_per_pair; /* 4 x layers x heads x head_dim */
    double kv_bytes_per_token;
    double overhead_s; /* per iteration (scheduling, kernel launches) */
    uint32_t tp;
    double link_bytes_per_s; /* per GPU, one direction */
    double allreduce_latency_s;
    double allreduce_bytes_per_token; /* hidden x 2 bytes */
    uint32_t allreduces;              /* per iteration: 2 x layers */
} sim__llm_roofline;

/* Calibration constants of the roofline (docs/llm-serving.md). */
#define SIM__LLM_COMPUTE_EFF     0.60
#define SIM__LLM_MEMORY_EFF      0.80
#define SIM__LLM_OVERHEAD_S      0.002
#define SIM__LLM_ALLREDUCE_LAT_S 10e-6

/* Interconnect of a GPU type (an assumption: docs/llm-serving.md): per-GPU
 * one-direction bandwidth of the intra-node link and whether the type has FP8
 * tensor cores. Types not in the table: PCIe 4.0 x16 (32 GB/s), no FP8. */
void sim__llm_gpu_link(const char *gpu_type, double *link_gbs, int *fp8);

/* Fill r for model m on GPU type g with tp GPUs; TM_ERR_INVAL when g lacks
 * the figures (NaN TFLOPS or bandwidth) or tp is not 1, 2, 4 or 8. */
int sim__llm_roofline_init(sim__llm_roofline *r, const sim__llm_model *m, const sim_gpu_type *g,
                           uint32_t tp, tm_diag *diag);

/* One interface, two sources: profile when not NULL, else the roofline. */
typedef struct sim__llm_iter {
    const sim__llm_profile *profile;
    sim__llm_roofline roof;
} sim__llm_iter;

/* Seconds one iteration of batch b takes (> 0). */
double sim__llm_iter_time(const sim__llm_iter *it, const sim__llm_batch *b);

/* The roofline's seconds for batch b, the 1 us floor applied: what
 * sim__llm_iter_time returns without a profile, inline for the decode
 * stretches of llm_sim.c (one definition, so the two agree to the bit).
 * _parts also gives the compute and memory times it took the larger of
 * (a decode stretch's closed form starts from them). */
static inline double sim__llm_roof_parts(const sim__llm_roofline *r, const sim__llm_batch *b,
                                         double *tc_out, double *tm_out)
{
    double tokens = (double)b->prefill_tokens + (double)b->decode_seqs;
    double flops = r->flops_per_token * tokens + r->attn_flops_per_pair * b->attn_pairs;
    double bytes = r->weight_bytes + r->kv_bytes_per_token * (double)b->kv_tokens;
    double tc = flops / r->flops_per_s, tm = bytes / r->bytes_per_s;
    *tc_out = tc;
    *tm_out = tm;
    double t = r->overhead_s + (tc > tm ? tc : tm);
    if (r->tp > 1) {
        double ar_bytes = r->allreduce_bytes_per_token * tokens;
        t += r->allreduces *
             (r->allreduce_latency_s + 2.0 * (r->tp - 1) / r->tp * ar_bytes / r->link_bytes_per_s);
    }
    return t > 1e-6 ? t : 1e-6;
}

static inline double sim__llm_roof_time(const sim__llm_roofline *r, const sim__llm_batch *b)
{
    double tc, tm;
    return sim__llm_roof_parts(r, b, &tc, &tm);
}

/* KV-cache blocks of one replica: (tp x GPU memory x mem_frac - weights) /
 * (block_tokens x KV bytes per token), rounded down. TM_ERR_INVAL (with what
 * is missing) when the weights leave no block. */
int sim__llm_kv_blocks(const sim__llm_model *m, const sim_gpu_type *g, uint32_t tp, double mem_frac,
                       uint32_t block_tokens, uint64_t *blocks, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Requests                                                                   */

typedef struct sim__llm_req {
    double t_s;      /* arrival, non-decreasing */
    uint32_t prompt; /* prompt tokens (0 is read as 1) */
    uint32_t output; /* output tokens (0 is read as 1) */
} sim__llm_req;

typedef enum sim__llm_dist_kind {
    SIM__LLM_DIST_FIXED = 0,
    SIM__LLM_DIST_EXP = 1,       /* ceil of an exponential of the mean: geometric */
    SIM__LLM_DIST_UNIFORM = 2,   /* integers in [lo, hi] */
    SIM__LLM_DIST_EMPIRICAL = 3, /* a value drawn uniformly from values[0..n) */
} sim__llm_dist_kind;

typedef struct sim__llm_dist {
    sim__llm_dist_kind kind;
    double mean;            /* FIXED, EXP */
    uint32_t lo, hi;        /* UNIFORM */
    const uint32_t *values; /* EMPIRICAL (borrowed) */
    size_t n_values;
} sim__llm_dist;

/* n requests of Poisson arrivals at rate_per_s from t = 0 with prompt and
 * output lengths drawn from the two distributions (draw order per request:
 * gap, prompt, output). *out is malloc'ed (the caller frees it). */
int sim__llm_synth(sim__llm_req **out, size_t n, double rate_per_s, const sim__llm_dist *prompt,
                   const sim__llm_dist *output, gsl_rng *r, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* The simulator                                                              */

typedef enum sim__llm_policy {
    SIM__LLM_VLLM = 0,    /* prefill-prioritising: whole prompts, no decode in a prefill batch */
    SIM__LLM_SARATHI = 1, /* chunked prefill: decodes, then prefill chunks, to a token budget */
} sim__llm_policy;

typedef enum sim__llm_route {
    SIM__LLM_ROUTE_LEAST = 0,   /* the replica with the fewest outstanding requests */
    SIM__LLM_ROUTE_RR = 1,      /* round robin */
    SIM__LLM_ROUTE_CENTRAL = 2, /* one queue; a replica takes a request when it has a free slot */
} sim__llm_route;

typedef struct sim__llm_cfg {
    uint32_t replicas; /* >= 1 */
    sim__llm_iter iter;
    uint64_t kv_blocks;    /* per replica (sim__llm_kv_blocks) */
    uint32_t block_tokens; /* tokens per KV block (16) */
    sim__llm_policy policy;
    uint32_t max_batch;    /* sequences in a replica's batch (vLLM max_num_seqs, 256) */
    uint32_t max_tokens;   /* vLLM: tokens per iteration (max_num_batched_tokens, 8192) */
    uint32_t chunk_tokens; /* Sarathi: the token budget of an iteration (512) */
    double watermark;      /* fraction of blocks a new admission must leave free (0.01) */
    sim__llm_route route;
    double slo_ttft_s, slo_tpot_s; /* SLOs (2 s, 0.2 s: MLPerf Llama 2 70B Server) */
    uint32_t max_queue; /* a request finding this many waiting goes to the API; 0 = never */
    double api_in_usd_per_mtok, api_out_usd_per_mtok;
    double warmup_s; /* requests arriving before this are served, not counted */
    double bin_s;    /* time-series bin (> 0) */
    /* 1: only the per-request outcomes (ttft_s, tpot_s, e2e_s, replica),
     * the series and each replica's iterations, busy_s and preemptions are
     * filled; no percentiles, attainment or token sums (a fleet run's
     * accounting needs no more, and sorting every interval's latencies cost
     * a quarter of its time) */
    int outcomes_only;
    /* 1 (with outcomes_only): not even the per-request outcomes: ttft_s,
     * tpot_s, e2e_s and replica stay NULL, and the run counts instead
     * (n_met, n_late, service.api, service.dropped, api_usd; every request,
     * the warm-up ignored). A served request is met when its TTFT (or, with
     * count_e2e, its end-to-end latency) is <= count_slo_s and its TPOT is
     * not > slo_tpot_s (a fleet run's rule, service_reqsim.c), late
     * otherwise. Memory is then O(requests in flight) besides reqs. */
    int counts_only;
    /* 1: no series (batch_mean, kv_use, queue_mean stay empty; a chain's
     * queue_sum and kv_sum are 0): a fleet run without a request-level
     * signal reads none */
    int no_series;
    int count_e2e;
    double count_slo_s;
    /* 1: the winner tree for the least-outstanding route whatever the
     * replica count (a deployment of at most 64 replicas finds it by a bit
     * mask with the same answers; test_llm compares the two) */
    int trees_always;
} sim__llm_cfg;

/* Defaults: 1 replica, vLLM, 256 sequences, 8192 tokens, chunk 512, block
 * 16, watermark 0.01, least-outstanding routing, SLO TTFT 2 s and TPOT
 * 0.2 s, no API, bins of 10 s. iter and kv_blocks are left 0 (the caller sets
 * them). */
void sim__llm_cfg_defaults(sim__llm_cfg *c);

/* Latency percentiles (nearest rank) of one population. */
typedef struct sim__llm_pct {
    double mean, p50, p90, p95, p99, max;
} sim__llm_pct;

/* Figures of one population of requests (a replica, or the service). */
typedef struct sim__llm_stats {
    uint64_t counted;             /* arrived after the warm-up and served on a replica */
    uint64_t dropped;             /* longer than a replica's whole KV cache: never served */
    uint64_t api;                 /* sent to the API */
    uint64_t preemptions;         /* recomputations */
    double tokens_in, tokens_out; /* of the counted requests */
    sim__llm_pct ttft, tpot, e2e;
    double att_ttft, att_tpot, att_joint; /* fractions of counted requests meeting the SLOs */
    double iterations, busy_s;
} sim__llm_stats;

typedef struct sim__llm_result {
    size_t n_reqs;
    /* per request (n_reqs): NaN where not served on a replica; NULL with
     * counts_only */
    double *ttft_s, *tpot_s, *e2e_s;
    int32_t *replica;             /* -1: API, -2: dropped */
    uint64_t n_met, n_late;       /* counts_only: served requests meeting the rule or not */
    double sum_ttft_s, sum_e2e_s; /* counts_only: their TTFT and end-to-end sums */
    uint32_t replicas;
    sim__llm_stats service;
    sim__llm_stats *per_replica;     /* [replicas] */
    double t0_s, t_end_s;            /* first arrival, last completion */
    double req_per_s, out_tok_per_s; /* counted requests and their output over [t0, t_end] */
    double api_usd;
    /* series: [replica * n_bins + bin], time means over the bin */
    size_t n_bins;
    double bin_s;
    double *batch_mean; /* sequences per iteration, idle counted as 0 */
    double *kv_use;     /* fraction of KV blocks in use */
    double *queue_mean; /* waiting requests (sampled at iteration starts) */
} sim__llm_result;

/* Run reqs[0..n) through the deployment; res is caller storage, filled (and
 * to be released with _fini, also after a failure). TM_ERR_INVAL on a bad
 * configuration or unsorted requests (diag names the field or request),
 * TM_ERR_LIMIT when the series would exceed SIM__LLM_SERIES_MAX cells,
 * TM_ERR_NOMEM. stop, when not NULL, is polled and yields TM_ERR_INTERRUPTED. */
int sim__llm_run(const sim__llm_cfg *cfg, const sim__llm_req *reqs, size_t n, sim__llm_result *res,
                 volatile int *stop, tm_diag *diag);
void sim__llm_result_fini(sim__llm_result *res);

/* ------------------------------------------------------------------------- */
/* A chain of pieces                                                          */

/* The same simulation cut into pieces [t0, t1), [t1, t2), ... that the
 * caller feeds one after the other (a fleet run's accounting intervals,
 * service_reqsim.c): the state (replicas, queues, requests in flight, a
 * decode stretch in progress) is kept between pieces, so a request still
 * waiting or running at the end of a piece goes on in the next one and is
 * counted in the piece where it finishes (its latency from its arrival).
 * With a constant replica count the outcomes do not depend on where the
 * pieces are cut: a request, an iteration and a stretch are simulated as in
 * one run over all the pieces' arrivals (test_llm chain). Counts only
 * (cfg.counts_only and outcomes_only required). */
typedef struct sim__llm_state sim__llm_state;

/* What one piece counted. A request is counted where it ends (met, late by
 * the counts_only rule; dropped), an API request where it arrives. */
typedef struct sim__llm_counts {
    uint64_t met, late, api, dropped;
    double api_usd;
    double sum_ttft_s, sum_e2e_s; /* of the met and late ones */
    /* iterations and busy seconds booked in the piece (an iteration when it
     * starts, a decode stretch when it ends), preemptions (with the running
     * sequences of removed replicas) */
    double iterations, busy_s;
    uint64_t preemptions;
    /* sums over the replicas of the time means over the piece of requests
     * waiting (sampled at iteration starts) and KV use; a stretch is booked
     * in the piece where it ends */
    double queue_sum, kv_sum;
    uint64_t in_flight; /* routed and not finished at the piece's end */
} sim__llm_counts;

/* A chain at t0 with cfg.replicas empty replicas (cfg is copied). */
int sim__llm_state_new(sim__llm_state **st, const sim__llm_cfg *cfg, double t0, tm_diag *diag);
/* The next piece, from where the chain is (t) to t1 (>= t): the arrivals
 * reqs[0..n) (sorted, in [t, t1)) and every event before t1; t1 = INFINITY
 * serves everything left (the last piece). After an error the state is only
 * good for _free. */
int sim__llm_state_advance(sim__llm_state *st, const sim__llm_req *reqs, size_t n, double t1,
                           sim__llm_counts *out, volatile int *stop, tm_diag *diag);
/* The replica count changes (1..SIM__LLM_REPLICAS_MAX) where the chain is:
 * new replicas start empty (with central routing they take the queue's
 * waiting requests at once); the last ones go, their running sequences
 * preempted by recomputation (the KV cache is lost, with the iteration or
 * stretch in progress) and, with their waiting requests, routed again
 * (never to the API), replica by replica: its running ones, then its
 * waiting ones. The counts of those that end at
 * once (a drop) go to the next piece. */
int sim__llm_state_resize(sim__llm_state *st, uint32_t replicas, tm_diag *diag);
uint32_t sim__llm_state_replicas(const sim__llm_state *st);
/* Requests routed and not finished. */
uint64_t sim__llm_state_in_flight(const sim__llm_state *st);
void sim__llm_state_free(sim__llm_state *st);

#endif
